/**
 * `memory_export` / `zaxy memory export` and `zaxy memory verify-export` (reference §6 row 33):
 * a portable bundle of a session's events, optionally signed with Ed25519 (WebCrypto).
 *
 * The bundle (`zaxy.export.v1`) carries each selected event's **exact log line**, so anyone can
 * recompute its seal from it: `{schema, exported_at, zaxy_version, session_id, source {total_events,
 * head {seq, hash}}, filters, event_count, excluded {by_sensitivity, by_filter}, events [{seq,
 * line}], signature?}`. The session's chain is verified before anything is exported (a broken
 * chain is refused, exit 1). Filters: seq window, time window, event types, sensitivities to
 * leave out, a limit (the earliest matching events first).
 *
 * Signing: `signature {alg: "Ed25519", public_key (base64 of the raw 32 bytes), key_id (16 hex of
 * SHA-256 over it), digest (SHA-256 hex of the bundle without `signature`, keys sorted), value
 * (base64)}`. The key is the root's export key `<root>/keys/export-ed25519.pkcs8` (created with
 * mode 0600 on first use) or `--key FILE` (PKCS#8 DER or PEM).
 *
 * Verification recomputes: every event's seal from its line, the links between events with
 * consecutive seqs, the digest, and the signature; `--public-key` (or `expected_key_id`) pins the
 * signer, else the report says the signer is not pinned.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { inputError, ioError } from "../errors.ts";
import { readLogLines } from "../eventloom/lines.ts";
import { readVerifiedEvents } from "../eventloom/replay.ts";
import { fileSystemReason, sessionLogPath } from "../eventloom/root.ts";
import { timestampMicros } from "../eventloom/timestamp.ts";
import { type IntegrityIssue, scanBytes } from "../eventloom/verify.ts";
import { sha256Hex } from "../platform/mod.ts";
import { sortedKeyJson } from "../projection/graphFold.ts";
import type { PlainJson } from "../projection/types.ts";
import { zaxyVersion } from "../version.ts";

export const exportSchema = "zaxy.export.v1";
export const exportEventsMax = 100_000;

export interface ExportFilters {
  sinceSeq?: number;
  maxSeq?: number;
  sinceTime?: string;
  untilTime?: string;
  kinds?: string[];
  excludeSensitivities?: string[];
  limit?: number;
}

export interface ExportBundle {
  [key: string]: PlainJson | undefined;
  schema: typeof exportSchema;
  exported_at: string;
  zaxy_version: string;
  session_id: string;
  source: { total_events: number; head: { seq: number; hash: string } | null };
  filters: { [key: string]: PlainJson };
  event_count: number;
  excluded: { by_sensitivity: number; by_filter: number };
  events: Array<{ seq: number; line: string }>;
  signature?: { alg: "Ed25519"; public_key: string; key_id: string; digest: string; value: string };
}

function timeMicros(value: string | undefined, field: string): number | undefined {
  if (value === undefined) return undefined;
  const micros = timestampMicros(value);
  if (micros === null) throw inputError("invalid_request", `${field} must be an ISO-8601 time with an offset, got ${JSON.stringify(value)}`, { field });
  return micros;
}

/** The digest a signature covers: SHA-256 of the bundle without `signature`, keys sorted. */
export function bundleDigest(bundle: ExportBundle): string {
  const { signature: _signature, ...unsigned } = bundle;
  return sha256Hex(sortedKeyJson(unsigned as PlainJson));
}

const base64 = (bytes: ArrayBuffer | Uint8Array) => Buffer.from(bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes)).toString("base64");

function pemToDer(text: string): Uint8Array<ArrayBuffer> | undefined {
  const match = /-----BEGIN PRIVATE KEY-----([\s\S]+?)-----END PRIVATE KEY-----/.exec(text);
  return match === null ? undefined : new Uint8Array(Buffer.from(match[1].replace(/\s+/g, ""), "base64"));
}

/** The root's export key (created on first use, 0600), or `keyFile`. */
async function signingKey(root: string, keyFile: string | undefined): Promise<{ privateKey: CryptoKey; publicRaw: Uint8Array }> {
  let der: Uint8Array<ArrayBuffer>;
  const file = keyFile ?? path.join(root, "keys", "export-ed25519.pkcs8");
  if (fs.existsSync(file)) {
    const bytes = fs.readFileSync(file);
    der = pemToDer(bytes.toString("latin1")) ?? new Uint8Array(bytes.byteLength).map((_, i) => bytes[i]);
  } else if (keyFile !== undefined) {
    throw inputError("invalid_request", `\`key\` ${keyFile} does not exist`, { field: "key" });
  } else {
    const pair = await crypto.subtle.generateKey({ name: "Ed25519" }, true, ["sign", "verify"]) as CryptoKeyPair;
    der = new Uint8Array(await crypto.subtle.exportKey("pkcs8", pair.privateKey));
    try {
      fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
      fs.writeFileSync(file, der, { mode: 0o600, flag: "wx" });
    } catch (error) {
      throw ioError("write_failed", `Cannot write the export key ${file}: ${fileSystemReason(error)}`);
    }
  }
  let privateKey: CryptoKey;
  try {
    privateKey = await crypto.subtle.importKey("pkcs8", der, { name: "Ed25519" }, true, ["sign"]);
  } catch {
    throw inputError("invalid_request", `${file} is not an Ed25519 private key (PKCS#8 DER or PEM)`, { field: "key" });
  }
  // The public half: a JWK of the private key carries it as `x`.
  const jwk = await crypto.subtle.exportKey("jwk", privateKey) as JsonWebKey;
  return { privateKey, publicRaw: new Uint8Array(Buffer.from(jwk.x as string, "base64url")) };
}

