/**
 * The projection's read cache: a session's rows as they stand in Kuzu at one head, written next
 * to the database after every catch-up (`<root>/projections/sessions/<session>.rows.json`).
 *
 * Why: kuzu-wasm hands values to JavaScript through embind at several microseconds each, so
 * reading 20k entities back costs 0.6-2.5 s, and loading Kuzu itself ~0.5 s; a cold
 * `zaxy memory checkout` has a 1 s budget. The cache is trusted only when its head (seq and
 * hash) is an event of the verified log and equals the Kuzu head it was written with;
 * otherwise it is ignored and rebuilt. Like everything under `projections/`, it can be deleted.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { EntityRow, ProjectionHead, RelationRow, SessionGraphRows } from "./types.ts";

export const snapshotSchema = "zaxy.projection.rows.v2";

type EntityTuple = [string, string, string, string | null, string, string, string | null, number, string, number];
type RelationTuple = [string, string, string, string, string, string | null, boolean, number, string | null, number, string, string];

interface SnapshotFile {
  schema: string;
  session_id: string;
  head: ProjectionHead;
  entities: EntityTuple[];
  relations: RelationTuple[];
}

export function projectionsDir(root: string): string {
  return path.join(root, "projections");
}

export function snapshotPath(root: string, sessionId: string): string {
  return path.join(projectionsDir(root), "sessions", `${sessionId}.rows.json`);
}

/** Writes atomically (temp file + rename), so readers see the old or the new cache, never half. */
export function writeSnapshot(root: string, sessionId: string, rows: SessionGraphRows): void {
  if (rows.head === null) return;
  const file = snapshotPath(root, sessionId);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const body: SnapshotFile = {
    schema: snapshotSchema,
    session_id: sessionId,
    head: rows.head,
    entities: rows.entities.map((e) => [
      e.nodeKey, e.name, e.entityType, e.summary, e.propertiesJson, e.validFrom, e.validTo, e.sourceEventSeq, e.sourceEventHash, e.vectorKey,
    ]),
    relations: rows.relations.map((r) => [
      r.relKey, r.sourceKey, r.targetKey, r.relationType, r.validFrom, r.validTo, r.inferred, r.confidence, r.inferenceMethod,
      r.sourceEventSeq, r.sourceEventHash, r.evidenceJson,
    ]),
  };
  const temp = `${file}.tmp-${process.pid}`;
  fs.writeFileSync(temp, JSON.stringify(body));
  fs.renameSync(temp, file);
}

/** The cached rows, or null when there is no usable cache (missing, unreadable, other schema). */
export function readSnapshot(root: string, sessionId: string): SessionGraphRows | null {
  let parsed: SnapshotFile;
  try {
    parsed = JSON.parse(fs.readFileSync(snapshotPath(root, sessionId), "utf8")) as SnapshotFile;
  } catch {
    return null;
  }
  if (parsed?.schema !== snapshotSchema || parsed.session_id !== sessionId || !Array.isArray(parsed.entities) || !Array.isArray(parsed.relations)) {
    return null;
  }
  const entities: EntityRow[] = parsed.entities.map((t) => ({
    nodeKey: t[0], sessionId, name: t[1], entityType: t[2], summary: t[3], propertiesJson: t[4], validFrom: t[5], validTo: t[6],
    sourceEventSeq: t[7], sourceEventHash: t[8], vectorKey: t[9],
  }));
  const relations: RelationRow[] = parsed.relations.map((t) => ({
    relKey: t[0], sessionId, sourceKey: t[1], targetKey: t[2], relationType: t[3], validFrom: t[4], validTo: t[5], inferred: t[6],
    confidence: t[7], inferenceMethod: t[8], sourceEventSeq: t[9], sourceEventHash: t[10], evidenceJson: t[11],
  }));
  return { entities, relations, head: parsed.head };
}

export function removeSnapshot(root: string, sessionId: string): void {
  fs.rmSync(snapshotPath(root, sessionId), { force: true });
}
