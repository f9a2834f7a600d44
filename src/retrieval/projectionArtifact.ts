/**
 * The `*.compaction.json` artifact (Python `CompactionProjection`, written by
 * `write_compaction_projection`): a compacted view of one log made of REAL source events, each
 * with its event ref, identities and citations, plus the audit that judged the log.
 *
 *   {audit{…}, consolidation_policy{…}, projection_id, purpose{…},
 *    records[{authority_scope, citations[], event_ref, event_seq, identities[], kind,
 *             purpose_reasons[], text}],
 *    source_event_count, source_identities[], strategy}
 *
 * Text: Python `json.dumps(obj, indent=2, sort_keys=True) + "\n"`
 * (canonical/pythonIndentedJson.ts), so Python's `load_compaction_projection` reads ours and we
 * read Python's. Loading validates every
 * field it uses and fills Python's defaults (missing `authority_scope` → "authoritative",
 * missing `purpose_reasons` → []); `audit`, `purpose` and `consolidation_policy` are kept
 * losslessly, so load → write reproduces the bytes.
 *
 * Authority (design 002): records are written `authority_scope: "authoritative"` only when the
 * embedded audit passed; from an audit that reported `safe: false` they are "non_authoritative"
 * (routing only, ranked below source results), and are served so whatever the file says
 * (`servedAuthorityScope`).
 */
import * as fs from "node:fs";
import { isJsonObject, JsonNumber, type JsonObject, type JsonValue, parseJson } from "../canonical/mod.ts";
import { inputError, ioError } from "../errors.ts";
import { pythonIndentedJson } from "../canonical/pythonIndentedJson.ts";
import { writeFileAtomic } from "../platform/atomicFile.ts";

/** Artifacts are found by this file-name suffix (DESIGN §2.1, §9). */
export const projectionArtifactSuffix = ".compaction.json";

/** `authority_scope` of a record that may rank among source results by its score. */
export const authoritativeScope = "authoritative";
/**
 * `authority_scope` of a record from an audit that reported `safe: false`. Design 002: a
 * compacted representation that fails the identity checks is not acceptable as an authoritative
 * memory replacement, so such a record only routes to its source: it ranks below every source
 * result in a query or checkout.
 */
export const nonAuthoritativeScope = "non_authoritative";

/** Whether the artifact's embedded audit reported the log unsafe to compact (`safe: false`). */
export function auditReportedUnsafe(audit: JsonObject): boolean {
  return audit.get("safe") === false;
}

/**
 * The authority a record is served with: its own `authority_scope`, except that nothing from an
 * audit that reported `safe: false` is authoritative — artifacts written before records carried
 * that scope say "authoritative" (or nothing, which loads as "authoritative") whatever their audit.
 *
 * @example
 * servedAuthorityScope(projection, projection.records[0]) // "non_authoritative" when projection.audit.safe is false
 */
export function servedAuthorityScope(projection: CompactionProjection, record: ProjectionRecord): string {
  return auditReportedUnsafe(projection.audit) ? nonAuthoritativeScope : record.authority_scope;
}

/** Artifacts larger than this are refused rather than parsed (a projection is a summary). */
export const projectionArtifactBytesMax = 256 * 1024 * 1024;

export interface ProjectionRecord {
  /** `medoid`, `exemplar`, `<profile>_exemplar`, `<profile>_retained`, `coordinate_*`. */
  kind: string;
  event_seq: number;
  /** `eventloom://<thread>/events/<seq>#<12 hex>` of the source event. */
  event_ref: string;
  /** The source event's context text (never synthetic). */
  text: string;
  identities: string[];
  /** Identities that point at a source: a path, a `:turn-N`, or an `eventloom://` ref. */
  citations: string[];
  /** `authoritative`, or `non_authoritative` for a record from an unsafe audit (routing only). */
  authority_scope: string;
  purpose_reasons: string[];
}

export interface CompactionProjection {
  /** 64 hex: sha256 of canonical {strategy, purpose, consolidation_policy, source_hashes, records}. */
  projection_id: string;
  strategy: string;
  source_event_count: number;
  source_identities: string[];
  records: ProjectionRecord[];
  audit: JsonObject;
  purpose: JsonObject;
  consolidation_policy: JsonObject;
}

function recordJson(record: ProjectionRecord): JsonObject {
  return new Map<string, JsonValue>([
    ["kind", record.kind],
    ["event_seq", JsonNumber.int(record.event_seq)],
    ["event_ref", record.event_ref],
    ["text", record.text],
    ["identities", [...record.identities]],
    ["citations", [...record.citations]],
    ["authority_scope", record.authority_scope],
    ["purpose_reasons", [...record.purpose_reasons]],
  ]);
}

/** The artifact as a JSON value (Python `asdict(projection)`). */
export function projectionJson(projection: CompactionProjection): JsonObject {
  return new Map<string, JsonValue>([
    ["projection_id", projection.projection_id],
    ["strategy", projection.strategy],
    ["source_event_count", JsonNumber.int(projection.source_event_count)],
    ["source_identities", [...projection.source_identities]],
    ["records", projection.records.map(recordJson)],
    ["audit", projection.audit],
    ["purpose", projection.purpose],
    ["consolidation_policy", projection.consolidation_policy],
  ]);
}

/** The artifact's exact file text. */
export function projectionArtifactText(projection: CompactionProjection): string {
  return pythonIndentedJson(projectionJson(projection));
}

export interface ArtifactWriteOptions {
  /** Create missing parent directories (default true for library callers; the CLI path refuses a missing directory first). */
  createDirectories?: boolean;
}

