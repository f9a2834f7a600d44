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
import { randomBytes } from "node:crypto";
import { checkError, ioError, isZaxyError, type ZaxyError } from "../errors.ts";
import { readLogLines } from "../eventloom/lines.ts";
import { sessionLogPath, validateSessionId } from "../eventloom/root.ts";
import type { StagedLines, ThreadStore } from "../eventloom/threadStore.ts";
import { lockFile } from "../platform/mod.ts";
import { headRowOf, headRowProblem } from "./headRow.ts";
import { type CaughtUp, catchUpThread, mirrorCount, saveMirrorCount } from "./mirror.ts";
import { requestsSchemaVersion, schemaOutdatedError } from "./schema.ts";
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

/**
 * The rows of one statement of the append's opening round trip: the head row (`seq`, `hash`) or
 * the request record (`first_seq`, `events`); every column is checked where it is read.
 */
type StatementRows = { seq?: unknown; hash?: unknown; first_seq?: unknown; events?: unknown }[];

/** Error codes of a failure that may have come after the server committed (connection lost, no answer). */
const outcomeUnknownCodes = new Set(["store_unreachable", "store_timeout", "store_tls_failed"]);

/** Who is appending: the request id every append of this process records (docs/store.md). */
export interface AppendRequest {
  /** Client-supplied (`--request-id`) or generated (`req_` and 32 hex). */
  id: string;
}

/**
 * The ThreadStore a mirror root is bound to: appends commit to the store first. Every committed
 * append records `(thread, request id, batch)` in `eventloom_requests` in its own transaction,
 * `batch` counting this process's appends to the thread; an append whose record is already
 * there (a retry of a command whose acknowledgement was lost) commits nothing and reports the
 * events the first attempt wrote.
 */
