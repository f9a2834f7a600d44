/**
 * The text rendering of events shared by `zaxy memory log` and `zaxy replay`, so both read the
 * same: one row per event, `seq  timestamp  type  actor  payload`, columns aligned (seq on the
 * right), seq dimmed and type in cyan on a terminal. An event replay could not verify ends with
 * `  UNVERIFIED` (in red on a terminal), after its payload, so the columns stay aligned.
 *
 * @example
 * eventTableLines([{ seq: 9, timestamp: "2026-01-01T00:00:00Z", type: "goal.created", actor: "a", payload: new Map() }], io)
 * // ['9  2026-01-01T00:00:00Z  goal.created  a  {}']
 */
import { displayJson, type JsonValue } from "../canonical/mod.ts";
import type { CommandIo } from "./command.ts";
import { paint, textTable } from "./textTable.ts";

/** What a row shows: the fields of `eventView` it prints, and whether the chain vouches for it. */
export interface EventRow {
  seq: number;
  timestamp: string;
  type: string;
  actor: string;
  payload: JsonValue;
  /** False only for an event past a broken link (replay); absent counts as verified. */
  verified?: boolean;
}

const unverifiedMark = "UNVERIFIED";

/** One aligned line per event; colour only where `io` allows it (textTable.ts). */
export function eventTableLines(events: readonly EventRow[], io: Pick<CommandIo, "stdoutIsTTY" | "env">): string[] {
  const colour = paint(io);
  const lines = textTable(events.map((e) => [String(e.seq), e.timestamp, e.type, e.actor, displayJson(e.payload)]), {
    alignRight: [0],
    colour: (column, cell) => (column === 0 ? colour("dim", cell) : column === 2 ? colour("cyan", cell) : cell),
  });
  return lines.map((line, index) => (events[index].verified === false ? `${line}  ${colour("red", unverifiedMark)}` : line));
}
