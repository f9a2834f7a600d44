/**
 * The `*.compaction.json` artifact: Python `json.dumps(obj, indent=2, sort_keys=True) + "\n"`
 * bytes (python3 re-dumps ours identically), the top-level and record keys, the load round trip,
 * Python's load defaults, and validation that names the bad field.
 */
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { canonicalJson, JsonNumber, type JsonValue, parseJson } from "../../src/canonical/mod.ts";
import { auditLog } from "../../src/compaction/audit.ts";
import { buildProjection } from "../../src/compaction/projection.ts";
import { loadProjectionArtifact, parseProjectionArtifact, projectionArtifactText, writeProjectionArtifact } from "../../src/retrieval/projectionArtifact.ts";
import { auditJson } from "../../src/compaction/projectionFromLog.ts";
import { pythonIndentedJson } from "../../src/canonical/pythonIndentedJson.ts";
import { purposeProfile } from "../../src/compaction/purpose.ts";
import { isZaxyError } from "../../src/errors.ts";
import { Rng } from "../testkit/rng.ts";
import { makeTempDir, python, removeTempDirs, skipWithoutPython } from "../eventloom/testkit.ts";
import { nearDuplicateDocs, writeLog } from "./projection_testkit.ts";

after(removeTempDirs);

async function builtProjection(purpose = "general") {
  const root = makeTempDir("zaxy-artifact");
  const { logPath, events } = await writeLog(root, [
    ...nearDuplicateDocs(5),
    { type: "goal.created", actor: "user", payload: { title: "Goal 0001 — café ☕", description: "Ship projection storage 😀", ratio: 1e-7 } },
  ]);
  const audit = auditJson(await auditLog(logPath, { strategy: "exemplar", maxRecords: 3 }));
  return { root, events, projection: buildProjection(events, audit, { strategy: "exemplar", maxRecords: 3, purpose: purposeProfile(purpose) }) };
}

