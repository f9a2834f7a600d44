/**
 * The projection's read cache: a session's rows as they stand in Kuzu at one head, written next
 * to the database after every catch-up (`<root>/projections/sessions/<session>.rows.json`).
 *
 * Why: kuzu-wasm hands values to JavaScript through embind at several microseconds each, so
 * reading 20k entities back costs 0.6-2.5 s, and loading Kuzu itself ~0.5 s; a cold
 * `zaxy memory checkout` has a 1 s budget. Like everything under `projections/`, it can be
 * deleted.
 *
 * Format (`zaxy.projection.rows.v5`): one header line of JSON, `\n`, then the body (JSON):
 *   {"schema","session_id","head":{...counts},"body_bytes","body_sha256","mac"}
 *   {"entities":[tuple...],"relations":[tuple...]}
 * `mac` is HMAC-SHA-256 hex under the root's key (`eventloom/derivedKey.ts`) of JSON [the header
 * without `mac`]: the body's SHA-256 catches damage, the MAC a forgery by someone who can write
 * `projections/` but not read `keys/` (a recomputed `body_sha256` does not help them). The cache
 * is used only when the header parses and its MAC matches, the body has exactly `body_bytes` bytes whose
 * SHA-256 is `body_sha256`, and its rows add up to the head's counts (entity and relation
 * versions, current ones); the projector also requires its head to be an event of the verified
 * log. A file that fails any check is reported (`invalid` with the reason), never served: a cut
 * or edited cache would otherwise answer with rows the log does not support, and seed the next
 * catch-up and vector index with them.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { createHash } from "node:crypto";
import { derivedFileKey, derivedMac, derivedMacMatches } from "../eventloom/derivedKey.ts";
import { refuseLinkUnderRoot } from "../eventloom/session.ts";
import { requestGarbageCollection, sha256Hex } from "../platform/mod.ts";
import type { EntityRow, ProjectionHead, RelationRow, SessionGraphRows } from "./types.ts";

/**
 * Bumped with `projectionSchemaVersion` whenever the fold's rows change meaning (v4: stale markers
 * close versions; v5: reviews no longer restate their consolidation candidate).
 */
export const snapshotSchema = "zaxy.projection.rows.v5";

type EntityTuple = [string, string, string, string | null, string, string, string | null, number, string, number];
type RelationTuple = [string, string, string, string, string, string | null, boolean, number, string | null, number, string, string];

interface SnapshotHeader {
  schema: string;
  session_id: string;
  head: ProjectionHead;
  body_bytes: number;
  body_sha256: string;
  /** Absent when the root had no key at write: such a cache is never used. */
  mac?: string;
}

interface SnapshotBody {
  entities: EntityTuple[];
  relations: RelationTuple[];
}

/** A row cache read: usable rows, no file, or a file that failed a check (with the reason). */
export type SnapshotRead =
  | { status: "ok"; rows: SessionGraphRows }
  | { status: "missing" }
  | { status: "invalid"; reason: string };

export function projectionsDir(root: string): string {
  return path.join(root, "projections");
}

export function snapshotPath(root: string, sessionId: string): string {
  return path.join(projectionsDir(root), "sessions", `${sessionId}.rows.json`);
}

/** The body is encoded in blocks of about this many characters, so no copy of it is one string. */
const bodyBlockCharsMin = 1 << 20;
const blocksPerCollection = 8;

function entityTuple(e: EntityRow): EntityTuple {
  return [e.nodeKey, e.name, e.entityType, e.summary, e.propertiesJson, e.validFrom, e.validTo, e.sourceEventSeq, e.sourceEventHash, e.vectorKey];
}

function relationTuple(r: RelationRow): RelationTuple {
  return [
    r.relKey, r.sourceKey, r.targetKey, r.relationType, r.validFrom, r.validTo, r.inferred, r.confidence, r.inferenceMethod,
    r.sourceEventSeq, r.sourceEventHash, r.evidenceJson,
  ];
}

/**
 * Writes the body to `fd` block by block and returns its size and SHA-256: exactly
 * `JSON.stringify({entities, relations})` of the tuples (JSON.stringify of an object of arrays
 * is its members' JSON joined by commas, no spaces), made tuple by tuple. Whole, the body of
 * 100k events was a 76 MB string, its UTF-8 copy, the tuples and a concatenated copy: ~400 MB
 * at once, on top of everything a reproject holds.
 */
