/** Options every command accepts, before or after its words. */
import type { OptionSpec } from "./command.ts";

export const globalOptions: Record<string, OptionSpec> = {
  "eventloom-path": {
    type: "string",
    valueName: "PATH",
    description: "Eventloom root directory (env EVENTLOOM_PATH, default .eventloom)",
  },
  "session-id": {
    type: "string",
    valueName: "ID",
    description: "Session (thread) id (env EVENTLOOM_THREAD, default \"default\")",
  },
  store: {
    type: "string",
    valueName: "URL",
    description: "Keep the logs in a shared PostgreSQL store: postgres://... (env ZAXY_STORE, config.json store; default: files under the root)",
  },
  "request-id": {
    type: "string",
    valueName: "ID",
    description: "With a store: the id that makes a retry of this command's appends safe (zaxy help --topic store; default: a new one per run)",
  },
  json: { type: "boolean", description: "Print exactly one JSON document on stdout" },
  quiet: { type: "boolean", short: "q", description: "No progress display on stderr (warnings and errors still print)" },
  help: { type: "boolean", short: "h", description: "Show help for this command" },
};