export async function exportSession(root: string, sessionId: string, filters: ExportFilters, options: { sign?: boolean; keyFile?: string; now?: () => Date } = {}): Promise<ExportBundle> {
  const since = timeMicros(filters.sinceTime, "since_time");
  const until = timeMicros(filters.untilTime, "until_time");
  const limit = filters.limit ?? exportEventsMax;
  if (!Number.isInteger(limit) || limit < 1 || limit > exportEventsMax) throw inputError("invalid_request", `limit must be 1..${exportEventsMax}`, { field: "limit" });
  const logPath = sessionLogPath(root, sessionId, "export");
  const verified = await readVerifiedEvents(logPath, {
    sessionId,
    missing: () => inputError("unknown_session", `Session ${JSON.stringify(sessionId)} has no log to export`, { field: "session_id" }),
  });
  const records = verified.events;
  const kinds = filters.kinds === undefined || filters.kinds.length === 0 ? undefined : new Set(filters.kinds);
  const excludedSensitivities = new Set(filters.excludeSensitivities ?? []);
  const events: Array<{ seq: number; line: string }> = [];
  let bySensitivity = 0;
  let byFilter = 0;
  const decoder = new TextDecoder();
  for (const { bytes, position } of readLogLines(logPath)) {
    const record = records[position - 1];
    if (record === undefined) break;
    const micros = timestampMicros(record.timestamp);
    const inWindow = (filters.sinceSeq === undefined || position >= filters.sinceSeq) && (filters.maxSeq === undefined || position <= filters.maxSeq) &&
      (since === undefined || (micros !== null && micros >= since)) && (until === undefined || (micros !== null && micros <= until)) &&
      (kinds === undefined || kinds.has(record.type));
    if (!inWindow) {
      byFilter++;
      continue;
    }
    const sensitivity = (record.security as { get?: (key: string) => unknown } | null)?.get?.("sensitivity");
    if (typeof sensitivity === "string" && excludedSensitivities.has(sensitivity)) {
      bySensitivity++;
      continue;
    }
    if (events.length === limit) {
      byFilter++;
      continue;
    }
    events.push({ seq: position, line: decoder.decode(bytes) });
  }
  const last = records[records.length - 1];
  const filterDoc: { [key: string]: PlainJson } = {};
  if (filters.sinceSeq !== undefined) filterDoc.since_seq = filters.sinceSeq;
  if (filters.maxSeq !== undefined) filterDoc.max_seq = filters.maxSeq;
  if (filters.sinceTime !== undefined) filterDoc.since_time = filters.sinceTime;
  if (filters.untilTime !== undefined) filterDoc.until_time = filters.untilTime;
  if (kinds !== undefined) filterDoc.kinds = [...kinds];
  if (excludedSensitivities.size > 0) filterDoc.exclude_sensitivities = [...excludedSensitivities];
  if (filters.limit !== undefined) filterDoc.limit = filters.limit;
  const bundle: ExportBundle = {
    schema: exportSchema,
    exported_at: (options.now?.() ?? new Date()).toISOString(),
    zaxy_version: zaxyVersion,
    session_id: sessionId,
    source: { total_events: records.length, head: last === undefined ? null : { seq: last.seq, hash: last.hash } },
    filters: filterDoc,
    event_count: events.length,
    excluded: { by_sensitivity: bySensitivity, by_filter: byFilter },
    events,
  };
  if (options.sign === true) {
    const { privateKey, publicRaw } = await signingKey(root, options.keyFile);
    const digest = bundleDigest(bundle);
    const value = await crypto.subtle.sign({ name: "Ed25519" }, privateKey, new TextEncoder().encode(digest));
    bundle.signature = { alg: "Ed25519", public_key: base64(publicRaw), key_id: sha256Hex(publicRaw).slice(0, 16), digest, value: base64(value) };
  }
  return bundle;
}

export interface ExportVerification {
  [key: string]: PlainJson;
  ok: boolean;
  session_id: string | null;
  event_count: number;
  /** Events whose seal was recomputed from their line. */
  events_verified: number;
  /** Links checked between events with consecutive seqs. */
  links_checked: number;
  signed: boolean;
  signature_valid: boolean | null;
  key_id: string | null;
  /** True when `expectedKeyId` / `--public-key` named the signer and it matched. */
  signer_pinned: boolean;
  problems: string[];
}

