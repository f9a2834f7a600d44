/** `zaxy memory ingest [FILE|-]`: append a JSONL batch of external events, all or nothing. */
import { isJsonObject, type JsonObject } from "../../../canonical/mod.ts";
import type { AppendItem } from "../../../eventloom/mod.ts";
import { inputError } from "../../../errors.ts";
import { isBlankLine } from "../../../eventloom/blank.ts";
import { ingestBytesMax, lineBytesMax } from "../../../limits.ts";
import { parseJsonInput, readInputFile } from "../../args.ts";
import { defineCommand, stringOption } from "../../command.ts";
import { emit } from "../../output.ts";
import { cliInputPermissions, inputPermissionOptions } from "./inputPermissions.ts";

const itemKeys = new Set(["event_type", "type", "actor", "payload", "producer_ref", "parent_event_id", "caused_by", "id"]);

/**
 * Fields of an event as zaxy prints it (`memory log --json`, `replay --json`: src/eventloom/
 * eventView.ts) that an append cannot honour: the log assigns its own seq, time, hashes, id and
 * envelope. A line carrying them is accepted (so `memory log --json | jq -c '.events[]'` can be
 * ingested) and the command says once that they were not kept.
 */
export const readOutputKeys = new Set(["seq", "timestamp", "thread", "security", "prev_hash", "hash", "event_id", "envelope", "citation"]);

const printedProducerRefKey = "__zaxy_producer_ref";

const allowedText = "event_type (or type), actor, payload, producer_ref, parent_event_id, caused_by, id";

/** The item checks of appending with zaxy's event rules, imported when the command runs (start-up loads only the command tree). */
interface ItemChecks {
  checkItems: typeof import("../../../events/append.ts").checkItems;
  describeItemIssue: typeof import("../../../eventloom/append.ts").describeItemIssue;
}

/** Turns one JSONL item into an AppendItem, collecting problems (one per line) and the read-output fields it carried. */
function toItem(object: JsonObject, line: number, problems: string[], dropped: Set<string>): AppendItem {
  const unknown = [...object.keys()].filter((key) => !itemKeys.has(key) && !readOutputKeys.has(key));
  if (unknown.length > 0) problems.push(`line ${line}: unknown field${unknown.length > 1 ? "s" : ""} ${unknown.map((key) => JSON.stringify(key)).join(", ")}`);
  for (const key of object.keys()) if (readOutputKeys.has(key)) dropped.add(key);
  const eventType = object.get("event_type");
  const type = object.get("type");
  if (eventType !== undefined && type !== undefined && !(typeof eventType === "string" && eventType === type)) {
    problems.push(`line ${line}: "event_type" and "type" name different types; give one`);
  }
  // An event as zaxy prints it shows its producer ref inside the payload (`__zaxy_producer_ref`,
  // a key the engine reserves): it is taken back as the item's producer_ref, so the printed
  // events of an ingest can be ingested again.
  let payload = object.get("payload");
  let producerRef = object.get("producer_ref");
  const printedRef = isJsonObject(payload) ? payload.get(printedProducerRefKey) : undefined;
  if (isJsonObject(payload) && typeof printedRef === "string") {
    if (producerRef !== undefined && producerRef !== printedRef) {
      problems.push(`line ${line}: "producer_ref" and payload "${printedProducerRefKey}" differ; give one`);
    }
    payload = new Map([...payload].filter(([key]) => key !== printedProducerRefKey));
    producerRef ??= printedRef;
  }
  return {
    type: eventType ?? type,
    actor: object.get("actor"),
    payload,
    producerRef,
    parentEventId: object.get("parent_event_id"),
    causedBy: object.get("caused_by"),
    id: object.get("id"),
    origin: `line ${line}`,
  };
}

/**
 * Parses JSONL ingest input: one item per non-blank line, numbered by physical line (1-based).
 * Each line is decoded as strict UTF-8 (invalid bytes are refused, never replaced by U+FFFD).
 * Every bad line is reported, in line order: lines that do not parse and the validation
 * problems of the lines that do, so one run shows everything to fix.
 */
