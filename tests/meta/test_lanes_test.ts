/**
 * `npm test` runs the quick lane (scripts/test-lane.ts): every test file not marked
 * `// test-lane: full`. This keeps the marking honest without timing anything: a file whose
 * source shows a cost the quick lane must not pay (a PostgreSQL server, kill -9, concurrent
 * processes, a log of 10,000+ events, a bench command) carries the marker, the marker sits where
 * the lane looks for it, the npm scripts run the lanes they are documented to, and every folder
 * of tests/ with unmarked files contributes to the quick lane.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { fullLaneReasons, isMarkedFull, laneFiles, laneMarker, testFiles } from "../../scripts/testLanes.ts";

const repoRoot = path.resolve(fileURLToPath(new URL("../../", import.meta.url)));
const read = (file: string) => fs.readFileSync(path.join(repoRoot, file), "utf8");
/** This file quotes each cost as sample text; it pays none of them. */
const thisFile = "tests/meta/test_lanes_test.ts";

describe("test-lane markers", () => {
  test("every test file whose source needs PostgreSQL, kill -9, concurrent processes, a large log or a bench command is marked for the full lane", () => {
    const unmarked = testFiles(repoRoot)
      .filter((file) => file !== thisFile && !isMarkedFull(read(file)))
      .map((file) => ({ file, reasons: fullLaneReasons(read(file)) }))
      .filter((entry) => entry.reasons.length > 0)
      .map((entry) => `${entry.file}: ${entry.reasons.join(", ")}`);
    assert.deepEqual(unmarked, [], `add "${laneMarker} (REASON)" among the first comment lines of these files`);
  });

  test("the marker appears only among a file's leading // lines, where the lane looks for it", () => {
    const markerLine = new RegExp(`^${laneMarker}`, "m");
    const misplaced = testFiles(repoRoot).filter((file) => markerLine.test(read(file)) && !isMarkedFull(read(file)));
    assert.deepEqual(misplaced, [], "move the marker up: the lane reads only the // lines that open the file");
  });

  test("the marker may follow the deno-test marker on the second line, but not code", () => {
    assert.equal(isMarkedFull(`${laneMarker} (slow)\nimport x from "y";\n`), true);
    assert.equal(isMarkedFull(`// deno-test: own-process (kuzu)\n${laneMarker} (slow)\n/**\n */\n`), true);
    assert.equal(isMarkedFull(`/**\n * doc\n */\n${laneMarker} (slow)\n`), false);
    assert.equal(isMarkedFull(`import x from "y";\n${laneMarker}\n`), false);
  });

  test("each cost is recognised, and ordinary CLI tests are not", () => {
    const cases: [string, string][] = [
      ['const url = process.env.ZAXY_TEST_PG_URL;', "PostgreSQL server"],
      ['import { pgUrl } from "./pgTestkit.ts";', "PostgreSQL server"],
      ['child.kill("SIGKILL");', "kill -9"],
      ['spawnSync("kill", ["-9", pid]);', "kill -9"],
      ["await Promise.all(ids.map((i) => runZaxyAsync(args(i), { cwd })));", "concurrent processes"],
      ["writeSyntheticLog({ path: log, events: 30_000 });", "log of 10000+ events"],
      ["const laterEvents = 10000;", "log of 10000+ events"],
      ['runZaxy(["verify", "--events", "12000"], { cwd });', "log of 10000+ events"],
      ['runZaxy(["bench", "medoid", "--count", "50"], { cwd });', "bench command"],
    ];
    for (const [source, reason] of cases) assert.deepEqual(fullLaneReasons(source), [reason], source);
    const ordinary = 'const run = runZaxy(["memory", "append", "goal.created"], { cwd });\nwriteSyntheticLog({ path: log, events: 9_999 });\nassert.equal(doc.total_events, 20000);\nconst run2 = await runZaxyAsync(["memory", "log"], { cwd });';
    assert.deepEqual(fullLaneReasons(ordinary), []);
  });
});

describe("lanes", () => {
  test("the quick lane is the unmarked files, the full lane every file", () => {
    const all = testFiles(repoRoot);
    const quick = laneFiles(repoRoot, "quick");
    assert.deepEqual(laneFiles(repoRoot, "full"), all);
    assert.deepEqual(quick, all.filter((file) => !isMarkedFull(read(file))));
    assert.ok(quick.length > 0 && quick.length < all.length, `quick ${quick.length} of ${all.length}`);
  });

  test("every folder of tests/ with unmarked test files has files in the quick lane", () => {
    const folderOf = (file: string) => file.split("/")[1];
    const quickFolders = new Set(laneFiles(repoRoot, "quick").map(folderOf));
    const foldersWithUnmarked = new Set(
      testFiles(repoRoot)
        .filter((file) => !isMarkedFull(read(file)))
        .map(folderOf),
    );
    assert.deepEqual([...foldersWithUnmarked].filter((folder) => !quickFolders.has(folder)), []);
    assert.ok(quickFolders.has("meta") && quickFolders.has("cli"), [...quickFolders].join(", "));
  });

  test("npm test runs the quick lane; npm run test:all builds and runs every file under Bun and Deno", () => {
    const scripts = JSON.parse(read("package.json")).scripts as Record<string, string>;
    assert.equal(scripts.test, "bun scripts/test-lane.ts");
    const all = scripts["test:all"] ?? "";
    for (const step of ["bun build.ts", "bun scripts/test-lane.ts full ", "scripts/deno-test.sh"]) assert.ok(all.includes(step), `test:all lacks ${step}: ${all}`);
  });

  test("CI runs every test file under Bun and under Deno, keeping the Bun JUnit report it counts", () => {
    const ci = read(".ci/run");
    assert.match(ci, /node_modules\/\.bin\/bun scripts\/test-lane\.ts full [^\n]*--junit "\$work\/bun\.xml"/);
    assert.match(ci, /scripts\/deno-test\.sh "\$work\/deno"/);
  });

  test("the recorded durations that order the parallel runs are well formed", () => {
    // bun test refuses a --timings file of another shape, which would fail every lane.
    const timings = JSON.parse(read("scripts/test-timings.json")) as { version: unknown; files: Record<string, unknown> };
    assert.equal(timings.version, 1);
    const entries = Object.entries(timings.files);
    assert.ok(entries.length > 0);
    for (const [file, ms] of entries) assert.ok(file.startsWith("tests/") && Number.isInteger(ms) && (ms as number) >= 0, `${file}: ${ms}`);
  });
});
