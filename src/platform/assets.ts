/**
 * Registry of files embedded in the compiled binary.
 *
 * `bun build --compile` embeds a file when a module imports it statically with
 * `with { type: "file" }`; the import then yields a path inside the binary's virtual file system
 * (`/$bunfs/root/...`). Those imports live in one Bun-only module, `src/bin/embeddedAssets.ts`,
 * which registers the paths here before the CLI starts. Loaders ask this registry first and fall
 * back to `node_modules` when a name is not registered, which is the case under Deno and when
 * running from source, so library code never imports anything Bun-specific.
 *
 * @example
 * ```ts
 * registerEmbeddedAssets({ [kuzuJsAssetName]: "/$bunfs/root/kuzu_wasm-1a2b.js" });
 * embeddedAssetPath(kuzuJsAssetName); // "/$bunfs/root/kuzu_wasm-1a2b.js"
 * embeddedAssetPath("other");          // undefined
 * ```
 */
import * as fs from "node:fs";

/** The usearch native addon for the platform the binary was built for, e.g. `usearch-linux-x64.node`. */
export function usearchAddonAssetName(platform: string = process.platform, arch: string = process.arch): string {
  return `usearch-${platform}-${arch}.node`;
}

/** kuzu-wasm's Node build: the Emscripten glue (loaded by the main thread and every pthread worker). */
export const kuzuJsAssetName = "kuzu_wasm.js";

/** kuzu-wasm's Node build: the WebAssembly module, handed to the glue as `wasmBinary`. */
export const kuzuWasmAssetName = "kuzu_wasm.wasm";

/** An embedded file: where it is, and how it is stored. */
export interface EmbeddedAsset {
  /** Path inside the binary's virtual file system (`/$bunfs/...`). */
  path: string;
  /** `gzip`: the file holds the asset compressed (build.ts); `identity`: as is. */
  encoding: "gzip" | "identity";
  /** SHA-256 (lowercase hex) and size of the asset itself, before compression. */
  sha256?: string;
  bytes?: number;
}

const assets = new Map<string, EmbeddedAsset>();

/** Records embedded files by asset name (a bare path is stored as is). A later registration of the same name wins. */
export function registerEmbeddedAssets(entries: Record<string, string | EmbeddedAsset>): void {
  for (const [name, asset] of Object.entries(entries)) assets.set(name, typeof asset === "string" ? { path: asset, encoding: "identity" } : asset);
}

/** The embedded path of asset `name`, or undefined when the binary does not carry it. */
export function embeddedAssetPath(name: string): string | undefined {
  return assets.get(name)?.path;
}

/** The embedded asset `name`, or undefined when the binary does not carry it. */
export function embeddedAsset(name: string): EmbeddedAsset | undefined {
  return assets.get(name);
}

/** The bytes of embedded asset `name` (inflated when stored compressed), or undefined when not embedded. */
export function readEmbeddedAsset(name: string): Uint8Array | undefined {
  const asset = assets.get(name);
  if (asset === undefined) return undefined;
  const stored = fs.readFileSync(asset.path);
  // zlib is looked up only here: importing it at start-up would load node:stream with it.
  return asset.encoding === "gzip" ? process.getBuiltinModule("node:zlib").gunzipSync(stored) : stored;
}

/** Every registered asset, sorted by name (for `zaxy doctor`). */
export function embeddedAssets(): Array<{ name: string } & EmbeddedAsset> {
  return [...assets.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, asset]) => ({ name, ...asset }));
}
