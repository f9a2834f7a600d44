/**
 * Entry point of the compiled binary (`build.ts` compiles this file). It registers the embedded
 * assets, then runs the same entry as `bun run` / `deno run` from source. Modules are evaluated
 * in import order, so the assets are registered before `zaxy.ts` calls `main`.
 *
 * Compile only: `bun run` of this file fails, because outside the bundler Bun loads a `.node`
 * import as an addon even with `type: "file"`. From source, run `src/bin/zaxy.ts`; the loaders
 * then find the same files in node_modules.
 */
import "./embeddedAssets.ts";
import "./zaxy.ts";
