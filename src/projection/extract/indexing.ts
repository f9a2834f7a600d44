/**
 * Ingested content: document chunks (`<path>:<start>-<end>`) and transcript turns
 * (`<source>:turn-<n>`). The text itself is the entity's summary, which is what search and
 * embeddings read; re-indexing the same chunk with the same text changes nothing.
 */
import type { EventRecord } from "../../eventloom/envelope.ts";
import { entity, type Extracted, extracted, type Extractor } from "./build.ts";
import { firstText, firstTruthy, numberValue, plain, type Properties, positiveInt, text } from "../../events/payload.ts";

/** Context-refresh lineage and ranking salience an indexed chunk may carry. */
function chunkMetadata(record: EventRecord): Properties {
  const p = record.payload;
  const out: Properties = {};
  for (const key of ["transform_version", "transform_id"]) {
    const value = text(p.get(key));
    if (value !== undefined) out[key] = value;
  }
  const salience = numberValue(firstTruthy(p, "retrieval_salience", "memory_salience", "salience"));
  if (salience !== undefined && salience > 0) out.retrieval_salience = Math.min(salience, 10);
  return out;
}

function documentIndexed(record: EventRecord): Extracted {
  const p = record.payload;
  const path = firstText(p, "path", "source_path") ?? "document";
  const start = positiveInt(p.get("start_line"), 1);
  const end = positiveInt(p.get("end_line"), start);
  const content = firstText(p, "content", "text");
  const sha256 = text(p.get("sha256"));
  const properties: Properties = {
    source_path: path,
    source_start_line: start,
    source_end_line: end,
    ...(sha256 === undefined ? {} : { source_sha256: sha256 }),
    ...chunkMetadata(record),
  };
  return extracted([entity(record, `${path}:${start}-${end}`, "document", content ?? null, properties)]);
}

function transcriptTurn(record: EventRecord): Extracted {
  const p = record.payload;
  const source = text(p.get("source")) ?? "transcript";
  const turnIndex = positiveInt(p.get("turn_index"), record.seq);
  const role = text(p.get("role")) ?? (record.actor === "" ? "unknown" : record.actor);
  const content = firstText(p, "content", "text") ?? "";
  const redacted = p.get("redacted_paths");
  const turn = entity(record, `${source}:turn-${turnIndex}`, "transcript_turn", `${role}: ${content}`, {
    transcript_source: source,
    transcript_role: role,
    transcript_turn_index: turnIndex,
    redacted_paths: Array.isArray(redacted) ? plain(redacted) : [],
  });
  return extracted([turn]);
}

export const indexingExtractors: Record<string, Extractor> = {
  "document.indexed": documentIndexed,
  "transcript.turn": transcriptTurn,
};
