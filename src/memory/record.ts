/**
 * Appending with the inference producers (DESIGN §4; reference §2.4): after a batch is sealed,
 * each appended event is shown to `generatedEvents`, and what it produces (for example the
 * `likely_implemented_decision` edge of a `task.completed` that cites a decision event) is
 * appended right after, as its own batch by actor `zaxy-inference`. Every front door that
 * records events (CLI append and ingest, MCP append and ingest, the demo) goes through here.
 *
 * The producers' own events are never fed back (they produce nothing for them), so this cannot
 * loop. If the process dies between the two batches the source event stands alone; that loses
 * only a derived, re-derivable inference, never a recorded fact.
 */
import { fromJs } from "../canonical/mod.ts";
import { type AppendedEvent, appendEvents, type AppendItem, type AppendOptions, type AppendResult } from "../eventloom/append.ts";
import { generatedEvents } from "../projection/inference.ts";

export interface RecordResult extends AppendResult {
  /** Events the inference producers appended after the batch (empty when none). */
  generated: AppendedEvent[];
}

export async function recordEvents(root: string, sessionId: string, items: AppendItem[], options: AppendOptions = {}): Promise<RecordResult> {
  const result = await appendEvents(root, sessionId, items, options);
  const derived: AppendItem[] = result.records.flatMap(generatedEvents).map((event) => ({
    type: event.type,
    actor: event.actor,
    payload: fromJs(event.payload),
  }));
  if (derived.length === 0) return { ...result, generated: [] };
  const more = await appendEvents(root, sessionId, derived, { clock: options.clock, lockWaitMs: options.lockWaitMs });
  return { ...result, warnings: [...result.warnings, ...more.warnings], generated: more.events };
}
