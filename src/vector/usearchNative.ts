/**
 * Loads the usearch native addon (`usearch.node`) once per process.
 *
 * In the compiled binary the addon is an embedded file (see `src/bin/embeddedAssets.ts`), written
 * out once as a content-addressed cache file (`src/platform/cacheFile.ts`) and `require`d there. From source (Bun or
 * Deno) it is found the way the usearch package finds it: `node-gyp-build` over the package
 * directory (a local `build/Release` first, then `prebuilds/<platform>-<arch>/`).
 */
import { createRequire } from "node:module";
import * as path from "node:path";
import { createHash } from "node:crypto";
import { ioError } from "../errors.ts";
import { CacheUseError, useCacheFile } from "../platform/cacheFile.ts";
import { embeddedAsset, readEmbeddedAsset, usearchAddonAssetName } from "../platform/assets.ts";
import { type IndexConfig, type UsearchAddon, UsearchIndex } from "./usearchIndex.ts";

export interface Usearch {
  /** `UsearchIndex` bound to the loaded addon. */
  Index: new (config: IndexConfig) => UsearchIndex;
  /** File the addon was loaded from (its cache file, or the package's prebuild from source). */
  addonPath: string;
  source: "embedded" | "package";
  /** SIMD targets the addon was compiled for and those this CPU offers, e.g. `haswell`. */
  hardwareAcceleration: { compiled: string; available: string };
}

let loaded: Usearch | undefined;

function packageAddonPath(): string {
  const require = createRequire(import.meta.url);
  // The package exports only its entry (javascript/dist/cjs/usearch.js); its root is 3 levels up.
  const entry = require.resolve("usearch");
  const packageDir = path.resolve(path.dirname(entry), "..", "..", "..");
  const nodeGypBuild = createRequire(entry)("node-gyp-build") as { resolve(dir: string): string };
  return nodeGypBuild.resolve(packageDir);
}

/**
 * The usearch `Index` class over the native addon, loaded on first call.
 *
 * @example
 * ```ts
 * const { Index } = await loadUsearch();
 * const index = new Index({ dimensions: 64, metric: "cos" });
 * ```
 */
export async function loadUsearch(): Promise<Usearch> {
  if (loaded !== undefined) return loaded;
  const assetName = usearchAddonAssetName();
  const embedded = embeddedAsset(assetName);
  let addonPath: string;
  let addon: UsearchAddon;
  try {
    if (embedded !== undefined) {
      // Unpacked by us, not by Bun's implicit `require` of the /$bunfs path (which writes a new
      // `$TMPDIR/.bun-*.node` every run and fails on a read-only TMPDIR): a content-addressed
      // file, reused by later runs, in TMPDIR or else the root's own cache directory.
      const read = () => readEmbeddedAsset(assetName)!;
      const contents = { sha256: embedded.sha256 ?? createHash("sha256").update(read()).digest("hex"), read };
      const used = useCacheFile("usearch", ".node", contents, (file) => createRequire(import.meta.url)(file.path) as UsearchAddon, (error) =>
        // A file system mounted noexec refuses the mapping; a missing library or symbol version
        // (old glibc, no libstdc++) fails the same way from any directory.
        /failed to map segment|Permission denied|Operation not permitted|EACCES|EPERM/i.test(error instanceof Error ? error.message : String(error)));
      addonPath = used.file.path;
      addon = used.value;
    } else {
      addonPath = packageAddonPath();
      addon = createRequire(import.meta.url)(addonPath) as UsearchAddon;
    }
  } catch (error) {
    if (error instanceof CacheUseError && error.attempts.every((attempt) => attempt.stage === "write")) {
      throw ioError("cache_write_failed", `Cannot unpack the usearch native addon: ${error.message}`, {
        hint: "make TMPDIR or the Eventloom root writable (zaxy help files lists every path zaxy writes; docs/files.md)",
      });
    }
    // The prebuilt addon needs glibc 2.34 and libstdc++ with GLIBCXX_3.4.29 (Debian 12, Ubuntu
    // 22.04, RHEL 9 and later); on an older system or musl (Alpine) dlopen fails. Only the
    // commands that build a similarity index need it: reads and appends never load it.
    const reason = error instanceof CacheUseError
      ? [...new Set(error.attempts.filter((attempt) => attempt.stage === "load").map((attempt) => attempt.reason))].join("; ")
      : error instanceof Error ? error.message.split("\n")[0] : String(error);
    throw ioError(
      "usearch_unavailable",
      `The usearch native addon cannot be loaded on this system (${reason}). It needs glibc 2.34 or later and libstdc++ (GLIBCXX_3.4.29); ` +
        "reads, appends and checkouts do not use it; the consolidation trigger's similarity search then compares every pair exactly.",
      { hint: "run this command on a glibc 2.34+ system (e.g. Debian 12, Ubuntu 22.04, RHEL 9)" },
    );
  }
  class Index extends UsearchIndex {
    constructor(config: IndexConfig) {
      super(addon, config);
    }
  }
  loaded = {
    Index,
    addonPath,
    source: embedded !== undefined ? "embedded" : "package",
    hardwareAcceleration: {
      compiled: addon.hardwareAccelerationCompiled(),
      available: addon.hardwareAccelerationAvailable(),
    },
  };
  return loaded;
}
