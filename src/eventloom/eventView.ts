/** The public JSON shape of an event in CLI and MCP output (`replay`, `memory log`). */
import { citationUri } from "./root.ts";
import type { EventRecord } from "./envelope.ts";

export interface EventView {
  seq: number;
  timestamp: string;
  type: string;
  actor: string;
  thread: string;
  payload: EventRecord["payload"];
  security: EventRecord["security"];
  prev_hash: string | null;
  hash: string;
  event_id: string | null;
  envelope: EventRecord["envelope"];
  citation: string;
}

export function eventView(record: EventRecord): EventView {
  return {
    seq: record.seq,
    timestamp: record.timestamp,
    type: record.type,
    actor: record.actor,
    thread: record.thread,
    payload: record.payload,
    security: record.security,
    prev_hash: record.prevHash,
    hash: record.hash,
    event_id: record.id,
    envelope: record.envelope,
    citation: citationUri(record.thread, record.seq, record.hash),
  };
}
