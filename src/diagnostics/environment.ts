/**
 * What this zaxy process runs on and carries: runtime, platform, embedded assets and the cache
 * file the Kuzu glue is (or will be) copied to. Cheap: nothing heavy is loaded.
 */
import * as fs from "node:fs";
import { kuzuGlueCachePath } from "../projection/kuzuRuntime.ts";
import { embeddedAssets } from "../platform/assets.ts";
import { cacheDirPath } from "../platform/cacheFile.ts";
import { runtimeName } from "../platform/mod.ts";
import { zaxyVersion } from "../version.ts";

export interface RuntimeInfo {
  version: string;
  runtime: { name: string; version: string };
  /** `<os>-<arch>`, e.g. `linux-x64`. */
  platform: string;
}

export interface EnvironmentReport extends RuntimeInfo {
  /** True when assets are embedded (the compiled binary); false when running from source. */
  embedded: boolean;
  /** `bytes`: the asset's size; `stored_bytes`: what it takes in the binary (gzip-compressed: smaller). */
  assets: Array<{ name: string; path: string; bytes: number | null; stored_bytes: number | null; encoding: "gzip" | "identity"; sha256: string | null }>;
  cache_dir: string;
  /** Null when the Kuzu glue is not embedded (it is then loaded from node_modules). */
  kuzu_glue_cache: { path: string; exists: boolean } | null;
}

export function runtimeInfo(): RuntimeInfo {
  const versions = process.versions as Record<string, string | undefined>;
  return {
    version: zaxyVersion,
    runtime: { name: runtimeName, version: versions[runtimeName] ?? process.version },
    platform: `${process.platform}-${process.arch}`,
  };
}

function fileBytes(path: string): number | null {
  try {
    return fs.statSync(path).size;
  } catch {
    return null;
  }
}

/**
 * @example
 * ```ts
 * environmentReport().assets.map((a) => a.name); // ["kuzu_wasm.js", "kuzu_wasm.wasm", "tfjs-backend-wasm-simd.wasm", …, "usearch-linux-x64.node"]
 * ```
 */
export function environmentReport(): EnvironmentReport {
  const assets = embeddedAssets().map((asset) => {
    const stored = fileBytes(asset.path);
    return { name: asset.name, path: asset.path, bytes: asset.bytes ?? stored, stored_bytes: stored, encoding: asset.encoding, sha256: asset.sha256 ?? null };
  });
  const gluePath = kuzuGlueCachePath();
  return {
    ...runtimeInfo(),
    embedded: assets.length > 0,
    assets,
    cache_dir: cacheDirPath(),
    kuzu_glue_cache: gluePath === undefined ? null : { path: gluePath, exists: fs.existsSync(gluePath) },
  };
}
