/**
 * A session's graph rows folded in memory from its verified log, without the store: what a read
 * answers from when the graph store cannot be opened (a read-only TMPDIR, a lock held past the
 * wait). The fold is the projection's own (graphFold.ts), so the rows and their validity windows
 * are the ones a working store would hold: a superseded preference is closed here too.
 *
 * @example
 * const rows = foldLogRows("default", events);
 * rows.entities.filter((entity) => entity.validTo === null); // current facts only
 */
import type { EventRecord } from "../eventloom/envelope.ts";
import { extractEvent } from "./extract/mod.ts";
import { GraphFold } from "./graphFold.ts";
import type { SessionGraphRows } from "./types.ts";

export function foldLogRows(sessionId: string, events: readonly EventRecord[]): SessionGraphRows {
  const fold = new GraphFold(sessionId);
  for (const event of events) fold.apply(event, extractEvent(event));
  return fold.rows();
}
