/**
 * Seed 002 (geometry-aware consolidation) on authority: a compacted representation that fails
 * the identity checks "is not acceptable as an authoritative memory replacement", and final
 * facts come from cited source events. So a projection artifact written from an audit that
 * reported `safe: false` tags its records `authority_scope: "non_authoritative"`, and `memory
 * query` / `memory checkout` rank them below the source context they point at; an artifact from
 * a safe audit keeps `authoritative` records ranked by score.
 *
 * Runs the CLI the way tests/cli/zaxy.ts does (dist/zaxy, or the sources with
 * ZAXY_TEST_FROM_SOURCE=1).
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, describe, test } from "node:test";
import { runZaxy, stackTraceLines } from "../cli/zaxy.ts";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";

after(removeTempDirs);
const slow = { timeout: 120_000 };

// deno-lint-ignore no-explicit-any
function zaxyJson(cwd: string, args: string[], expectedCode = 0): any {
  const run = runZaxy([...args, "--json"], { cwd });
  assert.equal(run.code, expectedCode, `${args.join(" ")}: ${run.stdout}${run.stderr}`);
  assert.deepEqual(stackTraceLines(run.stderr), []);
  return JSON.parse(run.stdout);
}

/** Six notes that differ only by identity: one representative cannot keep them all (unsafe). */
function noteSession(label: string): string {
  const dir = makeTempDir(label);
  for (let i = 0; i < 6; i++) {
    const code = String(i).padStart(4, "0");
    zaxyJson(dir, ["memory", "append", "document.indexed", "--actor", "indexer", "--payload-json", JSON.stringify({
      path: `docs/service-${code}.md`, start_line: 1, end_line: 5,
      content: `Migration rollback readiness note records identity-code-${code} for release coordination.`,
    })]);
  }
  fs.mkdirSync(path.join(dir, ".eventloom", "projections"));
  return dir;
}

const artifactPath = ".eventloom/projections/default.compaction.json";

// deno-lint-ignore no-explicit-any
function artifact(dir: string): any {
  return JSON.parse(fs.readFileSync(path.join(dir, artifactPath), "utf8"));
}

interface Ranked {
  source: string;
  citation: string | null;
  metadata: { authority_scope?: string };
}

/** Index of the first projection item and of the first source (non-projection) item citing `citation`. */
function positions(items: Ranked[], citation: string): { projection: number; source: number } {
  return {
    projection: items.findIndex((item) => item.source === "projection" && item.citation === citation),
    source: items.findIndex((item) => item.source !== "projection" && item.citation === citation),
  };
}

describe("seed 002: authority of projection artifacts", () => {
  test("an artifact written from an audit that reported safe: false tags every record non_authoritative", slow, () => {
    const dir = noteSession("seed-unsafe-artifact");
    const doc = zaxyJson(dir, ["compact", ".eventloom/default.jsonl", "--projection-output", artifactPath]);
    assert.equal(doc.audit.safe, false);
    assert.deepEqual(doc.records.map((r: { authority_scope: string }) => r.authority_scope), ["non_authoritative"]);
    const onDisk = artifact(dir);
    assert.equal(onDisk.audit.safe, false);
    assert.ok(onDisk.records.length > 0);
    for (const record of onDisk.records) assert.equal(record.authority_scope, "non_authoritative");
  });

  test("an artifact written from a safe audit keeps its records authoritative", slow, () => {
    const dir = noteSession("seed-safe-artifact");
    const doc = zaxyJson(dir, ["compact", ".eventloom/default.jsonl", "--projection-output", artifactPath, "--strategy", "exemplar", "--max-records", "6"]);
    assert.equal(doc.audit.safe, true);
    for (const record of artifact(dir).records) assert.equal(record.authority_scope, "authoritative");
  });

  test("memory query and memory checkout rank an unsafe audit's records below the matching source context", slow, () => {
    const dir = noteSession("seed-unsafe-ranking");
    zaxyJson(dir, ["compact", ".eventloom/default.jsonl", "--projection-output", artifactPath]);
    const [record] = artifact(dir).records;
    const query = "migration rollback identity-code-0000";

    const queried = zaxyJson(dir, ["memory", "query", query]);
    const inQuery = positions(queried.results, record.event_ref);
    assert.ok(inQuery.source >= 0, `the source context is served: ${JSON.stringify(queried.results)}`);
    assert.ok(inQuery.projection > inQuery.source, `projection item at ${inQuery.projection}, source at ${inQuery.source}`);
    assert.equal(queried.results[inQuery.projection].metadata.authority_scope, "non_authoritative");
    // Below every source result, not only the one it points at.
    assert.ok(queried.results.slice(0, inQuery.projection).every((item: Ranked) => item.source !== "projection"));
    assert.equal(queried.diagnostics.source_lanes.projection, 1);

    const checkout = zaxyJson(dir, ["memory", "checkout", query]);
    const inCheckout = positions(checkout.evidence, record.event_ref);
    assert.ok(inCheckout.source >= 0, JSON.stringify(checkout.evidence));
    assert.ok(inCheckout.projection === -1 || inCheckout.projection > inCheckout.source, `projection evidence at ${inCheckout.projection}, source at ${inCheckout.source}`);
  });

  test("an unsafe audit's artifact whose records say authoritative (an earlier build's) is still served non_authoritative, below its source", slow, () => {
    const dir = noteSession("seed-unsafe-legacy");
    zaxyJson(dir, ["compact", ".eventloom/default.jsonl", "--projection-output", artifactPath]);
    const legacy = artifact(dir);
    for (const record of legacy.records) record.authority_scope = "authoritative";
    fs.writeFileSync(path.join(dir, artifactPath), JSON.stringify(legacy, null, 2) + "\n");
    const queried = zaxyJson(dir, ["memory", "query", "migration rollback identity-code-0000"]);
    const at = positions(queried.results, legacy.records[0].event_ref);
    assert.ok(at.source >= 0 && at.projection > at.source, JSON.stringify(queried.results.map((r: Ranked) => r.source)));
    assert.equal(queried.results[at.projection].metadata.authority_scope, "non_authoritative");
  });

  test("a safe audit's records still rank by score, ahead of a lower-scored source context", slow, () => {
    const dir = noteSession("seed-safe-ranking");
    zaxyJson(dir, ["compact", ".eventloom/default.jsonl", "--projection-output", artifactPath, "--strategy", "exemplar", "--max-records", "6"]);
    const queried = zaxyJson(dir, ["memory", "query", "migration rollback identity-code-0000"]);
    const top = queried.results[0];
    assert.equal(top.source, "projection");
    assert.equal(top.metadata.authority_scope, "authoritative");
  });
});
