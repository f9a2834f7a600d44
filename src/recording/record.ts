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
 *
 * An event type the engine does not read is appended all the same (it becomes a generic
 * `event:<type>:<seq>` entity), but when it is close to one the engine reads (`decision.recorded`
 * for `decision.made`) the result carries a warning naming that type, so every front door says so.
 */
import { fromJs } from "../canonical/mod.ts";
import { type AppendedEvent, type AppendItem, type AppendOptions, type AppendResult } from "../eventloom/append.ts";
import { appendEvents } from "../events/append.ts";
import { generatedEvents } from "../projection/inference.ts";
import { closestKnownType, unknownTypeWarning } from "../projection/extract/vocabulary.ts";
import { outcomeExplainedEventType, outcomeExplainedProblem } from "../events/outcomeExplained.ts";
import type { EventRecord } from "../eventloom/envelope.ts";
import { readLogLines } from "../eventloom/lines.ts";
import { eventHash, integer, object } from "../events/payload.ts";
import { storedEventHash } from "../eventloom/envelope.ts";

/**
 * The hashes of the events the batch's explanations cite, read in one pass over the log up to
 * the highest cited seq (a batch may hold many explanations).
 */
function citedHashes(logPath: string, explanations: readonly EventRecord[]): (seq: number) => string | undefined {
  const wanted = new Set<number>();
  for (const record of explanations) {
    const seq = integer(object(record.payload.get("evidence"))?.get("source_event_seq"));
    if (seq !== undefined && seq >= 1 && seq < record.seq) wanted.add(seq);
  }
  const found = new Map<number, string | undefined>();
  const last = Math.max(0, ...wanted);
  if (last > 0) {
    for (const { bytes, position } of readLogLines(logPath)) {
      if (wanted.has(position)) found.set(position, storedEventHash(bytes));
      if (position >= last) break;
    }
  }
  return (seq) => found.get(seq);
}

export interface RecordResult extends AppendResult {
  /** Events the inference producers appended after the batch (empty when none). */
  generated: AppendedEvent[];
}

/**
 * One warning per event type of the batch that the engine does not read while a known type is
 * close to it (a typo or a natural guess); a type nothing known is close to is taken as meant.
 *
 * @example
 * unknownTypeWarnings([{ event_type: "decision.recorded", seq: 1, … }])
 * // ['event type "decision.recorded" is not one the engine reads, … the closest known type is "decision.made" …']
 */
export function unknownTypeWarnings(events: readonly AppendedEvent[]): string[] {
  const warned = new Set<string>();
  const warnings: string[] = [];
  for (const event of events) {
    if (warned.has(event.event_type)) continue;
    warned.add(event.event_type);
    const closest = closestKnownType(event.event_type);
    if (closest === undefined) continue;
    warnings.push(unknownTypeWarning(event.event_type, event.seq, closest));
  }
  return warnings;
}

/**
 * A warning for each `outcome.explained` of the batch that produces no causal edge, naming why
 * (the request would otherwise be ignored silently), and for each whose evidence does
 * not cite an event of this session as sealed.
 */
export function ignoredExplanationWarnings(records: readonly EventRecord[], citedHash: (seq: number) => string | undefined): string[] {
  const warnings: string[] = [];
  for (const record of records) {
    if (record.type !== outcomeExplainedEventType) continue;
    const problem = outcomeExplainedProblem(record);
    if (problem !== undefined) {
      warnings.push(`outcome.explained at seq ${record.seq} produced no causal edge: ${problem} (zaxy help causal; docs/causal.md)`);
      continue;
    }
    const evidence = object(record.payload.get("evidence"))!;
    const seq = integer(evidence.get("source_event_seq"))!;
    const hash = eventHash(evidence.get("source_event_hash"))!.replace(/^sha256:/, "");
    const actual = seq < record.seq ? citedHash(seq)?.replace(/^sha256:/, "") : undefined;
    if (actual !== hash) {
      warnings.push(`outcome.explained at seq ${record.seq} cites evidence seq ${seq} with hash ${hash.slice(0, 12)}..., which is not ${seq < record.seq ? `that event's hash (${actual?.slice(0, 12) ?? "?"}...)` : "an earlier event of this session"}; the causal edge was recorded citing it as given`);
    }
  }
  return warnings;
}

export async function recordEvents(root: string, sessionId: string, items: AppendItem[], options: AppendOptions = {}): Promise<RecordResult> {
  const appended = await appendEvents(root, sessionId, items, options);
  const explanations = appended.records.filter((record) => record.type === outcomeExplainedEventType);
  const citedHash = explanations.length === 0 ? () => undefined : citedHashes(appended.logPath, explanations);
  const result = { ...appended, warnings: [...appended.warnings, ...unknownTypeWarnings(appended.events), ...ignoredExplanationWarnings(explanations, citedHash)] };
  const derived: AppendItem[] = result.records.flatMap(generatedEvents).map((event) => ({
    type: event.type,
    actor: event.actor,
    payload: fromJs(event.payload),
  }));
  if (derived.length === 0) return { ...result, generated: [] };
  const more = await appendEvents(root, sessionId, derived, { clock: options.clock, lockWaitMs: options.lockWaitMs });
  return { ...result, warnings: [...result.warnings, ...more.warnings], generated: more.events };
}