/** Checks a bundle: every event's seal and the links inside runs of consecutive seqs, then the signature. */
export async function verifyExportBundle(bundle: unknown, options: { expectedKeyId?: string } = {}): Promise<ExportVerification> {
  const problems: string[] = [];
  const doc = bundle as ExportBundle;
  if (doc === null || typeof doc !== "object" || doc.schema !== exportSchema || !Array.isArray(doc.events)) {
    throw inputError("invalid_bundle", `not a zaxy export bundle (schema ${exportSchema} with events)`, { field: "FILE" });
  }
  let eventsVerified = 0;
  let linksChecked = 0;
  // Runs of consecutive seqs, each verified as a range of the chain from its first line's own link.
  const runs: Array<Array<{ seq: number; line: string }>> = [];
  for (const event of doc.events) {
    if (typeof event?.seq !== "number" || typeof event.line !== "string") {
      problems.push("an event is not {seq, line}");
      continue;
    }
    const run = runs[runs.length - 1];
    if (run !== undefined && run[run.length - 1].seq + 1 === event.seq) run.push(event);
    else runs.push([event]);
  }
  // Each run is verified in memory (no temporary file: TMPDIR may be read-only).
  try {
    for (const run of runs) {
      const bytes = new TextEncoder().encode(run.map((event) => event.line).join("\n") + "\n");
      const first = JSON.parse(run[0].line) as { prev_hash?: string | null; integrity?: { previousHash?: string | null } };
      const recordedPrev = first.integrity !== undefined ? (first.integrity.previousHash ?? null)?.replace(/^sha256:/, "") ?? null : first.prev_hash ?? null;
      const result = scanBytes(bytes, { eventBase: run[0].seq - 1, lineBase: 0, prevHash: recordedPrev }, { allErrors: true });
      for (const issue of result.errors as IntegrityIssue[]) problems.push(`${issue.reason} (seq ${issue.seq})`);
      eventsVerified += run.length;
      linksChecked += run.length - 1;
    }
  } catch (error) {
    problems.push(`an event line is not valid JSON: ${(error as Error).message}`);
  }
  if (doc.event_count !== doc.events.length) problems.push(`event_count says ${doc.event_count}, the bundle holds ${doc.events.length}`);
  let signatureValid: boolean | null = null;
  const signature = doc.signature;
  if (signature !== undefined) {
    const digest = bundleDigest(doc);
    if (digest !== signature.digest) problems.push("the bundle was changed after it was signed (digest mismatch)");
    try {
      const publicRaw = new Uint8Array(Buffer.from(signature.public_key, "base64"));
      const key = await crypto.subtle.importKey("raw", publicRaw, { name: "Ed25519" }, false, ["verify"]);
      signatureValid = digest === signature.digest && await crypto.subtle.verify({ name: "Ed25519" }, key, new Uint8Array(Buffer.from(signature.value, "base64")), new TextEncoder().encode(digest));
      if (sha256Hex(publicRaw).slice(0, 16) !== signature.key_id) problems.push("key_id does not match the public key");
    } catch {
      signatureValid = false;
    }
    if (!signatureValid) problems.push("the signature does not verify");
  }
  const keyId = signature?.key_id ?? null;
  const pinned = options.expectedKeyId !== undefined && keyId === options.expectedKeyId;
  if (options.expectedKeyId !== undefined && !pinned) problems.push(`signed by key ${keyId ?? "(unsigned)"}, expected ${options.expectedKeyId}`);
  return {
    ok: problems.length === 0,
    session_id: typeof doc.session_id === "string" ? doc.session_id : null,
    event_count: doc.events.length,
    events_verified: eventsVerified,
    links_checked: linksChecked,
    signed: signature !== undefined,
    signature_valid: signatureValid,
    key_id: keyId,
    signer_pinned: pinned,
    problems,
  };
}

/** The key id of a public key file (raw 32 bytes, base64 text, or the SPKI PEM/DER of an Ed25519 key). */
export function keyIdOfPublicKeyFile(file: string): string {
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(file);
  } catch (error) {
    throw inputError("invalid_request", `Cannot read \`public_key\` ${file}: ${fileSystemReason(error)}`, { field: "public_key" });
  }
  const text = bytes.toString("latin1").trim();
  const pem = /-----BEGIN PUBLIC KEY-----([\s\S]+?)-----END PUBLIC KEY-----/.exec(text);
  let raw: Uint8Array;
  if (pem !== null) raw = new Uint8Array(Buffer.from(pem[1].replace(/\s+/g, ""), "base64")).slice(-32);
  else if (bytes.length === 32) raw = new Uint8Array(bytes);
  else if (bytes.length === 44 && bytes[0] === 0x30) raw = new Uint8Array(bytes).slice(-32);
  else raw = new Uint8Array(Buffer.from(text, "base64"));
  if (raw.length !== 32) throw inputError("invalid_request", `\`public_key\` ${file} is not an Ed25519 public key`, { field: "public_key" });
  return sha256Hex(raw).slice(0, 16);
}

/** The public key of a root's export key, base64 (what to hand to verifiers). */
export async function exportPublicKey(root: string, keyFile?: string): Promise<{ public_key: string; key_id: string }> {
  const { publicRaw } = await signingKey(root, keyFile);
  return { public_key: base64(publicRaw), key_id: sha256Hex(publicRaw).slice(0, 16) };
}
