// deno-test: own-process (loads kuzu-wasm in this process; scripts/deno-test.sh runs it alone)
/**
 * kuzu-wasm's Emscripten glue replaces `globalThis.Worker` with node's `worker_threads.Worker`
 * when it loads. A process that loaded Kuzu (`zaxy serve` after a checkout) must still verify
 * large logs on worker threads.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import * as path from "node:path";
import { fromJs } from "../../src/canonical/mod.ts";
import { verifyLog } from "../../src/eventloom/mod.ts";
import { appendEvents } from "../../src/events/append.ts";
import { loadKuzu } from "../../src/projection/kuzuRuntime.ts";
import { makeTempDir } from "../eventloom/testkit.ts";

test("parallel verify works after Kuzu was loaded in the same process", { timeout: 120_000 }, async () => {
  const root = path.join(makeTempDir("zaxy-worker-kuzu"), ".eventloom");
  const { logPath } = await appendEvents(
    root,
    "s",
    Array.from({ length: 400 }, (_, i) => ({ type: "note.added", actor: "agent", payload: fromJs({ text: `note ${i} `.repeat(20) }) })),
  );
  await loadKuzu();
  const single = await verifyLog(logPath, { threads: 1 });
  const parallel = await verifyLog(logPath, { threads: 2 });
  assert.equal(parallel.ok, true);
  assert.deepEqual(parallel, single);
});
