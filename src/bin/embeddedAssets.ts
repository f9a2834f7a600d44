/**
 * Files embedded in the compiled binary. Bun only: `with { type: "file" }` makes
 * `bun build --compile` embed the file and yields its `/$bunfs/...` path at run time (under
 * `bun run` from source it yields the path in node_modules). Deno rejects this import attribute,
 * so only the Bun entry `src/bin/zaxy_bun.ts` imports this module, and every loader falls back
 * to node_modules when a name is not registered.
 *
 * The usearch addon is the target platform's prebuild, imported by the module `build.ts`
 * generates for the target it compiles (`--target`, default linux-x64); the asset name carries
 * the platform, so a mismatched addon is never loaded.
 */
import kuzuJs from "../../node_modules/kuzu-wasm/nodejs/kuzu/kuzu_wasm.js" with { type: "file" };
import kuzuWasm from "../../node_modules/kuzu-wasm/nodejs/kuzu/kuzu_wasm.wasm" with { type: "file" };
import { embeddedUsearch } from "../generated/embeddedUsearch.ts";
import { kuzuJsAssetName, kuzuWasmAssetName, registerEmbeddedAssets } from "../platform/assets.ts";

registerEmbeddedAssets({
  [embeddedUsearch.name]: embeddedUsearch.path,
  // Imported `with { type: "file" }`: the default export is the file's path, not the module.
  [kuzuJsAssetName]: kuzuJs as string,
  [kuzuWasmAssetName]: kuzuWasm,
});