describe("artifact text", () => {
  test("python3 re-dumps a written artifact to the same bytes (json.dumps indent=2, sort_keys, ensure_ascii)", { skip: skipWithoutPython }, async () => {
    const { root, projection } = await builtProjection("coding");
    const file = writeProjectionArtifact(projection, path.join(root, "projections", "default.compaction.json"));
    const text = fs.readFileSync(file, "utf8");
    const redumped = python(`import json, sys\nsys.stdout.write(json.dumps(json.load(open(${JSON.stringify(file)})), indent=2, sort_keys=True) + "\\n")`);
    assert.equal(redumped, text);
    assert.ok(/^[\x00-\x7f]*$/.test(text), "ASCII only");
    assert.match(text, /"citation_coverage": 1\.0,/, "ratios are written as Python floats");
  });

  test("equals python3's json.dumps(indent=2, sort_keys=True) on 300 seeded generated values", { skip: skipWithoutPython }, () => {
    const seed = 5_2026;
    const rng = new Rng(seed);
    const alphabet = ["a", "Z", " ", "é", "ß", "😀", "\x7f", "\\", '"', "\n", "/", "\u2028", "0", "\t"];
    const floats = ["0.1", "1e-07", "5.0", "1e+16", "-0.0", "123456789.0", "0.0001", "2.5e-300"];
    const gen = (depth: number): JsonValue => {
      const kind = rng.int(depth > 3 ? 4 : 7);
      if (kind === 0) return Array.from({ length: 1 + rng.int(6) }, () => alphabet[rng.int(alphabet.length)]).join("");
      if (kind === 1) return JsonNumber.int(rng.int(2 ** 31) - 2 ** 30);
      if (kind === 2) return new JsonNumber(floats[rng.int(floats.length)], true);
      if (kind === 3) return [null, true, false][rng.int(3)];
      if (kind === 4) return Array.from({ length: rng.int(4) }, () => gen(depth + 1));
      const out = new Map<string, JsonValue>();
      for (let i = rng.int(4); i > 0; i--) out.set(Array.from({ length: 1 + rng.int(3) }, () => alphabet[rng.int(alphabet.length)]).join(""), gen(depth + 1));
      return out;
    };
    const values = Array.from({ length: 300 }, () => gen(0));
    const expected = python(
      `import json, sys
for line in sys.stdin.read().splitlines():
    sys.stdout.write(json.dumps(json.loads(line), indent=2, sort_keys=True) + "\\n\\x00")`,
      values.map((v) => canonicalJson(v)).join("\n") + "\n",
    ).split("\x00").slice(0, -1);
    assert.deepEqual(values.map(pythonIndentedJson), expected, `seed ${seed}`);
  });

  test("has Python's top-level and record keys; the first record cites eventloom://default/events/", async () => {
    const { projection } = await builtProjection();
    const parsed = JSON.parse(projectionArtifactText(projection));
    assert.deepEqual(Object.keys(parsed), ["audit", "consolidation_policy", "projection_id", "purpose", "records", "source_event_count", "source_identities", "strategy"]);
    assert.deepEqual(Object.keys(parsed.records[0]), ["authority_scope", "citations", "event_ref", "event_seq", "identities", "kind", "purpose_reasons", "text"]);
    assert.equal(parsed.projection_id, projection.projection_id);
    assert.equal(parsed.strategy, "exemplar");
    assert.deepEqual(parsed.source_identities, projection.source_identities);
    assert.match(parsed.records[0].event_ref, /^eventloom:\/\/default\/events\/\d+#[0-9a-f]{12}$/);
    for (const key of ["safe", "event_count", "integrity_ok", "integrity_reason", "identity_count", "identity_recall", "citation_coverage", "mean_within_cluster_distance", "identities", "identity_hits", "missing_identities", "unsafe_reasons"]) {
      assert.ok(key in parsed.audit, `audit.${key}`);
    }
    assert.equal("clusters" in parsed.audit, false);
    assert.deepEqual(Object.keys(parsed.consolidation_policy).sort(), [
      "authoritative_count", "authoritative_event_seqs", "diagnostic_count", "diagnostic_event_seqs", "diagnostic_identities", "effective_max_records",
      "preserve_all", "profile", "requested_strategy", "retain", "strategy", "suppress", "suppressed_count", "warnings",
    ]);
  });
});

describe("load", () => {
  test("round-trips: load(write(p)) equals p, and writing it again gives the same bytes", async () => {
    const { root, projection } = await builtProjection("security");
    const file = writeProjectionArtifact(projection, path.join(root, "a", "b", "x.compaction.json"));
    const loaded = loadProjectionArtifact(file);
    assert.deepEqual(loaded, projection);
    assert.deepEqual(loaded.records[0].citations, projection.records[0].citations);
    assert.equal(projectionArtifactText(loaded), fs.readFileSync(file, "utf8"));
    assert.deepEqual(fs.readdirSync(path.dirname(file)), ["x.compaction.json"], "no temp file left");
  });

  test("a coordinate projection keeps purpose, authority and diagnostic metadata through the round trip", async () => {
    const root = makeTempDir("zaxy-artifact");
    const { events } = await writeLog(root, [
      { type: "coordination.finding.promoted", actor: "coordinator", payload: { finding_id: "finding-promoted", claim_value: "ready", coordination_status: "promoted" } },
      { type: "coordination.finding.reported", actor: "worker", payload: { finding_id: "finding-pending", claim_value: "pending", coordination_status: "pending" } },
    ]);
    const projection = buildProjection(events, new Map(), { strategy: "medoid", maxRecords: 5, purpose: purposeProfile("coordinate") });
    const loaded = parseProjectionArtifact(projectionArtifactText(projection));
    assert.equal(loaded.purpose.get("profile"), "coordinate");
    assert.equal(loaded.strategy, "coordinate_authoritative");
    assert.equal(loaded.records[0].event_seq, 1);
    assert.equal(loaded.records[0].kind, "coordinate_authoritative");
    assert.deepEqual(loaded.records[0].purpose_reasons, ["accepted_parent_state"]);
    assert.equal(canonicalJson(loaded.consolidation_policy.get("diagnostic_event_seqs")!), "[2]");
    assert.ok((loaded.consolidation_policy.get("diagnostic_identities") as string[]).includes("finding-pending"));
  });

  test("fills Python's defaults: missing authority_scope is authoritative, missing purpose_reasons is []", async () => {
    const { projection } = await builtProjection();
    const raw = JSON.parse(projectionArtifactText(projection));
    delete raw.records[0].authority_scope;
    delete raw.records[0].purpose_reasons;
    delete raw.purpose;
    delete raw.consolidation_policy;
    const loaded = parseProjectionArtifact(JSON.stringify(raw));
    assert.equal(loaded.records[0].authority_scope, "authoritative");
    assert.deepEqual(loaded.records[0].purpose_reasons, []);
    assert.equal(loaded.purpose.size, 0);
    assert.equal(loaded.consolidation_policy.size, 0);
  });

  test("refuses malformed artifacts naming the field (exit 2)", async () => {
    const { projection } = await builtProjection();
    const good = JSON.parse(projectionArtifactText(projection));
    const cases: Array<[(doc: any) => void, RegExp]> = [
      [(d) => (d.records[0].event_seq = "1"), /records\[0\]\.event_seq must be an integer >= 1/],
      [(d) => (d.records[1].citations = [1]), /records\[1\]\.citations\[0\] must be a string/],
      [(d) => delete d.projection_id, /projection_id must be a string/],
      [(d) => (d.records = {}), /records must be an array/],
      [(d) => delete d.audit, /audit must be an object/],
      [(d) => (d.source_event_count = -1), /source_event_count must be an integer >= 0/],
    ];
    for (const [mutate, message] of cases) {
      const doc = structuredClone(good);
      mutate(doc);
      assert.throws(() => parseProjectionArtifact(JSON.stringify(doc), "p.compaction.json"), (error: unknown) => {
        assert.ok(isZaxyError(error));
        assert.equal(error.code, "invalid_projection_artifact");
        assert.equal(error.exitCode, 2);
        assert.match(error.message, /^Cannot load compaction projection p\.compaction\.json: /);
        assert.match(error.message, message);
        return true;
      });
    }
    assert.throws(() => parseProjectionArtifact("{not json", "p.compaction.json"), /not valid JSON/);
  });

  test("keeps floats as Python floats through parse (1.0 stays 1.0)", () => {
    const value = parseJson('{"a": 1.0, "b": 1}');
    assert.equal(pythonIndentedJson(value), '{\n  "a": 1.0,\n  "b": 1\n}\n');
  });
});
