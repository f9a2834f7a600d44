/**
 * Files embedded in the compiled binary. Bun only: `with { type: "file" }` makes
 * `bun build --compile` embed the file and yields its `/$bunfs/...` path at run time (under
 * `bun run` from source it yields the path in node_modules). Deno rejects this import attribute,
 * so only the Bun entry `src/bin/zaxy_bun.ts` imports this module, and every loader falls back
 * to node_modules when a name is not registered.
 *
 * `build.ts` generates `src/generated/embeddedFiles.ts` for the target it compiles (`--target`,
 * default linux-x64): gzip-compressed copies of kuzu-wasm's glue and module and of that platform's
 * usearch prebuild, each with its size and SHA-256 before compression. The addon's asset name
 * carries the platform, so a mismatched addon is never loaded.
 */
import { embeddedFiles } from "../generated/embeddedFiles.ts";
import { registerEmbeddedAssets } from "../platform/assets.ts";

registerEmbeddedAssets(embeddedFiles);