function writeBody(fd: number, rows: SessionGraphRows): { bytes: number; sha256: string } {
  const hash = createHash("sha256");
  let bytes = 0;
  let blocks = 0;
  let text = '{"entities":[';
  const flush = (force: boolean) => {
    if (!force && text.length < bodyBlockCharsMin) return;
    const block = Buffer.from(text, "utf8");
    hash.update(block);
    writeAll(fd, block);
    bytes += block.length;
    text = "";
    // Each block leaves ~1 MB of tuple strings behind, which Bun let pile up (~160 MB for 76).
    if (++blocks % blocksPerCollection === 0) requestGarbageCollection();
  };
  rows.entities.forEach((entity, i) => {
    text += (i === 0 ? "" : ",") + JSON.stringify(entityTuple(entity));
    flush(false);
  });
  text += '],"relations":[';
  rows.relations.forEach((relation, i) => {
    text += (i === 0 ? "" : ",") + JSON.stringify(relationTuple(relation));
    flush(false);
  });
  text += "]}";
  flush(true);
  return { bytes, sha256: hash.digest("hex") };
}

/**
 * Writes atomically (temp file + rename), so readers see the old or the new cache, never half.
 * The header names the body's size and hash, so the body goes to a second temp file first
 * (`.body.tmp-<pid>`, removed like any orphan temp file if the writer dies) and is copied after it.
 */