export function storeThreadStore(client: StoreClient, mirrorRoot: string, schemaVersion: number, request: AppendRequest): ThreadStore {
  const batches = new Map<string, number>();
  return {
    async appendLocked<T>(sessionId: string, lockWaitMs: number, body: Parameters<ThreadStore["appendLocked"]>[2]): Promise<T> {
      const logPath = sessionLogPath(mirrorRoot, sessionId, "append to");
      if (schemaVersion < requestsSchemaVersion) throw schemaOutdatedError(client.url, schemaVersion);
      const batch = (batches.get(sessionId) ?? 0) + 1;
      batches.set(sessionId, batch);
      let lock: { release(): void } | undefined;
      let fd: number | undefined;
      let staged: StagedLines | undefined;
      let linesBefore = 0;
      let warnings: string[] = [];
      // Set once the transaction's work is done and only COMMIT remains: a connection lost from
      // here on leaves the outcome unknown (the server may have committed before it went).
      let commitSent = false;
      const action = `append to session ${JSON.stringify(sessionId)}`;
      try {
        const result = await client.run(action, (sql) =>
          sql.begin(async (tx) => {
            // One round trip: the lock timeout, the thread's head row (created on first use) and
            // its row lock, and this append's request record if a first attempt committed it.
            // The thread is a validated session id and the request id is checked by
            // requestIdProblem, so both can be written inline.
            const results = await tx.unsafe<StatementRows[]>(
              `SET LOCAL lock_timeout = '${Math.max(1, Math.floor(lockWaitMs))}ms'; ` +
                `INSERT INTO eventloom_heads (thread, seq) VALUES ('${sessionId}', 0) ON CONFLICT (thread) DO NOTHING; ` +
                `SELECT seq, hash FROM eventloom_heads WHERE thread = '${sessionId}' FOR UPDATE; ` +
                `SELECT first_seq, events FROM eventloom_requests WHERE thread = '${sessionId}' AND request_id = '${request.id}' AND batch = ${batch}`,
            );
            // The client leaves out some results of statements without rows: the last two are the SELECTs.
            const heads = results[results.length - 2];
            const prior = results[results.length - 1];
            lock = await lockMirror(logPath, lockWaitMs, sessionId);
            const caught = await catchUpThread(tx, sessionId, logPath, { audit: false });
            // Under the head row's lock the rows and the head row must agree exactly: a thread
            // whose last row was deleted, or whose head row was moved, is refused, not extended.
            const problem = headRowProblem(sessionId, headRowOf(heads[0]), caught.lines, caught.lastHash);
            if (problem !== undefined) throw problem;
            linesBefore = caught.lines;
            warnings = caught.warnings;
            fd = fs.openSync(logPath, "a+");
            const size = fs.fstatSync(fd).size;
            const done = prior[0];
            if (done !== undefined) {
              const firstSeq = Number(String(done.first_seq));
              const events = Number(String(done.events));
              const committed = committedLines(logPath, sessionId, firstSeq, events, caught.lines);
              warnings.push(`request ${request.id} already appended these events to session ${JSON.stringify(sessionId)} as seq ${firstSeq}${events > 1 ? `-${firstSeq + events - 1}` : ""}; they were not appended again`);
              return (await body({ fd, size, logPath, warnings, committed: { firstSeq, lines: committed } }, () => {
                throw new Error("a replayed append must not stage lines");
              })) as T;
            }
            const value = await body({ fd, size, logPath, warnings }, (lines) => {
              staged = lines;
            });
            if (staged !== undefined) {
              const rows = staged.lines.map((line, index) => ({ thread: sessionId, seq: linesBefore + index + 1, line }));
              for (let start = 0; start < rows.length; start += insertRows) {
                await tx`INSERT INTO eventloom_events ${tx(rows.slice(start, start + insertRows), "thread", "seq", "line")}`;
              }
              // The request record and the head row move in one statement (one round trip).
              await tx`
                WITH request AS (
                  INSERT INTO eventloom_requests (thread, request_id, batch, first_seq, events)
                  VALUES (${sessionId}, ${request.id}, ${batch}, ${linesBefore + 1}, ${rows.length})
                )
                UPDATE eventloom_heads SET seq = ${linesBefore + rows.length}, hash = ${staged.hashAfter}, updated_at = now() WHERE thread = ${sessionId}`;
              commitSent = true;
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
      } catch (error) {
        if (commitSent && isZaxyError(error) && outcomeUnknownCodes.has(error.code)) throw outcomeUnknown(client, sessionId, request, error);
        throw error;
      } finally {
        if (fd !== undefined) fs.closeSync(fd);
        lock?.release();
      }
    },
  };
}

/**
 * The failure of an append whose COMMIT was sent but never acknowledged (exit 3): the server
 * may or may not have committed it. Says how to find out, and how to retry without writing the
 * events twice.
 */
function outcomeUnknown(client: StoreClient, sessionId: string, request: AppendRequest, cause: ZaxyError): ZaxyError {
  const reason = cause.code === "store_timeout" ? "no answer within ZAXY_STORE_TIMEOUT_MS" : (/\(([^()]*)\)[^()]*$/.exec(cause.message)?.[1] ?? cause.code);
  return ioError(
    "store_outcome_unknown",
    `Cannot tell whether the append to session ${JSON.stringify(sessionId)} was committed: the connection to the store ${client.url.redacted} was lost after COMMIT was sent, before the server's answer arrived (${reason}). ` +
      `The events are either all in the store or not at all. To retry safely, run the same command again with --request-id ${request.id}: the store then appends them only if this attempt did not.`,
    {
      field: "store",
      hint: `\`zaxy memory log --session-id ${sessionId} --store URL\` shows whether they are there; a retry without --request-id ${request.id} may append them a second time`,
    },
  );
}

/** The `events` lines from `firstSeq` of the caught-up mirror: what a first attempt committed. */
function committedLines(logPath: string, thread: string, firstSeq: number, events: number, lines: number): Uint8Array[] {
  if (firstSeq < 1 || events < 1 || firstSeq + events - 1 > lines) {
    throw checkError("integrity_failure", `Session ${JSON.stringify(thread)} in the store records a committed append of events ${firstSeq} to ${firstSeq + events - 1}, but holds ${lines} events`, {
      field: "store",
      hint: `check the store with \`zaxy verify --store URL --session-id ${thread}\``,
    });
  }
  const out: Uint8Array[] = [];
  for (const { bytes, position } of readLogLines(logPath)) {
    if (position >= firstSeq) out.push(Buffer.from(bytes));
    if (position >= firstSeq + events - 1) break;
  }
  return out;
}

/** A request id a user may supply: 1-128 of A-Z a-z 0-9 . _ : - (it is written inline in SQL). */
const requestIdPattern = /^[A-Za-z0-9._:-]{1,128}$/;

/** Why `id` cannot be a request id, or undefined when it can. */
export function requestIdProblem(id: string): string | undefined {
  return requestIdPattern.test(id) ? undefined : `request ids are 1-128 of A-Z a-z 0-9 . _ : -, got ${JSON.stringify(id.length > 140 ? `${id.slice(0, 140)}...` : id)}`;
}

/** A fresh request id: `req_` and 32 hex (128 random bits). */
export function generatedRequestId(): string {
  return `req_${randomBytes(16).toString("hex")}`;
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
    const action = `read session ${JSON.stringify(thread)} from the store`;
    if (audit && headSeq === 0 && !fs.existsSync(logPath)) {
      // Nothing to read, unless rows were left without their head row (or its head row reset):
      // then the catch-up below refuses the thread.
      const any = await client.run(action, (sql) => sql`SELECT seq FROM eventloom_events WHERE thread = ${thread} ORDER BY seq LIMIT 1`);
      if (any.length === 0) continue;
    }
    report.threads++;
    const lock = await lockMirror(logPath, lockWaitMs, thread);
    try {
      const caught = await client.run(action, (sql) => catchUpChecked(sql, thread, logPath, audit));
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

/**
 * Catches the mirror up with the thread's rows; an audited thread's head row, read in one
 * statement with its highest seq, must then name exactly the rows (src/store/headRow.ts): rows
 * and their head row always move together in one commit.
 */
async function catchUpChecked(sql: StoreClient["sql"], thread: string, logPath: string, audit: boolean): Promise<CaughtUp> {
  const caught = await catchUpThread(sql, thread, logPath, { audit, prefetch: true });
  if (caught.head !== undefined) {
    const problem = headRowProblem(thread, caught.head ?? undefined, caught.lines, caught.lastHash);
    if (problem !== undefined) throw problem;
  }
  return caught;
}
