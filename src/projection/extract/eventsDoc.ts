/**
 * docs/events.md, rendered from the event vocabulary (vocabulary.ts): every field list and every
 * entity and edge in it comes from running the engine on the entry's example, so the document
 * says what the code does. `npm run docs:events` writes it; a test fails when the file and this
 * rendering differ. The output depends on nothing but the code: no clock, no environment.
 *
 * @example
 * ```ts
 * import { renderEventsDoc } from "./src/projection/extract/eventsDoc.ts";
 * fs.writeFileSync("docs/events.md", renderEventsDoc());
 * ```
 */
import { envelopeSwitchWarning } from "../../eventloom/append.ts";
import type { EntityRef } from "../types.ts";
import {
  type DerivedDoc,
  type EdgeDoc,
  type EntityDoc,
  engineRecordTypes,
  eventFamilies,
  type EventTypeDoc,
  eventTypeAliases,
  eventTypeDocs,
  exampleContext,
  mistypedTypeProblem,
  mistypedTypesRefusal,
  retentionFields,
  unknownTypeWarning,
} from "./vocabulary.ts";

/** A markdown code span that survives backticks inside the text. */
function code(text: string): string {
  const fence = text.includes("`") ? "``" : "`";
  const pad = text.startsWith("`") || text.endsWith("`") ? " " : "";
  return `${fence}${pad}${text}${pad}${fence}`;
}

/** One shell word: single-quoted, with `'` written as `'\''`. */
function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/**
 * The command that writes a governance type, which a plain append refuses (src/memory/plainInput.ts
 * holds the rule); undefined for a type anyone may append.
 */
function writtenOnlyBy(type: string): string | undefined {
  if (type.startsWith("fleet.")) return "the `zaxy fleet` commands (and MCP `fleet_*` tools), on the fleet's own thread";
  const commands: Record<string, string> = {
    "memory.rolled_back": "`zaxy memory rollback` (MCP `memory_rollback`)",
    "memory.forgotten": "`zaxy memory forget` (MCP `memory_forget`)",
    "memory.rule.generated": "`zaxy memory outcome` (MCP `memory_outcome`)",
    "memory.rule.proposed": "`zaxy memory outcome` (MCP `memory_outcome`)",
    "evolution.gate.evaluated": "`zaxy memory evolution-gate`, and the commands that ask the gate (forget, rollback, outcome, fleet promotions)",
  };
  return commands[type];
}

/** The flag a type v1 lines cannot carry needs to be appended to a v1 session ([Envelopes](#envelopes)). */
const envelopeSwitchFlag = "--allow-envelope-switch";

/** Whether a plain append of the type to a v1 session needs the flag: it is legacy, and not a governance type (refused anyway). */
function needsEnvelopeSwitchFlag(doc: EventTypeDoc): boolean {
  return !doc.v1 && writtenOnlyBy(doc.type) === undefined;
}

function appendCommand(doc: EventTypeDoc): string {
  const flag = needsEnvelopeSwitchFlag(doc) ? ` ${envelopeSwitchFlag}` : "";
  return `zaxy memory append ${doc.type} --actor ${exampleContext.actor}${flag} --payload-json ${shellQuote(JSON.stringify(doc.example))}`;
}

/** Key paths as listed: a bare key is left out when paths inside it are listed. */
function fieldList(fields: readonly string[]): string[] {
  return fields.filter((field) => !fields.some((other) => other.startsWith(`${field}.`) || other.startsWith(`${field}[].`)));
}

function entityLine(entity: EntityDoc): string {
  const summary = entity.summary === null ? "" : `, summary ${code(entity.summary)}`;
  return `entity ${entity.entityType} ${code(entity.name)}${summary}`;
}

function refText(ref: EntityRef): string {
  return `${ref.entityType} ${code(ref.name)}`;
}

function edgeLine(edge: EdgeDoc): string {
  return `edge ${code(edge.relationType)}${edge.inferred ? " (inferred)" : ""}: ${refText(edge.source)} → ${refText(edge.target)}`;
}

function graphLines(entities: readonly EntityDoc[], edges: readonly EdgeDoc[], indent: string): string[] {
  return [...entities.map((entity) => `${indent}- ${entityLine(entity)}`), ...edges.map((edge) => `${indent}- ${edgeLine(edge)}`)];
}

function derivedLines(derived: DerivedDoc): string[] {
  const head = `- **Then zaxy appends** ${code(derived.type)} (actor ${code(derived.actor)}), which becomes:`;
  return [head, ...graphLines(derived.entities, derived.edges, "  ")];
}

