/**
 * `zaxy reproject` of a large session builds the vector index on a worker thread while the read
 * model is written (src/projection/vectorIndexBuild.ts). What a user would notice if it were
 * wrong: a vector index, read model or side file that differs from the one-thread build, a
 * scratch or temp file left in the projections, or a report that is not ok. The worker is forced
 * on a small session through `runReproject`'s options.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import type { CommandContext } from "../../src/cli/command.ts";
import { runReproject } from "../../src/cli/commands/reprojectRun.ts";
import { mixedSessionItems, writeMixedSession } from "../../src/bench/mixedSession.ts";
import { inlineCharsMax } from "../../src/projection/scratchTexts.ts";
import { readModelRows } from "../../src/readmodel/readModelRows.ts";
import type { SessionGraphRows } from "../../src/projection/types.ts";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";

after(removeTempDirs);

const sessionId = "s";

interface Reprojected {
  code: number;
  out: string;
  err: string;
}

/** `zaxy reproject --json` of `root`'s session, in process, with `options`. */
async function reproject(root: string, options: { vectorWorkerLogBytesMin: number }): Promise<Reprojected> {
  let out = "";
  let err = "";
  const ctx: CommandContext = {
    commandPath: "zaxy reproject",
    values: { json: true },
    positionals: [],
    global: { eventloomPath: root, localRoot: root, sessionId, sessionIdExplicit: true, json: true, quiet: true },
    io: {
      stdout: (text) => void (out += text),
      stderr: (text) => void (err += text),
      readStdin: () => Promise.resolve(new Uint8Array()),
      stdinIsTTY: false,
      stderrIsTTY: false,
      env: {},
      cwd: path.dirname(root),
    },
  };
  const code = await runReproject(ctx, options);
  return { code, out, err };
}

/** Every file under `dir` (relative path → bytes), recursively. */
function filesUnder(dir: string, under = ""): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  for (const entry of fs.readdirSync(path.join(dir, under), { withFileTypes: true })) {
    const name = path.join(under, entry.name);
    if (entry.isDirectory()) for (const [file, bytes] of filesUnder(dir, name)) files.set(file, bytes);
    else if (entry.isFile()) files.set(name, fs.readFileSync(path.join(dir, name)));
  }
  return files;
}

/**
 * A JSON file's text as far as the build decides it: without `stamp` fields (file modification
 * stamps differ by design), a manifest without its header line (which hashes them), a verified
 * checkpoint without the fields that name and authenticate its root.
 */
function withoutStamps(name: string, bytes: Buffer): string {
  let text = bytes.toString("utf8");
  if (name.endsWith("manifest.json")) text = text.slice(text.indexOf("\n") + 1);
  if (name.startsWith(`verified${path.sep}`)) text = text.replace(/"(file|checksum|mac)":("[^"]*"|null)/g, "");
  return text.replace(/"stamp":"[^"]*",?/g, "");
}

describe("reproject with the vectors on a worker", () => {
  let oneThreadRoot = "";
  let workerRoot = "";
  let oneThread: Reprojected;
  let onWorker: Reprojected;

  before(async () => {
    const cwd = makeTempDir("zaxy-vecworker");
    oneThreadRoot = path.join(cwd, "one", ".eventloom");
    workerRoot = path.join(cwd, "worker", ".eventloom");
    await writeMixedSession(oneThreadRoot, sessionId, mixedSessionItems(900, 23).items);
    // The same log and key: the authenticated derived files can be compared byte for byte.
    fs.cpSync(oneThreadRoot, workerRoot, { recursive: true });
    oneThread = await reproject(oneThreadRoot, { vectorWorkerLogBytesMin: Number.MAX_SAFE_INTEGER });
    onWorker = await reproject(workerRoot, { vectorWorkerLogBytesMin: 0 });
  });

  test("both runs succeed with no warning and report the same rows", () => {
    for (const run of [oneThread, onWorker]) {
      assert.equal(run.code, 0, run.out + run.err);
      assert.equal(run.err, "");
    }
    const [a, b] = [oneThread, onWorker].map((run) => JSON.parse(run.out).sessions[0]);
    assert.equal(a.ok, true);
    assert.equal(b.ok, true);
    assert.deepEqual([b.events, b.entity_versions, b.relations], [a.events, a.entity_versions, a.relations]);
  });

  test("the session has summaries long enough to live in the scratch file the worker reads", () => {
    const read = readModelRows(workerRoot, sessionId);
    assert.equal(read.status, "ok");
    const rows = (read as { rows: SessionGraphRows }).rows;
    assert.ok(rows.entities.filter((row) => (row.summary?.length ?? 0) > inlineCharsMax).length >= 50);
  });

  test("every file under projections is the one-thread build's, byte for byte (JSON stamps aside)", () => {
    const expected = filesUnder(path.join(oneThreadRoot, "projections"));
    const actual = filesUnder(path.join(workerRoot, "projections"));
    assert.deepEqual([...actual.keys()].sort(), [...expected.keys()].sort());
    for (const kind of [".vectors", "manifest.json", ".bin"]) assert.ok([...actual.keys()].some((name) => name.endsWith(kind)), kind);
    for (const [name, bytes] of expected) {
      const got = actual.get(name)!;
      if (name.endsWith(".json")) assert.equal(withoutStamps(name, got), withoutStamps(name, bytes), name);
      else assert.ok(got.equals(bytes), `${name} differs`);
    }
  });

  test("no scratch or temp file is left behind", () => {
    for (const name of filesUnder(path.join(workerRoot, "projections")).keys()) {
      assert.doesNotMatch(path.basename(name), /scratch|\.tmp/, name);
    }
  });
});
