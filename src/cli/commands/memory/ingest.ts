/** `zaxy memory ingest [FILE|-]`: append a JSONL batch of external events, all or nothing. */
import { isJsonObject, type JsonObject } from "../../../canonical/mod.ts";
import type { AppendItem } from "../../../eventloom/mod.ts";
import { recordEvents } from "../../../memory/record.ts";
import { inputError } from "../../../errors.ts";
import { ingestBytesMax } from "../../../limits.ts";
import { parseJsonInput, readInputFile } from "../../args.ts";
import { defineCommand, stringOption } from "../../command.ts";
import { emit } from "../../output.ts";

const itemKeys = new Set(["event_type", "actor", "payload", "producer_ref", "parent_event_id", "caused_by", "id"]);

/** Turns one JSONL item into an AppendItem, collecting problems with their line numbers. */
function toItem(object: JsonObject, line: number, problems: string[]): AppendItem {
  for (const key of object.keys()) {
    if (!itemKeys.has(key)) problems.push(`line ${line}: unknown field ${JSON.stringify(key)} (allowed: ${[...itemKeys].join(", ")})`);
  }
  const causedBy = object.get("caused_by");
  return {
    type: object.get("event_type"),
    actor: object.get("actor"),
    payload: object.get("payload"),
    producerRef: object.get("producer_ref"),
    parentEventId: object.get("parent_event_id"),
    causedBy: Array.isArray(causedBy) ? causedBy : causedBy,
    id: object.get("id"),
  };
}

export function parseIngestLines(bytes: Uint8Array, source: string): AppendItem[] {
  if (bytes.length > ingestBytesMax) {
    throw inputError("input_too_large", `${source} is ${bytes.length} bytes; at most ${ingestBytesMax} are accepted per ingest`, { field: source });
  }
  const text = new TextDecoder().decode(bytes);
  const items: AppendItem[] = [];
  const problems: string[] = [];
  text.split("\n").forEach((raw, index) => {
    if (raw.trim() === "") return;
    const line = index + 1;
    let value;
    try {
      value = parseJsonInput(new TextEncoder().encode(raw), `${source} line ${line}`);
    } catch (error) {
      problems.push((error as Error).message);
      return;
    }
    if (!isJsonObject(value)) {
      problems.push(`${source} line ${line} is not a JSON object`);
      return;
    }
    items.push(toItem(value, line, problems));
  });
  if (problems.length > 0) throw inputError("invalid_event", `Cannot ingest: ${problems.join("; ")}. Nothing was written.`, { field: source });
  return items;
}

export const memoryIngestCommand = defineCommand({
  name: "ingest",
  summary: "Append a JSONL batch of external events atomically, deduplicating producer refs",
  description:
    "Reads JSONL items {event_type, actor, payload?, producer_ref?, parent_event_id?,\n" +
    "caused_by?, id?} from FILE (or --file, or stdin with '-' or no argument) and appends them\n" +
    "as one batch: all or nothing. Items whose producer_ref is already in the session are skipped.",
  options: {
    file: { type: "string", valueName: "FILE", description: "JSONL file (same as the FILE argument)" },
  },
  positionals: [{ name: "FILE", description: "JSONL file, or - for stdin" }],
  examples: ["zaxy memory ingest events.jsonl --json", "producer | zaxy memory ingest -"],
  async run(ctx) {
    const fileOption = stringOption(ctx, "file");
    if (fileOption !== undefined && ctx.positionals.length > 0) {
      throw inputError("usage", "zaxy memory ingest: give FILE or --file, not both", { field: "--file" });
    }
    const file = fileOption ?? ctx.positionals[0] ?? "-";
    const bytes = file === "-" ? await ctx.io.readStdin() : readInputFile(file, "FILE");
    const items = parseIngestLines(bytes, file === "-" ? "stdin" : file);
    const result = await recordEvents(ctx.global.eventloomPath, ctx.global.sessionId, items, { dedupProducerRefs: true });
    // Recovering an append a crash interrupted is never silent: stderr, and `warnings` in JSON.
    for (const warning of result.warnings) ctx.io.stderr(`zaxy: warning: ${warning}\n`);
    const doc = {
      imported: result.events.length,
      deduped: result.deduped,
      session_id: ctx.global.sessionId,
      events: result.events.map((e) => ({ seq: e.seq, hash: e.hash, citation: e.citation })),
      ...(result.generated.length > 0 ? { generated_events: result.generated.map((e) => ({ seq: e.seq, hash: e.hash, event_type: e.event_type, citation: e.citation })) } : {}),
      ...(result.warnings.length > 0 ? { warnings: result.warnings } : {}),
    };
    emit(ctx, "zaxy.memory.ingest.v1", doc, () => `imported ${doc.imported}, deduped ${doc.deduped} into session "${doc.session_id}"`);
    return 0;
  },
});
