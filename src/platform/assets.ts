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

/** The usearch native addon for the platform the binary was built for, e.g. `usearch-linux-x64.node`. */
export function usearchAddonAssetName(platform: string = process.platform, arch: string = process.arch): string {
  return `usearch-${platform}-${arch}.node`;
}

/** kuzu-wasm's Node build: the Emscripten glue (loaded by the main thread and every pthread worker). */
export const kuzuJsAssetName = "kuzu_wasm.js";

/** kuzu-wasm's Node build: the WebAssembly module, handed to the glue as `wasmBinary`. */
export const kuzuWasmAssetName = "kuzu_wasm.wasm";

const assetPaths = new Map<string, string>();

/** Records embedded file paths by asset name. A later registration of the same name wins. */
export function registerEmbeddedAssets(assets: Record<string, string>): void {
  for (const [name, path] of Object.entries(assets)) assetPaths.set(name, path);
}

/** The embedded path of asset `name`, or undefined when the binary does not carry it. */
export function embeddedAssetPath(name: string): string | undefined {
  return assetPaths.get(name);
}

/** Every registered asset, sorted by name (for `zaxy doctor`). */
export function embeddedAssets(): Array<{ name: string; path: string }> {
  return [...assetPaths.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, path]) => ({ name, path }));
}