/**
 * Writes the artifact atomically (`platform/atomicFile.ts`: a sibling temp file, fsynced, renamed
 * into place, the directory fsynced). A crash leaves either the old file or the whole new one,
 * never half an artifact, and retrieval scanning the root never reads a partial one (temp names
 * end in `.tmp`).
 *
 * @example
 * writeProjectionArtifact(projection, ".eventloom/projections/default.compaction.json");
 */
export function writeProjectionArtifact(projection: CompactionProjection, file: string, options: ArtifactWriteOptions = {}): string {
  const text = projectionArtifactText(projection);
  try {
    writeFileAtomic(file, text, { createDirectories: options.createDirectories !== false });
  } catch (error) {
    throw ioError("projection_write_failed", `Cannot write compaction projection ${file}: ${error instanceof Error ? error.message : String(error)}`, {
      field: "projection_output",
    });
  }
  return file;
}

class ArtifactShapeError extends Error {}

function fail(where: string, expected: string): never {
  throw new ArtifactShapeError(`${where} must be ${expected}`);
}

function objectAt(value: JsonValue | undefined, where: string): JsonObject {
  if (!isJsonObject(value)) fail(where, "an object");
  return value;
}

function stringAt(value: JsonValue | undefined, where: string): string {
  if (typeof value !== "string") fail(where, "a string");
  return value;
}

function intAt(value: JsonValue | undefined, where: string, min: number): number {
  if (!(value instanceof JsonNumber) || value.isFloat || !Number.isSafeInteger(value.toNumber()) || value.toNumber() < min) {
    fail(where, `an integer >= ${min}`);
  }
  return value.toNumber();
}

function stringsAt(value: JsonValue | undefined, where: string): string[] {
  if (!Array.isArray(value)) fail(where, "an array of strings");
  return value.map((item, i) => stringAt(item, `${where}[${i}]`));
}

function recordFrom(value: JsonValue, where: string): ProjectionRecord {
  const record = objectAt(value, where);
  const scope = record.get("authority_scope");
  const reasons = record.get("purpose_reasons");
  return {
    kind: stringAt(record.get("kind"), `${where}.kind`),
    event_seq: intAt(record.get("event_seq"), `${where}.event_seq`, 1),
    event_ref: stringAt(record.get("event_ref"), `${where}.event_ref`),
    text: stringAt(record.get("text"), `${where}.text`),
    identities: stringsAt(record.get("identities"), `${where}.identities`),
    citations: stringsAt(record.get("citations"), `${where}.citations`),
    // Python: `record.get("authority_scope") or "authoritative"`, `record.get("purpose_reasons", ())`.
    authority_scope: scope === undefined || scope === null || scope === "" ? "authoritative" : stringAt(scope, `${where}.authority_scope`),
    purpose_reasons: reasons === undefined || reasons === null ? [] : stringsAt(reasons, `${where}.purpose_reasons`),
  };
}

function optionalObject(value: JsonValue | undefined, where: string): JsonObject {
  return value === undefined || value === null ? new Map() : objectAt(value, where);
}

/** Validates a parsed artifact; throws `ArtifactShapeError` naming the first bad field. */
function projectionFrom(value: JsonValue): CompactionProjection {
  const top = objectAt(value, "artifact");
  const records = top.get("records");
  if (!Array.isArray(records)) fail("records", "an array");
  return {
    projection_id: stringAt(top.get("projection_id"), "projection_id"),
    strategy: stringAt(top.get("strategy"), "strategy"),
    source_event_count: intAt(top.get("source_event_count"), "source_event_count", 0),
    source_identities: stringsAt(top.get("source_identities"), "source_identities"),
    records: records.map((record, i) => recordFrom(record, `records[${i}]`)),
    audit: objectAt(top.get("audit"), "audit"),
    purpose: optionalObject(top.get("purpose"), "purpose"),
    consolidation_policy: optionalObject(top.get("consolidation_policy"), "consolidation_policy"),
  };
}

/** Parses and validates artifact text; bad input names the file and the field. */
export function parseProjectionArtifact(text: string, file = "artifact"): CompactionProjection {
  let parsed: JsonValue;
  try {
    parsed = parseJson(text);
  } catch (error) {
    throw inputError("invalid_projection_artifact", `Cannot load compaction projection ${file}: not valid JSON (${error instanceof Error ? error.message : String(error)})`, {
      field: file,
    });
  }
  try {
    return projectionFrom(parsed);
  } catch (error) {
    if (!(error instanceof ArtifactShapeError)) throw error;
    throw inputError("invalid_projection_artifact", `Cannot load compaction projection ${file}: ${error.message}`, { field: file });
  }
}

/**
 * @example
 * loadProjectionArtifact(".eventloom/projections/default.compaction.json").records[0].event_ref
 */
export function loadProjectionArtifact(file: string): CompactionProjection {
  let text: string;
  try {
    const size = fs.statSync(file).size;
    if (size > projectionArtifactBytesMax) {
      throw inputError("invalid_projection_artifact", `Cannot load compaction projection ${file}: ${size} bytes is more than ${projectionArtifactBytesMax}`, { field: file });
    }
    text = fs.readFileSync(file, "utf8");
  } catch (error) {
    if (error instanceof Error && error.name === "ZaxyError") throw error;
    throw ioError("unreadable_projection_artifact", `Cannot read compaction projection ${file}: ${error instanceof Error ? error.message : String(error)}`, { field: file });
  }
  return parseProjectionArtifact(text, file);
}
