/**
 * Helpers for the compaction projection tests (not a test file itself): real logs appended
 * through the Eventloom appender, read back as records.
 */
import * as path from "node:path";
import { fromJs } from "../../src/canonical/mod.ts";
import { readEvents } from "../../src/eventloom/mod.ts";
import { appendEvents } from "../../src/events/append.ts";
import type { EventRecord } from "../../src/eventloom/envelope.ts";

export interface LogSpec {
  type: string;
  actor?: string;
  payload: Record<string, unknown>;
}

/** Appends `specs` to `<root>/<session>.jsonl`; returns the log path and the sealed records. */
export async function writeLog(root: string, specs: LogSpec[], session = "default"): Promise<{ logPath: string; events: EventRecord[] }> {
  await appendEvents(root, session, specs.map((spec) => ({ type: spec.type, actor: spec.actor ?? "indexer", payload: fromJs(spec.payload) })));
  const logPath = path.join(root, `${session}.jsonl`);
  return { logPath, events: readEvents(logPath).events };
}

/** `count` near-duplicate documents that differ only by identity code and path. */
export function nearDuplicateDocs(count: number, prefix = "docs/service"): LogSpec[] {
  return Array.from({ length: count }, (_, idx) => ({
    type: "document.indexed",
    payload: {
      path: `${prefix}-${String(idx).padStart(4, "0")}.md`,
      start_line: 1,
      end_line: 5,
      content: `Migration rollback readiness note records identity-code-${String(idx).padStart(4, "0")} for release coordination.`,
    },
  }));
}
