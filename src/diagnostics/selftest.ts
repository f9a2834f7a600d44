/**
 * End-to-end check of the native and WebAssembly dependencies, run by `zaxy doctor --selftest`
 * to prove a binary works where it was dropped (no node_modules, no network):
 * - usearch: load the addon, index random vectors, find each vector as its own nearest
 *   neighbour, save the index to a file and load it back;
 * - Kuzu: load the runtime, create a file-backed database, write rows, read them back, close,
 *   reopen the same file with a fresh database and connection and read the rows again.
 * Every step is timed. A failing step becomes `{step, ok: false, message}` and stops the rest of
 * its group; nothing escapes as an exception. Temporary directories are always removed.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { cacheDirCandidates } from "../platform/cacheFile.ts";
import { isZaxyError } from "../errors.ts";
import type { Kuzu, KuzuConnection, KuzuDatabase } from "../projection/kuzuRuntime.ts";
import type { Usearch, UsearchIndex } from "../vector/mod.ts";
import { type RuntimeInfo, runtimeInfo } from "./environment.ts";

export interface SelftestStep {
  step: string;
  ok: boolean;
  ms: number;
  /** Why the step failed (only when `ok` is false). */
  message?: string;
  /** What to do about it, when the failure says. */
  hint?: string;
  detail?: Record<string, unknown>;
}

export interface SelftestReport extends RuntimeInfo {
  ok: boolean;
  steps: SelftestStep[];
}

/** Vectors indexed by the usearch check. */
const probeVectorCount = 100;
/** Dimension of those vectors. */
const probeDimensions = 64;
/** Fixed seed of the vector generator, so a failure reproduces. */
const probeSeed = 0x5a7e;
/** Rows written by the Kuzu check. */
const probeRowCount = 20;

type StepBody = () => Promise<Record<string, unknown>> | Record<string, unknown>;

/** Runs `body` as step `name`, records its outcome and time, and says whether it passed. */
async function runStep(steps: SelftestStep[], name: string, body: StepBody): Promise<boolean> {
  const started = performance.now();
  try {
    const detail = await body();
    steps.push({ step: name, ok: true, ms: elapsedMs(started), detail });
    return true;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const hint = isZaxyError(error) ? error.hint : undefined;
    steps.push({ step: name, ok: false, ms: elapsedMs(started), message, ...(hint !== undefined ? { hint } : {}) });
    return false;
  }
}

function elapsedMs(started: number): number {
  return Math.round((performance.now() - started) * 100) / 100;
}

function check(condition: boolean, message: string): void {
  if (!condition) throw new Error(message);
}

/** mulberry32: a tiny seeded generator; values in [-1, 1). */
function randomVectors(count: number, dimensions: number, seed: number): Float32Array {
  let state = seed >>> 0;
  const out = new Float32Array(count * dimensions);
  for (let i = 0; i < out.length; i++) {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    out[i] = (((t ^ (t >>> 14)) >>> 0) / 4294967296) * 2 - 1;
  }
  return out;
}

/** How many stored vectors are not their own nearest neighbour. */
function selfMatchMisses(index: UsearchIndex, vectors: Float32Array): number {
  // One thread: usearch sizes per-thread scratch space in `add`, which used one thread.
  const matches = index.searchBatch(vectors, 1, 1);
  let misses = 0;
  for (let i = 0; i < probeVectorCount; i++) {
    if (Number(matches.counts[i]) !== 1 || matches.keys[i] !== BigInt(i)) misses++;
  }
  return misses;
}

async function usearchChecks(steps: SelftestStep[], dir: string): Promise<void> {
  let usearch: Usearch | undefined;
  const loaded = await runStep(steps, "usearch.load", async () => {
    usearch = await (await import("../vector/usearchNative.ts")).loadUsearch();
    return { source: usearch.source, addon_path: usearch.addonPath, hardware_acceleration: usearch.hardwareAcceleration };
  });
  if (!loaded || usearch === undefined) return;
  const { Index } = usearch;
  const vectors = randomVectors(probeVectorCount, probeDimensions, probeSeed);
  const keys = BigUint64Array.from({ length: probeVectorCount }, (_, i) => BigInt(i));
  const indexPath = path.join(dir, "probe.usearch");
  const built = await runStep(steps, "usearch.index", () => {
    const index = new Index({ dimensions: probeDimensions, metric: "cos" });
    // One thread: insertion order fixes the graph, so the check is deterministic.
    index.add(keys, vectors, 1);
    check(index.size() === probeVectorCount, `index holds ${index.size()} vectors, expected ${probeVectorCount}`);
    const misses = selfMatchMisses(index, vectors);
    check(misses === 0, `${misses} of ${probeVectorCount} vectors are not their own nearest neighbour`);
    index.save(indexPath);
    return { vectors: probeVectorCount, dimensions: probeDimensions, metric: "cos", seed: probeSeed };
  });
  if (!built) return;
  await runStep(steps, "usearch.save_load", () => {
    const index = new Index({ dimensions: probeDimensions, metric: "cos" });
    index.load(indexPath);
    check(index.size() === probeVectorCount, `loaded index holds ${index.size()} vectors, expected ${probeVectorCount}`);
    const misses = selfMatchMisses(index, vectors);
    check(misses === 0, `after load, ${misses} of ${probeVectorCount} vectors are not their own nearest neighbour`);
    return { file_bytes: fs.statSync(indexPath).size, vectors: index.size() };
  });
}

