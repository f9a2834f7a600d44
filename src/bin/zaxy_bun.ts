/**
 * Entry point of the compiled binary (`build.ts` compiles this file). It registers the embedded
 * assets, then runs the same entry as `bun run` / `deno run` from source. Modules are evaluated
 * in import order, so the assets are registered before `zaxy.ts` calls `main`.
 */
import "./embeddedAssets.ts";
import "./zaxy.ts";
