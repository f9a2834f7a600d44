/**
 * The warm session cache of `zaxy serve` (MemoryService) is bounded by the summed size of the
 * cached logs, not only by a session count (issue 12 item 15): past the byte bound the least
 * recently used sessions are dropped and re-read from disk when asked again; the session in use
 * always stays.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, describe, test } from "node:test";
import { fromJs } from "../../src/canonical/mod.ts";
import { appendEvents } from "../../src/events/append.ts";
import { cachedSessionsMax, MemoryService } from "../../src/memory/service.ts";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";

after(removeTempDirs);

async function sessionOfBytes(root: string, sessionId: string): Promise<number> {
  const items = Array.from({ length: 20 }, (_, i) => ({ type: "note.added", actor: "a", payload: fromJs({ text: `${sessionId} note ${i} ${"x".repeat(200)}` }) }));
  await appendEvents(root, sessionId, items);
  return fs.statSync(path.join(root, `${sessionId}.jsonl`)).size;
}

describe("MemoryService warm cache", () => {
  test("sessions past the log-bytes bound are dropped least recently used first; the one in use stays", async () => {
    const root = path.join(makeTempDir("zaxy-session-cache"), ".eventloom");
    const sizes = [];
    for (const id of ["a", "b", "c"]) sizes.push(await sessionOfBytes(root, id));
    // Room for two of the three logs: three sessions are far under cachedSessionsMax, over the byte bound.
    assert.ok(cachedSessionsMax > 3);
    const service = new MemoryService(root, { cachedLogBytesMax: sizes[0] + sizes[1] + Math.floor(sizes[2] / 2) });

    // A warm hit returns the cached entry's index (the entry object itself is copied, with this
    // call's repairs), so warmth is the identity of the index.
    const a1 = await service.session("a");
    const b1 = await service.session("b");
    assert.equal((await service.session("a")).index, a1.index, "a is warm while two logs fit");
    const c1 = await service.session("c");
    // a was used after b, so b is the least recently used and is dropped.
    assert.equal((await service.session("c")).index, c1.index);
    assert.equal((await service.session("a")).index, a1.index);
    const b2 = await service.session("b");
    assert.notEqual(b2.index, b1.index, "b was dropped and read again");
    assert.deepEqual(b2.index.eventRange(0, b2.index.eventCount).map((e) => e.seq), b1.index.eventRange(0, b1.index.eventCount).map((e) => e.seq), "re-read from the same log");

    // A single log larger than the bound is still kept while it is the one in use.
    const tiny = new MemoryService(root, { cachedLogBytesMax: 1 });
    const only = await tiny.session("a");
    assert.equal((await tiny.session("a")).index, only.index);
    await tiny.session("b");
    assert.notEqual((await tiny.session("a")).index, only.index, "a was dropped once b was used");
  });
});
