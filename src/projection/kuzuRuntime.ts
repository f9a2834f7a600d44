/**
 * Loads Kuzu (kuzu-wasm 0.11, Node sync build) once per process.
 *
 * The Node build is an Emscripten pthreads build: `kuzu_wasm.js` (the glue) starts a pool of 8
 * worker threads that each re-load the glue by file path, and reads `kuzu_wasm.wasm` from beside
 * it. Inside the compiled binary neither file exists on disk, so when both are embedded:
 * 1. the glue is copied once to a content-addressed cache file (`src/platform/cacheFile.ts`),
 *    where the workers can load it too;
 * 2. that copy is `require`d to get the Emscripten factory, which is called with the embedded
 *    wasm bytes as `wasmBinary` (the workers receive the compiled module by message);
 * 3. the resulting module is handed to the sync wrapper (its `kuzu.js` holder object) instead of
 *    the wrapper's own `init()`, which would load the glue bundled into the binary.
 * From source (Bun or Deno) the wrapper's `init()` loads the package files directly.
 *
 * Start-up costs a few hundred milliseconds (compiling 11 MB of wasm), so only commands that
 * need the graph call `loadKuzu()`, through a dynamic import of this module, and `serve` keeps
 * it loaded.
 *
 * The wrapper is imported by relative path because the package's `exports` map only offers
 * `require("kuzu-wasm/nodejs/sync")`, which neither an ESM `import` may use nor the bundler can
 * follow through `createRequire`, and it does not export the `kuzu.js` holder at all.
 */
import * as fs from "node:fs";
import { createRequire } from "node:module";
import { ioError } from "../errors.ts";
import { createHash } from "node:crypto";
import { embeddedAsset, kuzuJsAssetName, kuzuWasmAssetName, readEmbeddedAsset } from "../platform/assets.ts";
import { disableBunTranspilerCache } from "../platform/bunTranspilerCache.ts";
import { type CacheFile, cacheFilePath, CacheUseError, type LazyContents, useCacheFile } from "../platform/cacheFile.ts";
// Evaluated before Kuzu can load: it captures the Web Worker constructor that Kuzu's glue replaces.
import "../platform/process.ts";

export interface KuzuQueryResult {
  isSuccess(): boolean;
  getErrorMessage(): string;
  getColumnNames(): string[];
  getNumTuples(): number;
  hasNext(): boolean;
  getNext(): Record<string, unknown>;
  getAllRows(): unknown[][];
  getAllObjects(): Array<Record<string, unknown>>;
  close(): void;
}

export interface KuzuPreparedStatement {
  isSuccess(): boolean;
  getErrorMessage(): string;
  close(): void;
}

export interface KuzuConnection {
  query(statement: string): KuzuQueryResult;
  prepare(statement: string): KuzuPreparedStatement;
  execute(statement: KuzuPreparedStatement, params?: Record<string, unknown>): KuzuQueryResult;
  close(): void;
}

export interface KuzuDatabase {
  close(): void;
}

/** The kuzu-wasm sync API, initialised and ready to open a file-backed database. */
export interface Kuzu {
  /** `new Database(path)` opens or creates a database file; `":memory:"` keeps it in memory. */
  Database: new (
    databasePath: string,
    bufferPoolSizeBytes?: number,
    maxThreadCount?: number,
    enableCompression?: boolean,
    readOnly?: boolean,
    autoCheckpoint?: boolean,
    checkpointThresholdBytes?: number,
  ) => KuzuDatabase;
  Connection: new (database: KuzuDatabase, threadCount?: number) => KuzuConnection;
  version: string;
  storageVersion: bigint;
  source: "embedded" | "package";
  /** The glue's cache file when loaded from embedded assets. */
  glueCache?: CacheFile;
}

interface SyncWrapper {
  init(): Promise<void>;
  getVersion(): string;
  getStorageVersion(): bigint;
  Database: Kuzu["Database"];
  Connection: Kuzu["Connection"];
}

/** The wrapper's `kuzu.js` module: a holder whose `_kuzu` is the initialised Emscripten module. */
interface WasmHolder {
  _kuzu: unknown;
}

type EmscriptenFactory = (moduleArg: { wasmBinary?: Uint8Array; INITIAL_MEMORY?: number }) => Promise<unknown>;

