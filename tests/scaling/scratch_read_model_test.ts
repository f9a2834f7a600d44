// test-lane: full (slow)
/**
 * A read that cannot use the root's read model (it cannot be written there) answers from the same read model built in a private scratch directory
 * outside the root: the same facts, evidence and citations as a whole read, nothing of it left
 * under the root or in the temp directory, and the root's read model written again once it can be.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import { mixedSessionItems, sampleQueries, writeMixedSession } from "../../src/bench/mixedSession.ts";
import { MemoryService } from "../../src/memory/service.ts";
import { readModelDir } from "../../src/readmodel/manifest.ts";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";

const slow = { timeout: 300_000 };
const sessionId = "s";
let root = "";
let queries: string[] = [];
let whole: unknown[] = [];
let tempDir = "";
after(removeTempDirs);

function request(query: string) {
  return { sessionId, query, limit: 10, depth: 2, maxTokens: 4000, replayFromSeq: 1, maxRecentEvents: 20, semantic: false } as Parameters<MemoryService["checkout"]>[0];
}

/**
 * What a checkout answers: its facts, evidence, citations and counts. Not its warnings (nor the
 * prompt and confidence they change): a read that could not write the read model says so.
 */
function answer(checkout: unknown): unknown {
  const doc = checkout as { [key: string]: unknown } & { diagnostics: { [key: string]: unknown } };
  return [doc.current_facts, doc.evidence, doc.provenance, doc.retention, doc.context_counts, doc.diagnostics.source_lanes, doc.diagnostics.causal_context];
}

async function answers(warnings: string[] = []): Promise<unknown[]> {
  const service = new MemoryService(root, { warn: (message) => warnings.push(message), scratchDir: tempDir });
  const out: unknown[] = [];
  for (const query of queries) out.push(answer(await service.checkout(request(query))));
  return out;
}

/** What is left in this test's temp directory's scratch folder. */
function scratchLeft(): string[] {
  const dirs = fs.readdirSync(tempDir).filter((name) => name.startsWith("zaxy-scratch-"));
  return dirs.flatMap((dir) => fs.readdirSync(path.join(tempDir, dir)).map((name) => `${dir}/${name}`));
}

before(async () => {
  const cwd = makeTempDir();
  root = path.join(cwd, ".eventloom");
  const session = mixedSessionItems(120, 11);
  await writeMixedSession(root, sessionId, session.items);
  queries = [...sampleQueries(session, 6, 3), "zzz-no-match"];
  tempDir = makeTempDir("scratchTmp");
  whole = await answers();
});

describe("a read model built outside the root", () => {
  test("a root whose read model cannot be written answers as a whole read, says the model was not written, and leaves no scratch files", slow, async () => {
    const dir = readModelDir(root, sessionId);
    const parent = path.dirname(dir);
    fs.rmSync(parent, { recursive: true, force: true });
    fs.writeFileSync(parent, "not a directory");
    try {
      const warnings: string[] = [];
      assert.deepEqual(await answers(warnings), whole);
      assert.ok(warnings.some((warning) => warning.startsWith(`read model of session "${sessionId}" not written: `)), warnings.join(" | "));
      assert.ok(fs.readdirSync(tempDir).some((name) => name.startsWith("zaxy-scratch-")), "the read model was built under the temp directory");
      assert.deepEqual(scratchLeft(), []);
      assert.equal(fs.readFileSync(parent, "utf8"), "not a directory");
    } finally {
      fs.rmSync(parent, { force: true });
    }
    const warnings: string[] = [];
    assert.deepEqual(await answers(warnings), whole);
    assert.ok(fs.existsSync(path.join(dir, "manifest.json")), "the root's read model is written again");
  });

  test("when neither the root nor the temp directory can hold the read model, the read still answers as a whole read and says where it could not write", slow, async () => {
    const parent = path.dirname(readModelDir(root, sessionId));
    fs.rmSync(parent, { recursive: true, force: true });
    fs.writeFileSync(parent, "not a directory");
    const notADirectory = path.join(tempDir, "file");
    fs.writeFileSync(notADirectory, "");
    try {
      const warnings: string[] = [];
      const service = new MemoryService(root, { warn: (message) => warnings.push(message), scratchDir: path.join(notADirectory, "tmp") });
      const out: unknown[] = [];
      for (const query of queries) out.push(answer(await service.checkout(request(query))));
      assert.deepEqual(out, whole);
      const unwritable = warnings.filter((warning) => warning.startsWith('read model of session "s" cannot be written under the root, nor under the temp directory '));
      assert.ok(unwritable.length > 0, warnings.join(" | "));
      assert.match(unwritable[0], /; make the root writable, or set TMPDIR to a writable directory outside it; answered from an index held in memory$/);
      assert.equal(fs.readFileSync(parent, "utf8"), "not a directory");
    } finally {
      fs.rmSync(parent, { force: true });
    }
  });

  test("the causal and consolidation read of a session (its rows and events) opens the same read model", slow, async () => {
    const service = new MemoryService(root);
    const session = await service.session(sessionId);
    assert.equal(session.index.eventCount, session.projected.events.length);
    assert.equal(session.index.entityCount, session.rows.entities.length);
    for (let position = 0; position < session.index.entityCount; position += 7) assert.deepEqual(session.index.entity(position), session.rows.entities[position]);
    assert.deepEqual(session.index.eventRange(0, session.index.eventCount), session.projected.events);
  });
});
