/**
 * Loads the usearch native addon (`usearch.node`) once per process.
 *
 * In the compiled binary the addon is an embedded file (see `src/bin/embeddedAssets.ts`);
 * `require` of its `/$bunfs/...` path makes Bun write it out and `dlopen` it. From source (Bun or
 * Deno) it is found the way the usearch package finds it: `node-gyp-build` over the package
 * directory (a local `build/Release` first, then `prebuilds/<platform>-<arch>/`).
 */
import { createRequire } from "node:module";
import * as path from "node:path";
import { ioError } from "../errors.ts";
import { embeddedAssetPath, usearchAddonAssetName } from "../platform/assets.ts";
import { type IndexConfig, type UsearchAddon, UsearchIndex } from "./usearchIndex.ts";

export interface Usearch {
  /** `UsearchIndex` bound to the loaded addon. */
  Index: new (config: IndexConfig) => UsearchIndex;
  /** File the addon was loaded from (a `/$bunfs/...` path inside the binary). */
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
  const embedded = embeddedAssetPath(usearchAddonAssetName());
  const addonPath = embedded ?? packageAddonPath();
  let addon: UsearchAddon;
  try {
    addon = createRequire(import.meta.url)(addonPath) as UsearchAddon;
  } catch (error) {
    // The prebuilt addon needs glibc 2.34 and libstdc++ with GLIBCXX_3.4.29 (Debian 12, Ubuntu
    // 22.04, RHEL 9 and later); on an older system or musl (Alpine) dlopen fails. Only the
    // commands that build a similarity index need it: reads and appends never load it.
    const reason = error instanceof Error ? error.message.split("\n")[0] : String(error);
    throw ioError(
      "usearch_unavailable",
      `The usearch native addon cannot be loaded on this system (${reason}). It needs glibc 2.34 or later and libstdc++ (GLIBCXX_3.4.29); ` +
        "reads, appends and checkouts do not use it, only the consolidation trigger's similarity search and doctor --selftest.",
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