export function writeSnapshot(root: string, sessionId: string, rows: SessionGraphRows): void {
  if (rows.head === null) return;
  const file = snapshotPath(root, sessionId);
  refuseLinkUnderRoot(root, file, `write the row cache ${file}`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const bodyTemp = `${file}.body.tmp-${process.pid}`;
  const temp = `${file}.tmp-${process.pid}`;
  try {
    // Exclusive: a leftover temp file or a link planted at its name is removed, never written through.
    fs.rmSync(bodyTemp, { force: true });
    fs.rmSync(temp, { force: true });
    const bodyFd = fs.openSync(bodyTemp, "wx+");
    try {
      const body = writeBody(bodyFd, rows);
      const header: SnapshotHeader = { schema: snapshotSchema, session_id: sessionId, head: rows.head, body_bytes: body.bytes, body_sha256: body.sha256 };
      const key = derivedFileKey(root);
      if (key !== null) header.mac = derivedMac(key, [{ ...header }]);
      const fd = fs.openSync(temp, "wx");
      try {
        writeAll(fd, Buffer.from(`${JSON.stringify(header)}\n`, "utf8"));
        copyBytes(bodyFd, fd, body.bytes);
      } finally {
        fs.closeSync(fd);
      }
    } finally {
      fs.closeSync(bodyFd);
    }
    fs.renameSync(temp, file);
  } catch (error) {
    // A full disk must not leave a half-written cache behind to fill it further.
    fs.rmSync(temp, { force: true });
    throw error;
  } finally {
    fs.rmSync(bodyTemp, { force: true });
  }
}

function writeAll(fd: number, bytes: Buffer): void {
  for (let done = 0; done < bytes.length;) done += fs.writeSync(fd, bytes, done, bytes.length - done);
}

/** Copies the first `bytes` bytes of `fromFd` to the end of `toFd`. */
function copyBytes(fromFd: number, toFd: number, bytes: number): void {
  const buffer = Buffer.allocUnsafe(Math.min(bytes, bodyBlockCharsMin));
  for (let offset = 0; offset < bytes;) {
    const read = fs.readSync(fromFd, buffer, 0, Math.min(buffer.length, bytes - offset), offset);
    if (read === 0) throw new Error(`row cache body temp file ended at ${offset} of ${bytes} bytes`);
    writeAll(toFd, buffer.subarray(0, read));
    offset += read;
  }
}

/** Why `rows` do not add up to their head's counts, or null when they do. */
function countProblem(head: ProjectionHead, entities: readonly EntityRow[], relations: readonly RelationRow[]): string | null {
  const currentEntities = entities.filter((e) => e.validTo === null).length;
  const currentRelations = relations.filter((r) => r.validTo === null).length;
  const checks: Array<[string, number, number]> = [
    ["entity versions", entities.length, head.entityCount],
    ["current entities", currentEntities, head.currentEntityCount],
    ["relation versions", relations.length, head.relationCount],
    ["current relations", currentRelations, head.currentRelationCount],
  ];
  const differing = checks.filter(([, held, recorded]) => held !== recorded);
  if (differing.length === 0) return null;
  return `it holds ${differing.map(([name, held, recorded]) => `${held} of ${recorded} ${name}`).join(", ")} its head (seq ${head.seq}) records`;
}

function isHead(value: unknown, sessionId: string): value is ProjectionHead {
  const head = value as ProjectionHead;
  return typeof head === "object" && head !== null && head.sessionId === sessionId && typeof head.hash === "string" &&
    [head.seq, head.eventCount, head.entityCount, head.currentEntityCount, head.relationCount, head.currentRelationCount]
      .every((n) => Number.isSafeInteger(n) && n >= 0);
}

/**
 * The cached rows after every check of the module header, or why there are none.
 *
 * @example
 * const read = readSnapshotChecked(".eventloom", "default");
 * if (read.status === "invalid") console.warn(`row cache ignored: ${read.reason}`);
 */
export function readSnapshotChecked(root: string, sessionId: string): SnapshotRead {
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(snapshotPath(root, sessionId));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { status: "missing" };
    return { status: "invalid", reason: `it cannot be read (${error instanceof Error ? error.message : String(error)})` };
  }
  const newline = bytes.indexOf(0x0a);
  let header: SnapshotHeader;
  try {
    header = JSON.parse(bytes.subarray(0, newline < 0 ? bytes.length : newline).toString("utf8")) as SnapshotHeader;
  } catch {
    return { status: "invalid", reason: "its header line is not JSON" };
  }
  if (header?.schema !== snapshotSchema) {
    return { status: "invalid", reason: `its schema is ${JSON.stringify(header?.schema ?? null)}, not ${snapshotSchema}` };
  }
  if (header.session_id !== sessionId || !isHead(header.head, sessionId)) {
    return { status: "invalid", reason: "its header does not name this session and a head with row counts" };
  }
  const key = derivedFileKey(root);
  if (key === null) return { status: "invalid", reason: "the root has no key to authenticate it with (read-only root?)" };
  const { mac, ...unsigned } = header;
  if (!derivedMacMatches(key, [unsigned], mac)) {
    return { status: "invalid", reason: "it is not authenticated by this root's key (forged, written under another key, or by an older version of zaxy)" };
  }
  const body = bytes.subarray(newline + 1);
  if (newline < 0 || body.length !== header.body_bytes) {
    return { status: "invalid", reason: `its body has ${newline < 0 ? 0 : body.length} bytes, its header records ${header.body_bytes}` };
  }
  if (sha256Hex(body) !== header.body_sha256) {
    return { status: "invalid", reason: "its body does not match the SHA-256 its header records" };
  }
  let parsed: SnapshotBody;
  try {
    parsed = JSON.parse(body.toString("utf8")) as SnapshotBody;
  } catch {
    return { status: "invalid", reason: "its body is not JSON" };
  }
  if (!Array.isArray(parsed?.entities) || !Array.isArray(parsed.relations)) {
    return { status: "invalid", reason: "its body lacks the entity and relation lists" };
  }
  const entities: EntityRow[] = parsed.entities.map((t) => ({
    nodeKey: t[0], sessionId, name: t[1], entityType: t[2], summary: t[3], propertiesJson: t[4], validFrom: t[5], validTo: t[6],
    sourceEventSeq: t[7], sourceEventHash: t[8], vectorKey: t[9],
  }));
  const relations: RelationRow[] = parsed.relations.map((t) => ({
    relKey: t[0], sessionId, sourceKey: t[1], targetKey: t[2], relationType: t[3], validFrom: t[4], validTo: t[5], inferred: t[6],
    confidence: t[7], inferenceMethod: t[8], sourceEventSeq: t[9], sourceEventHash: t[10], evidenceJson: t[11],
  }));
  const problem = countProblem(header.head, entities, relations);
  if (problem !== null) return { status: "invalid", reason: problem };
  return { status: "ok", rows: { entities, relations, head: header.head } };
}

/** The cached rows, or null when there is no usable cache (missing or failing a check). */
export function readSnapshot(root: string, sessionId: string): SessionGraphRows | null {
  const read = readSnapshotChecked(root, sessionId);
  return read.status === "ok" ? read.rows : null;
}

export function removeSnapshot(root: string, sessionId: string): void {
  fs.rmSync(snapshotPath(root, sessionId), { force: true });
}