/** The index's envelope cell: `v1`, or `legacy` with the flag a plain append of it to a v1 session needs. */
function envelopeCell(doc: EventTypeDoc): string {
  if (doc.v1) return "v1";
  return needsEnvelopeSwitchFlag(doc) ? `legacy (needs ${code(envelopeSwitchFlag)})` : "legacy";
}

/** What a type becomes, in one short cell of the index table. */
function becomesCell(doc: EventTypeDoc): string {
  const parts: string[] = [];
  const entityTypes = [...new Set(doc.entities.map((entity) => entity.entityType))];
  if (!doc.fallback && entityTypes.length > 0) parts.push(entityTypes.map(code).join(", "));
  const relations = [...new Set(doc.edges.map((edge) => edge.relationType))];
  if (!doc.fallback && relations.length > 0) parts.push(`edges ${relations.map(code).join(", ")}`);
  for (const derived of doc.derived) parts.push(`then ${code(derived.type)}`);
  return parts.length > 0 ? parts.join("; ") : "nothing (bookkeeping)";
}

function typeSection(doc: EventTypeDoc, retentionCount: number): string[] {
  const lines = [`### ${code(doc.type)}`, "", doc.description, ""];
  const fields = fieldList(doc.fieldsRead).map(code);
  if (doc.readsRetentionFields) fields.push(`and the ${retentionCount} [retention fields](#retention-fields)`);
  lines.push(`- **Reads:** ${fields.length > 0 ? fields.join(", ") : "no payload field"}`);
  if (doc.fallback) {
    lines.push(`- **Becomes:** itself only the generic entity ${code(`event:${doc.type}:<seq>`)}; what it states comes from the event zaxy appends after it`);
  } else if (doc.entities.length === 0 && doc.edges.length === 0) {
    lines.push("- **Becomes:** nothing in the graph");
  } else {
    lines.push("- **Becomes:**", ...graphLines(doc.entities, doc.edges, "  "));
  }
  for (const derived of doc.derived) lines.push(...derivedLines(derived));
  if (!doc.v1) {
    const flag = needsEnvelopeSwitchFlag(doc) ? `, so a plain append of it to a v1 session needs ${code(envelopeSwitchFlag)} (MCP ${code("allow_envelope_switch: true")})` : "";
    lines.push(`- **Envelope:** legacy: a log this type is appended to is written in legacy lines from then on${flag} ([Envelopes](#envelopes))`);
  }
  const owner = writtenOnlyBy(doc.type);
  if (owner !== undefined) {
    lines.push(`- **Written by:** ${owner} only; a plain append or ingest of this type is refused ([Input rules](#input-rules))`, "");
    return lines;
  }
  lines.push("", "```sh", appendCommand(doc), "```", "");
  return lines;
}

/**
 * The whole of docs/events.md.
 *
 * @example
 * ```ts
 * renderEventsDoc().startsWith("# Event types\n"); // true
 * ```
 */
export function renderEventsDoc(): string {
  const docs = eventTypeDocs();
  const retention = retentionFields();
  const legacyTypes = docs.filter((doc) => !doc.v1).map((doc) => code(doc.type));
  const lines: string[] = [
    ...introLines(),
    ...inputRulesLines(),
    ...unknownTypesLines(),
    ...envelopesLines(legacyTypes),
    ...retentionLines(retention),
    ...indexLines(docs),
  ];
  for (const { family, title } of eventFamilies) {
    const members = docs.filter((doc) => doc.family === family);
    if (members.length === 0) continue;
    lines.push(`## ${title}`, "");
    for (const doc of members) lines.push(...typeSection(doc, retention.length));
  }
  lines.push(
    "## Written by zaxy itself",
    "",
    "Audit records zaxy appends on its own: known types, kept as generic `event:<type>:<seq>` entities on",
    "purpose (they cite events; they are not memory).",
    "",
    ...engineRecordTypes.map((record) => `- ${code(record.type)}: ${record.description}`),
    "",
  );
  return lines.join("\n");
}