function runQuery(connection: KuzuConnection, statement: string): Array<Record<string, unknown>> {
  const result = connection.query(statement);
  try {
    if (!result.isSuccess()) throw new Error(`Kuzu rejected "${statement.slice(0, 60)}": ${result.getErrorMessage()}`);
    return result.getAllObjects();
  } finally {
    result.close();
  }
}

function expectedRows(): Array<{ id: number; name: string }> {
  return Array.from({ length: probeRowCount }, (_, i) => ({ id: i + 1, name: `probe-${i + 1}` }));
}

/** Reads the probe rows back and compares them with what was written. */
function checkRows(connection: KuzuConnection): void {
  const rows = runQuery(connection, "MATCH (p:Probe) RETURN p.id AS id, p.name AS name ORDER BY p.id");
  const got = rows.map((row) => ({ id: Number(row.id), name: String(row.name) }));
  check(JSON.stringify(got) === JSON.stringify(expectedRows()), `read back ${got.length} rows that differ from the ${probeRowCount} written`);
}

/** Opens `dbPath` and runs `body` with a connection; always closes both. */
function withConnection<T>(kuzu: Kuzu, dbPath: string, body: (connection: KuzuConnection) => T): T {
  let database: KuzuDatabase | undefined;
  let connection: KuzuConnection | undefined;
  try {
    database = new kuzu.Database(dbPath);
    connection = new kuzu.Connection(database);
    return body(connection);
  } finally {
    connection?.close();
    database?.close();
  }
}

async function kuzuChecks(steps: SelftestStep[], dir: string): Promise<void> {
  let kuzu: Kuzu | undefined;
  const loaded = await runStep(steps, "kuzu.load", async () => {
    kuzu = await (await import("../projection/kuzuRuntime.ts")).loadKuzu();
    return {
      source: kuzu.source,
      version: kuzu.version,
      storage_version: String(kuzu.storageVersion),
      glue_cache_path: kuzu.glueCache?.path ?? null,
      glue_cache_reused: kuzu.glueCache?.reused ?? null,
    };
  });
  if (!loaded || kuzu === undefined) return;
  const loadedKuzu = kuzu;
  const dbPath = path.join(dir, "probe.kuzu");
  const written = await runStep(steps, "kuzu.write", () =>
    withConnection(loadedKuzu, dbPath, (connection) => {
      runQuery(connection, "CREATE NODE TABLE Probe(id INT64, name STRING, PRIMARY KEY(id))");
      const literal = expectedRows().map((row) => `{id: ${row.id}, name: '${row.name}'}`).join(", ");
      runQuery(connection, `UNWIND [${literal}] AS r CREATE (:Probe {id: r.id, name: r.name})`);
      checkRows(connection);
      return { rows: probeRowCount, database_path: dbPath };
    }));
  if (!written) return;
  await runStep(steps, "kuzu.reopen", () =>
    withConnection(loadedKuzu, dbPath, (connection) => {
      checkRows(connection);
      return { rows: probeRowCount };
    }));
}

/** A fresh directory under TMPDIR, else under the root's cache directory (a read-only TMPDIR). */
function selftestDir(): string {
  const failures: string[] = [];
  for (const base of [os.tmpdir(), ...cacheDirCandidates().slice(1)]) {
    try {
      fs.mkdirSync(base, { recursive: true, mode: 0o700 });
      return fs.mkdtempSync(path.join(base, "zaxy-selftest-"));
    } catch (error) {
      failures.push(`${base}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  throw new Error(`no writable directory for the selftest: ${failures.join("; ")}`);
}

/**
 * Runs every check in a fresh temporary directory and removes it afterwards.
 *
 * @example
 * ```ts
 * const report = await runSelftest();
 * report.steps.map((s) => `${s.step} ${s.ok}`); // ["usearch.load true", ..., "kuzu.reopen true"]
 * ```
 */
export async function runSelftest(): Promise<SelftestReport> {
  const steps: SelftestStep[] = [];
  let dir: string | undefined;
  try {
    const made = await runStep(steps, "tempdir", () => {
      dir = selftestDir();
      return { path: dir };
    });
    if (made && dir !== undefined) {
      await usearchChecks(steps, dir);
      await kuzuChecks(steps, dir);
    }
  } finally {
    if (dir !== undefined) fs.rmSync(dir, { recursive: true, force: true });
  }
  return { ...runtimeInfo(), ok: steps.every((s) => s.ok), steps };
}
