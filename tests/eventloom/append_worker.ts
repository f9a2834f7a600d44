/**
 * Child process for the concurrency tests (not a test file): appends COUNT events, one
 * `appendEvent` call each, to `<ROOT>/<SESSION>.jsonl`, then prints one line of JSON
 * `{"worker": W, "appended": COUNT, "seqs": [...]}` to stdout.
 * Usage: bun tests/eventloom/append_worker.ts ROOT SESSION WORKER COUNT
 *        deno run -A --no-check tests/eventloom/append_worker.ts ROOT SESSION WORKER COUNT
 */
import { fromJs } from "../../src/canonical/mod.ts";
import { appendEvent } from "../../src/events/append.ts";

const [root, session, worker, countText] = process.argv.slice(process.argv.length - 4);
const count = Number(countText);
const seqs: number[] = [];
for (let i = 0; i < count; i++) {
  const event = await appendEvent(root, session, {
    type: "worker.step",
    actor: `worker-${worker}`,
    payload: fromJs({ worker: Number(worker), i }),
  });
  seqs.push(event.seq);
}
process.stdout.write(JSON.stringify({ worker: Number(worker), appended: count, seqs }) + "\n");