/** docs/events.md: The title and what the page covers. */
function introLines(): string[] {
  return [
    "# Event types",
    "",
    "<!-- Generated by `npm run docs:events` (scripts/events-doc.ts) from src/projection/extract/vocabulary.ts.",
    "     Do not edit by hand: tests/projection/vocabulary_test.ts fails when this file and the code disagree. -->",
    "",
    "Any event type can be appended (`zaxy memory append TYPE`, `zaxy memory ingest`, MCP `memory_append` and",
    "`memory_ingest`), except the governance types only their commands write (\"Input rules\" below). The types",
    "below are the ones the engine reads: it turns them into the entities and edges",
    "that checkout, query and the causal walks read, or derives further events from them. For each type: the",
    "payload fields it reads, what its example becomes, and the command that appends the example.",
    "",
    "Nothing here is written by hand but the descriptions and the examples: the fields are the keys the",
    "extractor and the inference producers look up (and that can change the result) when they run on the",
    `example, and the graph is what they build from it, as event seq ${exampleContext.seq} of session ${code(exampleContext.thread)} by actor`,
    `${code(exampleContext.actor)}. A field can be missing: each has a default or a fallback, and a payload an extractor`,
    "cannot read at all is kept as a generic entity (below).",
    "",
  ];
}

/** docs/events.md: "Input rules": what every append path refuses. */
function inputRulesLines(): string[] {
  return [
    "## Input rules",
    "",
    "Every append path (CLI `memory append` and `memory ingest`, MCP `memory_append` and `memory_ingest`, HTTP through",
    "the same tools) refuses these with exit 2 (MCP `invalid_request`), naming the field; nothing is written.",
    "Logs that already hold such events still verify: these are rules for new input, not for the chain.",
    "",
    "- **Fleet threads.** A session `fleet.<id>` (and `fleet.global`) is a fleet's own log, written only by the",
    "  `zaxy fleet` commands and `fleet_*` tools (`governance_write`).",
    "- **Governance types.** `evolution.gate.evaluated`, `memory.rolled_back`, `memory.forgotten`,",
    "  `memory.rule.generated`, `memory.rule.proposed` and every `fleet.*` type record a decision of",
    "  `memory evolution-gate`, `memory rollback`, `memory forget`, `memory outcome` or the fleet commands; a plain",
    "  append or ingest may not write them (`governance_write`).",
    "- **Reserved payload keys.** A top-level payload key starting with `__zaxy_` (`__zaxy_forgotten`,",
    "  `__zaxy_cipher`, `__zaxy_producer_ref`, `__zaxy_security`) is the engine's own (`invalid_event`, naming",
    "  `payload.<key>`). Nested keys are the producer's data. An event as zaxy prints it shows its producer ref",
    "  as payload `__zaxy_producer_ref`; `zaxy memory ingest` takes that back as the line's `producer_ref`.",
    "- **Duplicate keys.** A key given twice in one JSON object (`{\"n\":1,\"n\":2}`) in `--payload-json`,",
    "  `--payload-file`, a stdin payload or an ingest line (`duplicate_key`, naming the key). MCP arguments",
    "  arrive already parsed by the JSON-RPC layer, which keeps the last value.",
    "- **Invisible characters.** An event type, actor, id or ref holding a control character (Unicode Cc) or",
    "  an invisible formatting character (Cf: bidirectional overrides and isolates U+202A-202E and",
    "  U+2066-2069, zero-width characters and marks U+200B-200F, the byte-order mark U+FEFF) would display as",
    "  another name (`invalid_event`, the character spelled `U+202E`). Session ids are already limited to",
    "  `A-Z a-z 0-9 . _ -`.",
    "",
    "Two more are refused unless the input says it is meant (exit 2, MCP `invalid_request`, nothing written):",
    "",
    "- **Misspelt known types.** A type that differs from a known one only in capitals (`Decision.Made`) or by a",
    "  typo (`goal.craeted`) would be kept as a generic entity the engine never reads ([Unknown types](#unknown-types);",
    "  `unknown_event_type`). `--allow-new-type` (MCP `allow_new_type: true`) appends it as a new type of its own.",
    "- **A switch to legacy lines.** A type the v1 envelope cannot carry would switch a v1 session to legacy lines",
    "  for good ([Envelopes](#envelopes); `envelope_switch`). `--allow-envelope-switch` (MCP",
    "  `allow_envelope_switch: true`) lets it. A session already in legacy lines is not switched, so it needs neither.",
    "",
    "`zaxy memory ingest` and `memory_ingest` refuse the whole batch, naming the line (`line 3`; for a misspelt",
    "type in `memory_ingest`, the item: `event 2`, counted from 0); the flags apply to every line of the batch.",
    "",
  ];
}

