/**
 * What the pre-commit hook checks of one staged Eventloom log (`zaxy hooks check`, docs/hooks.md):
 *
 * 1. It verifies: every hash recomputed, the chain unbroken, no torn tail.
 * 2. It keeps what the last commit has: each event of the committed version is at the same seq
 *    with the same hash. An append-only log passes (it only grows), and so does a lossless
 *    `zaxy compact` rewrite (it keeps every event and hash); a truncated or edited history, or a
 *    compaction artifact copied over the log, does not.
 * 3. With `hook_strictness: audit` only: its compaction audit keeps at least
 *    `hook_recall_threshold` of its identities.
 *
 * Each refusal says what is wrong and what to do about it.
 */
import { auditLog } from "../compaction/audit.ts";
import { storedEventHash } from "../eventloom/envelope.ts";
import { readLogLines } from "../eventloom/lines.ts";
import { verifyLog } from "../eventloom/verify.ts";
import type { HookPolicy } from "./hookPolicy.ts";

export interface StagedLogCheck {
  /** The path in the repository (what git shows). */
  path: string;
  ok: boolean;
  events: number;
  /** Events of the committed version (null: the path is new in this commit). */
  committed_events: number | null;
  strictness: HookPolicy["strictness"];
  /** Identity recall of the compaction audit (audit strictness only). */
  identity_recall?: number | null;
  /** `integrity` | `history_rewritten` | `unsafe_audit`, when refused. */
  problem?: "integrity" | "history_rewritten" | "unsafe_audit";
  message?: string;
  fix?: string;
}

/** The hashes of a log's events in order (a line that is not an event has none). */
function eventHashes(file: string): Array<string | undefined> {
  const hashes: Array<string | undefined> = [];
  for (const { bytes } of readLogLines(file)) hashes.push(storedEventHash(bytes));
  return hashes;
}

/** `n event` or `n events`. */
function eventCount(n: number): string {
  return `${n} ${n === 1 ? "event" : "events"}`;
}

/**
 * What a staged log that is shorter than the committed one lost, in words that fit a range of
 * one event too ("event 6 was dropped", not "events 6 to 6").
 *
 * @example
 * droppedEventsText(3, 6) // "it has 3 events, the last commit has 6: events 4 to 6 were dropped"
 * droppedEventsText(5, 6) // "it has 5 events, the last commit has 6: event 6 was dropped"
 */
export function droppedEventsText(stagedCount: number, committedCount: number): string {
  const firstDroppedSeq = stagedCount + 1;
  const dropped = firstDroppedSeq === committedCount ? `event ${committedCount} was dropped` : `events ${firstDroppedSeq} to ${committedCount} were dropped`;
  return `it has ${eventCount(stagedCount)}, the last commit has ${committedCount}: ${dropped}`;
}

export async function checkStagedLog(options: { staged: string; committed?: string; path: string; policy: HookPolicy }): Promise<StagedLogCheck> {
  const { staged, committed, path, policy } = options;
  const report = await verifyLog(staged);
  const base: StagedLogCheck = { path, ok: true, events: report.total_events, committed_events: null, strictness: policy.strictness };
  if (!report.ok) {
    return {
      ...base,
      ok: false,
      problem: "integrity",
      message: `${path} does not verify: ${report.broken_reason} (seq ${report.broken_at_seq}, line ${report.line})`,
      fix: report.torn_tail
        ? `the last line was cut mid-write: run \`zaxy repair --truncate-torn-tail ${path}\`, then stage it again`
        : `an Eventloom log is never edited by hand: restore it (\`git checkout HEAD -- ${path}\`, or from a backup) and append again; \`zaxy verify ${path} --all-errors\` lists every broken event`,
    };
  }
  if (committed !== undefined) {
    const before = eventHashes(committed);
    const after = eventHashes(staged);
    base.committed_events = before.length;
    const changedAt = before.findIndex((hash, i) => i < after.length && after[i] !== hash);
    if (changedAt !== -1 || after.length < before.length) {
      const seq = changedAt === -1 ? after.length + 1 : changedAt + 1;
      const what = changedAt === -1
        ? droppedEventsText(after.length, before.length)
        : `event ${seq} is not the committed one (hash ${before[changedAt]?.slice(0, 12) ?? "?"}... replaced by ${after[changedAt]?.slice(0, 12) ?? "?"}...)`;
      return {
        ...base,
        ok: false,
        problem: "history_rewritten",
        message: `${path} rewrites committed history: ${what}`,
        fix: `an Eventloom log only grows: restore the committed events (\`git checkout HEAD -- ${path}\`) and append the new ones; to compact, write a separate artifact with \`zaxy compact LOG --projection-output FILE\` and keep the log (a \`zaxy compact\` rewrite keeps every event and passes)`,
      };
    }
  }
  if (policy.strictness === "audit") {
    const audit = await auditLog(staged);
    const recall = audit.identity_recall;
    if (!audit.safe && (recall === null || recall < policy.recallThreshold)) {
      return {
        ...base,
        ok: false,
        identity_recall: recall,
        problem: "unsafe_audit",
        message: `${path}: a compaction with one representative per cluster would keep ${recall === null ? "no measurable share" : `${(recall * 100).toFixed(1)} %`} of its identities (hook_recall_threshold ${policy.recallThreshold}); missing: ${audit.missing_identities.slice(0, 5).join(", ")}${audit.missing_identities.length > 5 ? ", ..." : ""}`,
        fix: "this commit loses nothing (the log is append-only); the audit warns about compacting it later. Commit anyway with `zaxy config set hook_strictness integrity` (the default), or lower `hook_recall_threshold`; `zaxy compact LOG --audit` prints the full report",
      };
    }
    return { ...base, identity_recall: recall };
  }
  return base;
}
