/**
 * A real PostgreSQL server for the store tests (not a test file itself). `ZAXY_TEST_PG_URL`
 * (set by .ci/run, which starts a throwaway cluster) names a server whose role may create
 * databases; without it, a private cluster is started with scripts/pg-cluster.sh into a temp
 * dir for this test file and stopped at its end. Only when no server programs exist are the
 * tests skipped, with a visible message.
 *
 * Every test gets a database of its own (`freshDatabase`), so tests never see each other's rows.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import postgres from "postgres";
import { repoRoot } from "../cli/zaxy.ts";

const clusterScript = path.join(repoRoot, "scripts", "pg-cluster.sh");

export interface PgServer {
  /** URL of the server's maintenance database, with credentials. */
  adminUrl: string;
  /** A private cluster's directory (stop it with `stopPgServer`), or undefined for CI's shared one. */
  clusterDir?: string;
}

/** Whether PostgreSQL's server programs can be found (else the store tests skip). */
export function serverProgramsExist(): boolean {
  return spawnSync("sh", ["-c", "command -v pg_ctl >/dev/null && command -v initdb >/dev/null || [ -x \"$(pg_config --bindir 2>/dev/null)/pg_ctl\" ]"]).status === 0;
}

/**
 * Starts a private cluster (scripts/pg-cluster.sh); its URL has a password and SCRAM on TCP.
 * `env` adds variables for the script (PG_CLUSTER_SSL) without setting them in this process, which
 * other test files share when they run in parallel in one process (deno test --parallel).
 */
export function startPrivateCluster(label = "zaxy-pg", env: Record<string, string> = {}): PgServer {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `${label}-`));
  const run = spawnSync(clusterScript, ["start", dir], { encoding: "utf8", timeout: 120_000, env: { ...process.env, ...env } });
  if (run.status !== 0) throw new Error(`pg-cluster.sh start failed (${run.status}): ${run.stderr}`);
  return { adminUrl: run.stdout.trim(), clusterDir: dir };
}

export function stopPgServer(server: PgServer | undefined): void {
  if (server?.clusterDir === undefined) return;
  spawnSync(clusterScript, ["stop", server.clusterDir], { timeout: 120_000 });
  fs.rmSync(server.clusterDir, { recursive: true, force: true });
}

/** CI's server, or a private one; undefined (skip) only when there are no server programs. */
export function pgServer(): PgServer | undefined {
  const url = process.env.ZAXY_TEST_PG_URL;
  if (url !== undefined && url !== "") return { adminUrl: url };
  if (!serverProgramsExist()) {
    console.warn("SKIPPED: store tests need PostgreSQL server programs (initdb, pg_ctl); none on PATH or in pg_config --bindir");
    return undefined;
  }
  return startPrivateCluster();
}

/** The URL with its database replaced. */
export function withDatabase(url: string, database: string): string {
  return url.replace(/\/[^/?]*(\?.*)?$/, (_match, query: string | undefined) => `/${database}${query ?? ""}`);
}

/** Runs SQL on `url` with a short-lived client. */
export async function sqlOn<T = postgres.Row[]>(url: string, work: (sql: postgres.Sql) => Promise<T>): Promise<T> {
  const sql = postgres(url, { max: 1, onnotice: () => {}, fetch_types: false, connect_timeout: 20 });
  try {
    return await work(sql);
  } finally {
    await sql.end({ timeout: 5 });
  }
}

let databases = 0;

/** A new empty database on the server; returns its URL. */
export async function freshDatabase(server: PgServer, label = "t"): Promise<string> {
  const name = `zaxy_${label}_${process.pid}_${Date.now().toString(36)}_${databases++}`.toLowerCase().replace(/[^a-z0-9_]/g, "_");
  await sqlOn(server.adminUrl, (sql) => sql.unsafe(`CREATE DATABASE ${name}`));
  return withDatabase(server.adminUrl, name);
}

/** The password in a URL, to assert it never appears in output. */
export function passwordOf(url: string): string {
  const match = /^postgres(?:ql)?:\/\/[^:@/]*:([^@]*)@/.exec(url);
  return match === null ? "" : decodeURIComponent(match[1]);
}