/** docs/events.md: "Unknown types": generic entities, misspelt types refused, known guesses. */
function unknownTypesLines(): string[] {
  return [
    "## Unknown types",
    "",
    "A type not listed here is sealed, verified, replayed and cited like any other event, and it is",
    "searchable: it becomes one generic entity named `event:<type>:<seq>` (entity type `event`) whose",
    "summary is `<actor> emitted <type>` followed by the payload's top-level scalar values (secret-looking",
    "keys left out). It gets no entity of its own, no edges and no versions.",
    "",
    "When the type differs from a known one only in capitals or by a typo (found by edit distance), the",
    "append is refused and names the type it most likely meant:",
    "",
    "```text",
    "$ zaxy memory append Decision.Made --actor a --payload-json '{\"decision\":\"x\"}'",
    `zaxy: ${mistypedTypesRefusal([mistypedTypeProblem("Decision.Made", "decision.made")], "--allow-new-type")}`,
    "```",
    "",
    "With `--allow-new-type` (MCP `allow_new_type: true`) it is appended as a new type, with the warning below.",
    "When the type is a natural guess under another name, `zaxy memory append` and `zaxy memory ingest` say",
    "which on stderr, and `--json` (and MCP `memory_append`, `memory_ingest`) lists it in `warnings`; the event",
    "is appended all the same:",
    "",
    "```text",
    "$ zaxy memory append decision.recorded --actor a --payload-json '{\"decision\":\"x\"}'",
    `zaxy: warning: ${unknownTypeWarning("decision.recorded", 1, "decision.made")}`,
    "```",
    "",
    "These guesses are known by name:",
    "",
    "| Guess | Known type |",
    "| --- | --- |",
    ...[...eventTypeAliases].map(([guess, known]) => `| ${code(guess)} | ${code(known)} |`),
    "",
  ];
}

/** docs/events.md: "Envelopes": Python's rule and the refused switch to legacy lines. */
function envelopesLines(legacyTypes: readonly string[]): string[] {
  return [
    "## Envelopes",
    "",
    "Each event is one line in one of two envelopes (README, \"Eventloom\"): `eventloom.v1` or legacy.",
    "The rule is Python's, byte for byte, because Python and this binary append to and verify the same",
    "logs: a batch is written v1 when the log's last line is v1 (an empty log: the envelope `zaxy init`",
    "chose, v1 by default) and every event type in the batch matches `^[a-z][a-z0-9]*(\\.[a-z][a-z0-9]*)+$`:",
    "lowercase words joined by dots, no underscores, dashes or capitals, at least two words. Otherwise the",
    "batch is written legacy, and since a legacy last line keeps every later batch legacy, the log stays",
    "legacy from then on. Both envelopes verify, cite and project the same; mixed files are valid.",
    "",
    `The known types that switch a log to legacy: ${legacyTypes.join(", ")}.`,
    "",
    "Since the switch is for good, the plain write paths (`zaxy memory append`, `zaxy memory ingest`, MCP",
    "`memory_append`, `memory_ingest`, also over HTTP and on a shared store) refuse an append that would make it,",
    "with exit 2 (`envelope_switch`), naming the type and `--allow-envelope-switch` (MCP",
    "`allow_envelope_switch: true`); nothing is written. A session already in legacy lines (a log Python wrote,",
    "or one switched before) and a root `zaxy init --envelope legacy` made are not switched, so they need no",
    "flag. The commands that write a legacy type themselves (`zaxy memory rollback`) switch the log as Python does.",
    "",
    "The append that switches a v1 log says so, once per log (the switch cannot happen twice), on stderr",
    "and in `warnings`:",
    "",
    "```text",
    "$ zaxy memory append user.preference_changed --actor a --allow-envelope-switch --payload-json '{\"user\":\"maya\",\"key\":\"editor\",\"value\":\"vim\"}'",
    `zaxy: warning: ${envelopeSwitchWarning("default", "user.preference_changed", 2)}`,
    "```",
    "",
  ];
}

/** docs/events.md: "Retention fields". */
function retentionLines(retention: readonly string[]): string[] {
  return [
    "## Retention fields",
    "",
    "Types marked \"and the retention fields\" also copy these onto their entity, where retrieval reads them",
    `(authority, status, expiry, importance): ${retention.map(code).join(", ")}.`,
    "",
  ];
}

/** docs/events.md: "Index": one row per documented type. */
function indexLines(docs: ReturnType<typeof eventTypeDocs>): string[] {
  return [
    "## Index",
    "",
    "| Type | Becomes | Envelope |",
    "| --- | --- | --- |",
    ...docs.map((doc) => `| [${code(doc.type)}](#${anchorOf(doc.type)}) | ${becomesCell(doc)} | ${envelopeCell(doc)} |`),
    "",
  ];
}

/** GitHub's heading anchor for a `### \`type\`` heading: lowercase, dots and spaces dropped. */
function anchorOf(type: string): string {
  return type.toLowerCase().replace(/[^a-z0-9_ -]/g, "").replaceAll(" ", "-");
}
