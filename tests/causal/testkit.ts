/**
 * Helpers for the causal tests (not a test file): a session written through the real appender
 * and producers (`recordEvents`), and its causal edges from the same fold the projection uses,
 * in memory (no Kuzu), so traversal rules can be checked quickly.
 */
import * as path from "node:path";
import { fromJs } from "../../src/canonical/mod.ts";
import { causalEdges } from "../../src/causal/mod.ts";
import type { AppendedEvent } from "../../src/eventloom/append.ts";
import { readEvents } from "../../src/eventloom/replay.ts";
import { recordEvents } from "../../src/recording/record.ts";
import { extractEvent } from "../../src/projection/extract/mod.ts";
import { GraphFold } from "../../src/projection/graphFold.ts";

export type Ref = { name: string; entity_type: string };

export const ref = (name: string, entityType: string): Ref => ({ name, entity_type: entityType });

/** A session under `root` that records events the way every front door does. */
export class CausalSession {
  private tick = 0;
  constructor(readonly root: string, readonly sessionId = "default") {}

  private clock = () => Date.UTC(2025, 0, 1) * 1000 + (this.tick++) * 1_000_000;

  async record(type: string, payload: Record<string, unknown>, actor = "agent") {
    return await recordEvents(this.root, this.sessionId, [{ type, actor, payload: fromJs(payload) }], { clock: this.clock });
  }

  /** An observation to cite, as `{source_event_seq, source_event_hash}`. */
  async evidence(summary: string): Promise<{ source_event_seq: number; source_event_hash: string }> {
    const { events } = await this.record("observation.recorded", { summary });
    return { source_event_seq: events[0].seq, source_event_hash: events[0].hash };
  }

  /** Appends a cited `outcome.explained`; returns the generated `causal.edge.generated`. */
  async explain(cause: Ref, effect: Ref, relation = "caused", confidence = 0.8): Promise<AppendedEvent> {
    const evidence = await this.evidence(`${cause.name} ${relation} ${effect.name}`);
    const result = await this.record("outcome.explained", { cause, effect, relation_type: relation, confidence, evidence });
    if (result.generated.length !== 1) throw new Error(`expected one causal edge, got ${result.generated.length}`);
    return result.generated[0];
  }

  /** Retracts a causal edge the way an agent does: `inference.edge.contradicted`. */
  async contradict(cause: Ref, effect: Ref, relation: string, original: AppendedEvent): Promise<void> {
    await this.record("inference.edge.contradicted", {
      source: cause,
      target: effect,
      relation_type: `causal_${relation}`,
      valid_from: "2025-01-01T00:00:00Z",
      original_event_seq: original.seq,
      original_event_hash: original.hash,
      reason: "contradicted by later evidence",
    });
  }

  logPath(): string {
    return path.join(this.root, `${this.sessionId}.jsonl`);
  }

  /** The session's causal edges at its head, folded in memory. */
  edges() {
    const { events } = readEvents(this.logPath());
    const fold = new GraphFold(this.sessionId);
    for (const event of events) fold.apply(event, extractEvent(event));
    return causalEdges(this.sessionId, fold.rows(), events);
  }
}
