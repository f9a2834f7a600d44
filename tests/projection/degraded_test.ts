// deno-test: own-process (loads kuzu-wasm in this process; scripts/deno-test.sh runs it alone)
/**
 * When another process holds the graph store past the wait, a read does not notice (no read
 * answers from the store), and a sync of the store answers from the log folded in memory:
 * marked degraded in the result, the diagnostics and the checkout's warnings, and still cited.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import * as path from "node:path";
import { fromJs } from "../../src/canonical/mod.ts";
import { appendEvents } from "../../src/events/append.ts";
import { buildCheckout } from "../../src/checkout/mod.ts";
import { projectionDbPath, projectSession } from "../../src/projection/projector.ts";
import { foldLogRows } from "../../src/projection/foldLog.ts";
import { retrieveDegraded } from "../../src/retrieval/engine.ts";
import { buildSessionIndex } from "../../src/retrieval/sessionIndex.ts";
import { makeTempDir, skipWithoutPython } from "../eventloom/testkit.ts";

test("a store held by another process degrades the read to the log", { skip: skipWithoutPython }, async () => {
  const root = path.join(makeTempDir("zaxy-degraded"), ".eventloom");
  await appendEvents(root, "s", [
    { type: "decision.made", actor: "agent", payload: fromJs({ decision: "Adopt Kuzu", rationale: "embedded graph" }) },
  ]);
  const lockPath = `${projectionDbPath(root)}.lock`;
  // python3's fcntl.flock is the same lock zaxy takes; hold it for 20 s, say when it is held.
  const holder = spawn("python3", ["-c", [
    "import fcntl, os, sys, time",
    `os.makedirs(os.path.dirname(${JSON.stringify(lockPath)}), exist_ok=True)`,
    `f = open(${JSON.stringify(lockPath)}, "a")`,
    "fcntl.flock(f, fcntl.LOCK_EX)",
    "print('held', flush=True)",
    "time.sleep(20)",
  ].join("\n")], { stdio: ["ignore", "pipe", "inherit"] });
  try {
    await new Promise<void>((resolve, reject) => {
      holder.stdout!.once("data", () => resolve());
      holder.once("exit", (code) => reject(new Error(`lock holder exited ${code}`)));
    });
    // A read does not need the graph store: it answers from the rows, undegraded, without waiting.
    const readWarnings: string[] = [];
    const read = await projectSession(root, "s", { lockWaitMs: 300, warn: (m) => readWarnings.push(m) });
    assert.equal(read.degraded, false);
    assert.equal(read.source, "rebuilt");
    assert.deepEqual(readWarnings, []);
    // Bringing the store itself up to date degrades.
    const warnings: string[] = [];
    const started = performance.now();
    const projected = await projectSession(root, "s", { graphStore: "sync", lockWaitMs: 300, warn: (m) => warnings.push(m) });
    assert.ok(performance.now() - started < 10_000);
    assert.equal(projected.degraded, true);
    assert.equal(projected.source, "degraded");
    assert.equal(projected.rows, null);
    assert.match(projected.degradedReason ?? "", /lock|busy|another/i);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0], /answering from the log/);

    const index = buildSessionIndex("s", foldLogRows("s", projected.events), projected.events, null);
    const retrieval = retrieveDegraded(index, "Adopt Kuzu", { limit: 5 }, projected.degradedReason!);
    const checkout = buildCheckout({
      sessionId: "s", query: "Adopt Kuzu", retrieval, recentEvents: projected.events, withheldRuleSeqs: index.folds.withheldRuleSeqs(), replayEventCount: 1, compacted: false, limit: 5,
    });
    assert.equal(checkout.diagnostics.projection_degraded, true);
    assert.ok(checkout.warnings.some((w) => w.includes("degraded")), checkout.warnings.join(" | "));
    assert.notEqual(checkout.quality.answerability, "answer_from_memory");
    assert.equal(checkout.evidence[0].citation, projected.events[0] && `eventloom://s/events/1#${projected.events[0].hash.slice(0, 12)}`);
  } finally {
    holder.kill();
  }
});