export function parseIngestLines(bytes: Uint8Array, source: string, dropped: Set<string>, checks: ItemChecks): AppendItem[] {
  if (bytes.length > ingestBytesMax) {
    throw inputError("input_too_large", `${source} is ${bytes.length} bytes; at most ${ingestBytesMax} are accepted per ingest`, { field: source });
  }
  const items: AppendItem[] = [];
  /** The line of each item. */
  const itemLines: number[] = [];
  const problems: Array<{ line: number; text: string }> = [];
  let line = 0;
  for (let start = 0; start < bytes.length; ) {
    const newline = bytes.indexOf(0x0a, start);
    const end = newline < 0 ? bytes.length : newline;
    line++;
    const raw = bytes.subarray(start, end);
    start = end + 1;
    if (isBlankLine(raw, 0, raw.length)) continue;
    let value;
    try {
      value = parseJsonInput(raw, `${source} line ${line}`);
    } catch (error) {
      problems.push({ line, text: (error as Error).message });
      continue;
    }
    if (!isJsonObject(value)) {
      problems.push({ line, text: `${source} line ${line} is not a JSON object` });
      continue;
    }
    const itemProblems: string[] = [];
    items.push(toItem(value, line, itemProblems, dropped));
    itemLines.push(line);
    for (const text of itemProblems) problems.push({ line, text });
  }
  // The append validates again under its own name; checking here too lets one message list
  // the lines that do not parse and the problems of those that do, in line order.
  for (const issue of checks.checkItems(items).issues) problems.push({ line: itemLines[issue.index], text: checks.describeItemIssue(items, issue) });
  if (problems.length > 0) {
    problems.sort((a, b) => a.line - b.line);
    const allowed = problems.some((p) => / unknown fields? /.test(p.text)) ? ` (allowed fields: ${allowedText}; zaxy's own output fields ${[...readOutputKeys].join(", ")} are accepted and not kept)` : "";
    throw inputError("invalid_event", `Cannot ingest: ${problems.map((p) => p.text).join("; ")}${allowed}. Nothing was written.`, { field: source, line: problems[0].line });
  }
  return items;
}

/** Reading stops past these bounds: no valid ingest is longer, and no item line is. */
const ingestBounds = {
  maxBytes: ingestBytesMax,
  why: "one ingest reads at most that much JSONL",
  lineBytesMax,
};

export const memoryIngestCommand = defineCommand({
  name: "ingest",
  writesRoot: true,
  summary: "Append a JSONL batch of external events atomically, deduplicating producer refs",
  description:
    "Reads JSONL items {event_type (or type), actor, payload?, producer_ref?, parent_event_id?,\n" +
    "caused_by?, id?} from FILE (or --file, or stdin with '-' or no argument) and appends them\n" +
    "as one batch: all or nothing. Items whose producer_ref is already in the session are skipped.\n" +
    "Events as zaxy prints them (memory log --json | jq -c '.events[]') are accepted: their seq,\n" +
    "timestamp, hashes, event_id, envelope and citation are not kept (a warning says so).\n" +
    "Every bad line is reported once, numbered from 1; nothing is written. A type that differs\n" +
    "from a known one only in capitals or by a typo refuses the batch unless --allow-new-type is\n" +
    "given; so does a type that would switch a v1 session to legacy lines for good, unless\n" +
    "--allow-envelope-switch is given ('zaxy help events', \"Envelopes\").",
  options: {
    file: { type: "string", valueName: "FILE", description: "JSONL file (same as the FILE argument)" },
    ...inputPermissionOptions,
  },
  positionals: [{ name: "FILE", description: "JSONL file, or - for stdin" }],
  examples: ["zaxy memory ingest events.jsonl --json", "producer | zaxy memory ingest -", "zaxy memory log --json | jq -c '.events[]' | zaxy memory ingest - --session-id copy"],
  async run(ctx) {
    const fileOption = stringOption(ctx, "file");
    if (fileOption !== undefined && ctx.positionals.length > 0) {
      throw inputError("usage", "zaxy memory ingest: give FILE or --file, not both", { field: "--file" });
    }
    const file = fileOption ?? ctx.positionals[0] ?? "-";
    const bytes = file === "-" ? await ctx.io.readStdin(ingestBounds) : readInputFile(file, "FILE", ingestBounds);
    const dropped = new Set<string>();
    const [{ checkItems }, { describeItemIssue, ingestedEventJson }] = await Promise.all([import("../../../events/append.ts"), import("../../../eventloom/append.ts")]);
    const items = parseIngestLines(bytes, file === "-" ? "stdin" : file, dropped, { checkItems, describeItemIssue });
    const { recordInputEvents } = await import("../../../memory/plainInput.ts");
    const result = await recordInputEvents(ctx.global.eventloomPath, ctx.global.sessionId, items, { dedupProducerRefs: true }, cliInputPermissions(ctx));
    if (dropped.size > 0) {
      const fields = [...readOutputKeys].filter((key) => dropped.has(key));
      result.warnings.unshift(`the input carries fields of zaxy's read output (${fields.join(", ")}): they were not kept; the log assigns its own seq, time, hashes and event ids`);
    }
    // Recovering an append a crash interrupted is never silent: stderr, and `warnings` in JSON.
    for (const warning of result.warnings) ctx.io.stderr(`zaxy: warning: ${warning}\n`);
    const doc = {
      imported: result.events.length,
      deduped: result.deduped,
      session_id: ctx.global.sessionId,
      events: result.events.map((event, index) => ingestedEventJson(event, result.records[index])),
      ...(result.generated.length > 0 ? { generated_events: result.generated.map((e) => ({ seq: e.seq, hash: e.hash, event_type: e.event_type, citation: e.citation })) } : {}),
      ...(result.warnings.length > 0 ? { warnings: result.warnings } : {}),
    };
    emit(ctx, "zaxy.memory.ingest.v1", doc, () => `imported ${doc.imported}, deduped ${doc.deduped} into session "${doc.session_id}"`);
    return 0;
  },
});