/**
 * Under Deno (the test runner and `deno task zaxy`; the binary is Bun) Kuzu's shared wasm memory
 * starts at 2 GiB instead of 16 MiB and so never grows in practice: when one pthread grew it, another
 * pthread sometimes trapped with "memory access out of bounds" (seen in 2 of 9 and 1 of 2 full CI
 * runs, never under Bun), consistent with V8 refreshing other threads' view of a grown shared
 * memory lazily. The pages are reserved, not touched: resident memory does not change.
 */
const denoInitialMemoryBytes: number | undefined = (process.versions as { deno?: string }).deno !== undefined ? 2048 * 1024 * 1024 : undefined;

const glueStem = "kuzu";
const glueExt = ".cjs";

let loading: Promise<Kuzu> | undefined;

function defaultExport<T>(module: { default?: unknown }): T {
  return (module.default ?? module) as T;
}

/**
 * Where the embedded glue's cache file is (or will be), without loading Kuzu; undefined when the
 * glue is not embedded (running from source).
 */
export function kuzuGlueCachePath(): string | undefined {
  const glue = embeddedGlue();
  return glue === undefined ? undefined : cacheFilePath(glueStem, glueExt, glue);
}

/** The embedded glue's contents, read (and inflated) only when its cache file must be written. */
function embeddedGlue(): LazyContents | undefined {
  const asset = embeddedAsset(kuzuJsAssetName);
  if (asset === undefined) return undefined;
  const read = () => readEmbeddedAsset(kuzuJsAssetName)!;
  return { sha256: asset.sha256 ?? createHash("sha256").update(read()).digest("hex"), read };
}

async function load(): Promise<Kuzu> {
  const sync = defaultExport<SyncWrapper>(await import("../../node_modules/kuzu-wasm/nodejs/sync/index.js"));
  const glue = embeddedGlue();
  const wasm = embeddedAsset(kuzuWasmAssetName);
  let glueCache: CacheFile | undefined;
  if (glue !== undefined && wasm !== undefined) {
    const holder = defaultExport<WasmHolder>(await import("../../node_modules/kuzu-wasm/nodejs/sync/kuzu.js"));
    await disableBunTranspilerCache();
    let factory: EmscriptenFactory;
    try {
      const used = useCacheFile(glueStem, glueExt, glue, (file) => createRequire(import.meta.url)(file.path) as EmscriptenFactory);
      glueCache = used.file;
      factory = used.value;
    } catch (error) {
      if (!(error instanceof CacheUseError)) throw error;
      throw ioError("cache_write_failed", `Cannot unpack Kuzu's loader script (the graph store needs it as a real file): ${error.message}`, {
        hint: "make TMPDIR or the Eventloom root writable (zaxy help files lists every path zaxy writes; docs/files.md)",
      });
    }
    holder._kuzu = await factory({ wasmBinary: readEmbeddedAsset(kuzuWasmAssetName)! });
  } else if (denoInitialMemoryBytes !== undefined) {
    const holder = defaultExport<WasmHolder>(await import("../../node_modules/kuzu-wasm/nodejs/sync/kuzu.js"));
    const factory = defaultExport<EmscriptenFactory>(await import("../../node_modules/kuzu-wasm/nodejs/kuzu/kuzu_wasm.js"));
    holder._kuzu = await factory({ INITIAL_MEMORY: denoInitialMemoryBytes });
  } else {
    await sync.init();
  }
  return {
    Database: sync.Database,
    Connection: sync.Connection,
    version: sync.getVersion(),
    storageVersion: sync.getStorageVersion(),
    source: glueCache !== undefined ? "embedded" : "package",
    glueCache,
  };
}

/**
 * The Kuzu sync API, loaded on first call; later calls share it.
 *
 * @example
 * ```ts
 * const kuzu = await loadKuzu();
 * const db = new kuzu.Database(".eventloom/projections/embedded.kuzu");
 * const conn = new kuzu.Connection(db);
 * const result = conn.query("MATCH (e:Entity) RETURN count(*) AS n");
 * ```
 */
export function loadKuzu(): Promise<Kuzu> {
  loading ??= load().catch((error) => {
    loading = undefined;
    throw error;
  });
  return loading;
}
