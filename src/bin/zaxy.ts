/** Entry point of the compiled binary and of `bun run` / `deno run` from source. */
import { main } from "../cli/main.ts";

const code = await main(process.argv.slice(2));
process.exitCode = code;
// kuzu-wasm's Emscripten runtime sets process.exitCode itself when it shuts down (at exit, after
// a command that loaded it); the command's own code must win.
process.once("exit", () => {
  process.exitCode = code;
});
