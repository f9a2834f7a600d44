/**
 * The two test lanes. `npm test` runs the quick lane: every test file under tests/ except those
 * marked `// test-lane: full` among their leading `//` lines. `npm run test:all` and `.ci/run` run
 * every file, under Bun and under Deno. A file is marked when it is slow (seconds, not
 * milliseconds, on a shared 2-core machine) or needs what a fresh clone lacks or what costs many
 * processes: a PostgreSQL server, kill -9 fault injection, concurrent spawns, large generated
 * logs, bench commands. tests/meta/test_lanes_test.ts keeps the marking honest with `fullLaneReasons`.
 */
import * as fs from "node:fs";
import * as path from "node:path";

export const laneMarker = "// test-lane: full";

export type Lane = "quick" | "full";

/** Every `*_test.ts` under `dir`, as paths relative to `root` with forward slashes, sorted. */
export function testFiles(root: string, dir = "tests"): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const relative = `${dir}/${entry.name}`;
    if (entry.isDirectory()) out.push(...testFiles(root, relative));
    else if (entry.name.endsWith("_test.ts")) out.push(relative);
  }
  return out.sort();
}

/**
 * Whether the marker is one of the file's leading `//` lines: the first line stays free for
 * `// deno-test: own-process`, which scripts/deno-test.sh requires there.
 */
export function isMarkedFull(text: string): boolean {
  for (const line of text.split("\n")) {
    if (!line.startsWith("//")) return false;
    if (line.startsWith(laneMarker)) return true;
  }
  return false;
}

/** The files of a lane: the full lane has them all, the quick lane the unmarked ones. */
export function laneFiles(root: string, lane: Lane): string[] {
  const all = testFiles(root);
  if (lane === "full") return all;
  return all.filter((file) => !isMarkedFull(fs.readFileSync(path.join(root, file), "utf8")));
}

/** Smallest event count that makes a generated log "large". */
export const largeLogEvents = 10_000;

/**
 * Why a test file's text says it belongs to the full lane (empty when nothing in it does). These
 * are the costs a reader can see in the source; a file slow for other reasons is marked by hand.
 */
export function fullLaneReasons(text: string): string[] {
  const reasons: string[] = [];
  if (/ZAXY_TEST_PG_URL|pgTestkit/.test(text)) reasons.push("PostgreSQL server");
  if (/SIGKILL|kill -9|"-9"/.test(text)) reasons.push("kill -9");
  if (/runZaxyAsync|runProcess\(/.test(text) && text.includes("Promise.all")) reasons.push("concurrent processes");
  const eventCounts = text.matchAll(/(?:\b[A-Za-z]*[Ee]vents\s*[:=]\s*|"--events",\s*")([0-9][0-9_]*)/g);
  if ([...eventCounts].some((m) => Number(m[1].replaceAll("_", "")) >= largeLogEvents)) {
    reasons.push(`log of ${largeLogEvents}+ events`);
  }
  if (/\[\s*"bench"\s*,/.test(text)) reasons.push("bench command");
  return reasons;
}
