/**
 * Writes a sealed legacy log directly, line by line, the way an older zaxy or another writer may
 * have left it: the chain is valid whatever the events hold, so a test can check that readers and
 * `verify` accept a log carrying events the append paths now refuse (reserved payload keys,
 * governance types, duplicate-key lines, invisible characters).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { fromJs } from "../../src/canonical/mod.ts";
import { sealLegacy } from "../../src/eventloom/envelope.ts";
import { formatTimestamp } from "../../src/eventloom/timestamp.ts";

export interface FixtureEvent {
  type: string;
  actor: string;
  payload: Record<string, unknown>;
}

/** Writes `<root>/<sessionId>.jsonl` holding `events` as one valid chain; returns the hashes. */
export function writeSealedLog(root: string, sessionId: string, events: readonly FixtureEvent[]): string[] {
  fs.mkdirSync(root, { recursive: true });
  const lines: string[] = [];
  const hashes: string[] = [];
  let prevHash: string | null = null;
  events.forEach((event, index) => {
    const sealed = sealLegacy({
      seq: index + 1,
      timestamp: formatTimestamp(1_767_225_600_000_000 + index * 1_000_000),
      type: event.type,
      actor: event.actor,
      thread: sessionId,
      payload: fromJs(event.payload) as Map<string, never>,
      security: { sensitivity: "public", redacted_paths: [] },
      prevHash,
    });
    lines.push(sealed.line);
    hashes.push(sealed.hash);
    prevHash = sealed.hash;
  });
  fs.writeFileSync(path.join(root, `${sessionId}.jsonl`), lines.join("\n") + "\n");
  return hashes;
}
