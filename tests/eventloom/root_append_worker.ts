/**
 * Child process for the Root tests (not a test file): appends one event carrying the producer-
 * supplied id ID and producer ref REF to `<ROOT>/<SESSION>.jsonl` through the process's own
 * root handle, then prints `{"seq": N}`.
 * Usage: bun tests/eventloom/root_append_worker.ts ROOT SESSION ID REF
 */
import { fromJs } from "../../src/canonical/mod.ts";
import { appendEvents } from "../../src/events/append.ts";

const [root, session, id, ref] = process.argv.slice(process.argv.length - 4);
const { events } = await appendEvents(root, session, [{ type: "note.added", actor: "other-process", payload: fromJs({ text: id }), id, producerRef: ref }], { dedupProducerRefs: true });
process.stdout.write(JSON.stringify({ seq: events[0].seq }) + "\n");
