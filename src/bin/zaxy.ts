/** Entry point of the compiled binary and of `bun run` / `deno run` from source. */
import { main } from "../cli/main.ts";

const code = await main(process.argv.slice(2));
process.exitCode = code;
