/**
 * Appends and catch-up against the store (docs/store.md §Locking). An append takes the thread's
 * head row with `SELECT ... FOR UPDATE` in one transaction, brings the local copy up to the
 * store's rows under the local flock, lets the Eventloom append code decide and seal on exactly
 * that state, inserts the lines and moves the head, and commits: all or nothing. `(thread, seq)`
 * is the primary key, a second guard against two writers. The local copy is written after the
 * commit; if that fails, the next read fetches the rows again.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { ioError } from "../errors.ts";
import { sessionLogPath, validateSessionId } from "../eventloom/session.ts";
import type { StagedLines, ThreadStore } from "../eventloom/threadStore.ts";
import { lockFile } from "../platform/mod.ts";
import { catchUpThread, mirrorCount, saveMirrorCount } from "./mirror.ts";
import type { StoreClient } from "./storeClient.ts";

/** Rows per INSERT statement (3 parameters each, far below the protocol's 65,535). */
const insertRows = 5_000;

async function lockMirror(logPath: string, waitMs: number, thread: string) {
  try {
    return await lockFile(logPath, "exclusive", waitMs, true);
  } catch (error) {
    if ((error as { code?: string }).code === "lock_timeout") throw ioError("lock_timeout", `Cannot read session ${JSON.stringify(thread)}: ${(error as Error).message}`);
    throw ioError("unwritable_root", `Cannot lock the local copy of session ${JSON.stringify(thread)} (${logPath}): ${(error as Error).message}`);
  }
}

/** The ThreadStore a mirror root is bound to: appends commit to the store first. */
export function storeThreadStore(client: StoreClient, mirrorRoot: string): ThreadStore {
  return {
    async appendLocked<T>(sessionId: string, lockWaitMs: number, body: Parameters<ThreadStore["appendLocked"]>[2]): Promise<T> {
      const logPath = sessionLogPath(mirrorRoot, sessionId, "append to");
      let lock: { release(): void } | undefined;
      let fd: number | undefined;
      let staged: StagedLines | undefined;
      let linesBefore = 0;
      let warnings: string[] = [];
      try {
        const result = await client.run(`append to session ${JSON.stringify(sessionId)}`, (sql) =>
          sql.begin(async (tx) => {
            // One round trip: the lock timeout, the thread's head row (created on first use) and
            // its row lock. The thread is a validated session id, so it can be written inline.
            await tx.unsafe(
              `SET LOCAL lock_timeout = '${Math.max(1, Math.floor(lockWaitMs))}ms'; ` +
                `INSERT INTO eventloom_heads (thread, seq) VALUES ('${sessionId}', 0) ON CONFLICT (thread) DO NOTHING; ` +
                `SELECT seq FROM eventloom_heads WHERE thread = '${sessionId}' FOR UPDATE`,
            );
            lock = await lockMirror(logPath, lockWaitMs, sessionId);
            const caught = await catchUpThread(tx, sessionId, logPath, { audit: false });
            linesBefore = caught.lines;
            warnings = caught.warnings;
            fd = fs.openSync(logPath, "a+");
            const size = fs.fstatSync(fd).size;
            const value = await body({ fd, size, logPath, warnings }, (lines) => {
              staged = lines;
            });
            if (staged !== undefined) {
              const rows = staged.lines.map((line, index) => ({ thread: sessionId, seq: linesBefore + index + 1, line }));
              for (let start = 0; start < rows.length; start += insertRows) {
                await tx`INSERT INTO eventloom_events ${tx(rows.slice(start, start + insertRows), "thread", "seq", "line")}`;
              }
              await tx`UPDATE eventloom_heads SET seq = ${linesBefore + rows.length}, hash = ${staged.hashAfter}, updated_at = now() WHERE thread = ${sessionId}`;
            }
            return value as T;
          })) as T;
        const committed = staged as StagedLines | undefined;
        if (committed !== undefined) {
          try {
            committed.writeMirror();
            saveMirrorCount(logPath, { lines: linesBefore + committed.lines.length, bytes: fs.fstatSync(fd as number).size });
          } catch (error) {
            warnings.push(`the store committed the events, but this root's copy was not updated (${(error as Error).message}); the next read fetches them`);
          }
        }
        return result;
      } finally {
        if (fd !== undefined) fs.closeSync(fd);
        lock?.release();
      }
    },
  };
}

export interface SyncReport {
  threads: number;
  fetched: number;
  warnings: string[];
}

/**
 * Brings local copies up to the store's heads: the `audited` threads (the ones the command
 * reads), with the full prefix check, and with `everyThread` every other thread too (fleet
 * commands and a fleet-enabled root read other sessions). A failure in an audited thread
 * throws; in any other thread it is a warning and leaves that copy as it was.
 */
export async function syncMirror(client: StoreClient, mirrorRoot: string, audited: readonly string[], lockWaitMs: number, options: { auditPrefix?: string; everyThread?: boolean } = {}): Promise<SyncReport> {
  const auditPrefix = options.auditPrefix;
  const heads = options.everyThread === true
    ? await client.run("read the store's threads", (sql) => sql`SELECT thread, seq FROM eventloom_heads ORDER BY thread`)
    : await client.run("read the store's threads", (sql) => sql`SELECT thread, seq FROM eventloom_heads WHERE thread IN ${sql(audited.length > 0 ? [...audited] : [""])} ORDER BY thread`);
  const wanted = new Map<string, number>();
  for (const head of heads) wanted.set(head.thread as string, Number(head.seq));
  for (const thread of audited) {
    try {
      validateSessionId(thread);
      if (!wanted.has(thread)) wanted.set(thread, 0);
    } catch {
      // The command reports a bad session id itself.
    }
  }
  const report: SyncReport = { threads: 0, fetched: 0, warnings: [] };
  const auditedSet = new Set(audited);
  for (const [thread, headSeq] of wanted) {
    try {
      validateSessionId(thread, "mirror");
    } catch {
      report.warnings.push(`the store has a thread named ${JSON.stringify(thread)}, which is not a valid session id; it is not mirrored`);
      continue;
    }
    const logPath = path.join(mirrorRoot, `${thread}.jsonl`);
    const audit = auditedSet.has(thread) || (auditPrefix !== undefined && thread.startsWith(auditPrefix));
    if (!audit && mirrorCount(logPath).lines === headSeq) continue;
    if (audit && headSeq === 0 && !fs.existsSync(logPath)) continue;
    report.threads++;
    const lock = await lockMirror(logPath, lockWaitMs, thread);
    try {
      const caught = await client.run(`read session ${JSON.stringify(thread)} from the store`, (sql) => catchUpThread(sql, thread, logPath, { audit, prefetch: true }));
      report.fetched += caught.fetched;
      report.warnings.push(...caught.warnings);
    } catch (error) {
      if (audit || (error as { exitCode?: number }).exitCode === 3) throw error;
      report.warnings.push(`session ${JSON.stringify(thread)} was not brought up to date: ${(error as Error).message}`);
    } finally {
      lock.release();
    }
  }
  return report;
}
