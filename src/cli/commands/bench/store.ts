/**
 * `zaxy bench store --store URL`: concurrent writers, verify and import throughput of the shared
 * store against the file store, in one run (docs/store.md, README table). The hidden
 * `bench store-writer` is one writer process of that benchmark.
 */
import { defineCommand } from "../../command.ts";

export const benchStoreCommand = defineCommand({
  name: "store",
  store: "self",
  summary: "Shared store vs file store: concurrent writers, verify and import throughput",
  description:
    "Needs --store (or ZAXY_STORE) naming an initialised store; writes only threads named\n" +
    "zaxy-bench-<pid>-*, deleted at the end. Writers: --writers processes x --appends appends to\n" +
    "one session, each process on its own root (as on separate hosts), then the same on one file\n" +
    "under flock; lost or duplicated events and the chain are checked. Verify: `zaxy verify\n" +
    "--store` of a --verify-events log against `zaxy verify FILE` (medians of --runs fresh\n" +
    "processes). Import: `zaxy store import` of a --import-events log (0 skips).",
  options: {
    writers: { type: "string", valueName: "N", description: "Concurrent writer processes (default 32)" },
    appends: { type: "string", valueName: "M", description: "Appends per writer (default 200)" },
    "verify-events": { type: "string", valueName: "N", description: "Events of the verify log (default 200000)" },
    "import-events": { type: "string", valueName: "N", description: "Events of the import log (default 1000000; 0 skips)" },
    runs: { type: "string", valueName: "R", description: "Fresh-process runs per verify measurement (default 5)" },
    keep: { type: "boolean", description: "Keep the generated files (path printed on stderr)" },
  },
  positionals: [],
  examples: ["zaxy bench store --store postgres://zaxy@127.0.0.1/zaxy --json", "zaxy bench store --store $ZAXY_STORE --writers 8 --appends 50 --import-events 0"],
  async run(ctx) {
    const { runBenchStore } = await import("./storeRun.ts");
    return await runBenchStore(ctx);
  },
});

export const benchStoreWriterCommand = defineCommand({
  name: "store-writer",
  hidden: true,
  writesRoot: true,
  summary: "One writer process of `zaxy bench store`",
  description: "Appends --appends events to the session (through the store with --store) and prints {latencies_ms}.",
  options: {
    writer: { type: "string", valueName: "N", description: "This writer's number" },
    appends: { type: "string", valueName: "M", description: "Appends to make" },
  },
  positionals: [],
  async run(ctx) {
    const { runBenchStoreWriter } = await import("./storeRun.ts");
    return await runBenchStoreWriter(ctx);
  },
});
