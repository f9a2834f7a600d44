/**
 * The read model's manifest (docs/read-model.md): which files make up a session's read model at
 * which head, their sizes and SHA-256, the verified log prefix they were built from, and the
 * whole-session folds. Written last and atomically, so a reader sees a complete generation or
 * the previous one; files of a generation are named after its head and never rewritten.
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { sessionFoldRegistry, type StoredFoldState } from "../folds/sessionFolds.ts";
import { derivedFileKey, derivedMac, derivedMacMatches, projectionsDir } from "../eventloom/root.ts";
import type { ProjectionHead } from "../projection/types.ts";

/**
 * Bumped when what the model stores changes meaning, so a model written before is rebuilt from
 * the log (v2: the projection's rows v5, and consolidation candidates carry their invalidation).
 */
export const readModelSchema = "zaxy.readmodel.v2";

export interface ReadModelFile {
  /** File name inside the session's read-model directory. */
  name: string;
  bytes: number;
  sha256: string;
  /** `fileStamp` when the SHA-256 was last checked (at write); a different stamp means hash again. */
  stamp: string;
}

export interface ReadModelManifest {
  schema: typeof readModelSchema;
  session_id: string;
  head: ProjectionHead;
  /** The log's bytes through the head event's line: the prefix everything here was built from. */
  log_bytes: number;
  files: {
    entities: ReadModelFile;
    names: ReadModelFile;
    adjacency: ReadModelFile;
    events: ReadModelFile;
    keyword: ReadModelFile;
    verbatim: ReadModelFile;
    /** Relation rows, their endpoint positions and each position's current relations (relationTable.ts). */
    relations: ReadModelFile;
    /** Node key → entity position (sortedTable.ts). */
    node_keys: ReadModelFile;
  };
  relation_types: string[];
  /** Each whole-session fold's state at the head, under its name (folds/sessionFolds.ts). */
  folds: StoredFoldState;
}

export function readModelDir(root: string, sessionId: string): string {
  return path.join(projectionsDir(root), "readmodel", sessionId);
}

export function manifestPath(root: string, sessionId: string): string {
  return path.join(readModelDir(root, sessionId), "manifest.json");
}

/**
 * The manifest file's bytes: a first line `{"schema","body_bytes","body_sha256","mac"}`, then the
 * manifest itself, so a changed byte anywhere in it (a fold's value, a recorded checksum) is
 * refused rather than trusted. `mac` is HMAC-SHA-256 under the root's key
 * (`eventloom/root.ts`) of JSON [schema, session, body_bytes, body_sha256]: someone who can
 * write `projections/` but not read `keys/` cannot make a manifest (and so pin a forged file by
 * its SHA-256) that a read accepts. Without a key the line has no `mac`, and no read uses it.
 */
export function manifestBytes(root: string, manifest: ReadModelManifest): Buffer {
  const body = Buffer.from(JSON.stringify(manifest), "utf8");
  const header: { schema: string; body_bytes: number; body_sha256: string; mac?: string } = {
    schema: readModelSchema, body_bytes: body.length, body_sha256: createHash("sha256").update(body).digest("hex"),
  };
  const key = derivedFileKey(root);
  if (key !== null) header.mac = derivedMac(key, manifestMacParts(manifest.session_id, header.body_bytes, header.body_sha256));
  return Buffer.concat([Buffer.from(`${JSON.stringify(header)}\n`, "utf8"), body]);
}

function manifestMacParts(sessionId: unknown, bodyBytes: unknown, bodySha256: unknown): unknown[] {
  return [readModelSchema, sessionId, bodyBytes, bodySha256];
}

/** The manifest, `missing`, or why it cannot be used. */
export function readManifest(root: string, sessionId: string): ReadModelManifest | "missing" | { problem: string } {
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(manifestPath(root, sessionId));
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT" ? "missing" : { problem: `its manifest cannot be read (${(error as NodeJS.ErrnoException).code})` };
  }
  const newline = bytes.indexOf(0x0a);
  let manifest: ReadModelManifest;
  try {
    const header = JSON.parse(bytes.subarray(0, newline < 0 ? bytes.length : newline).toString("utf8")) as { schema?: unknown; body_bytes?: unknown; body_sha256?: unknown; mac?: unknown };
    if (header?.schema !== readModelSchema) return { problem: `its manifest has schema ${JSON.stringify(header?.schema ?? null)}, not ${readModelSchema}` };
    const body = bytes.subarray(newline + 1);
    if (body.length !== header.body_bytes || createHash("sha256").update(body).digest("hex") !== header.body_sha256) {
      return { problem: "its manifest does not match the size and SHA-256 its first line records" };
    }
    manifest = JSON.parse(body.toString("utf8")) as ReadModelManifest;
    const key = derivedFileKey(root);
    if (key === null) return { problem: "the root has no key to authenticate its manifest with (read-only root?)" };
    if (!derivedMacMatches(key, manifestMacParts(manifest?.session_id, header.body_bytes, header.body_sha256), header.mac)) {
      return { problem: "its manifest is not authenticated by this root's key (forged, written under another key, or by an older version of zaxy)" };
    }
  } catch {
    return { problem: "its manifest is not JSON" };
  }
  if (manifest?.schema !== readModelSchema) return { problem: `its manifest has schema ${JSON.stringify(manifest?.schema ?? null)}, not ${readModelSchema}` };
  if (manifest.session_id !== sessionId) return { problem: `its manifest names session ${JSON.stringify(manifest.session_id)}` };
  const files = manifest.files;
  const fileNames = ["entities", "names", "adjacency", "events", "keyword", "verbatim", "relations", "node_keys"] as const;
  for (const key of fileNames) {
    const file = files?.[key];
    // The relation and node-key files came after the first version of the manifest: a model without them cannot seed a tail catch-up.
    if (file === undefined && files !== undefined && files !== null && (key === "relations" || key === "node_keys")) {
      return { problem: `its manifest was written by an earlier version of zaxy and lists no ${key} file` };
    }
    if (typeof file?.name !== "string" || path.basename(file.name) !== file.name || !Number.isSafeInteger(file.bytes) || typeof file.sha256 !== "string" || typeof file.stamp !== "string") {
      return { problem: `its manifest has no valid entry for the ${key} file` };
    }
  }
  const head = manifest.head;
  if (!Number.isSafeInteger(head?.seq) || typeof head?.hash !== "string" || !Number.isSafeInteger(manifest.log_bytes)) {
    return { problem: "its manifest has no valid head" };
  }
  const folds: Record<string, unknown> | undefined = manifest.folds;
  if (!Array.isArray(manifest.relation_types) || !Object.values(sessionFoldRegistry).every((fold) => Array.isArray(folds?.[fold.name]))) {
    return { problem: "its manifest has no valid folds" };
  }
  return manifest;
}
