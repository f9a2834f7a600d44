/**
 * Compaction projections (reference §6 test_compaction items): medoid and exemplar selection,
 * purpose profiles (coordinate authority, security preserve-all, coding exemplar floor), the
 * record fields, the deterministic projection_id (cross-checked with python3), and search.
 */
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { canonicalJson, fromJs, type JsonObject } from "../../src/canonical/mod.ts";
import { citationUri } from "../../src/eventloom/root.ts";
import { allEventIdentities, buildProjection, type BuildProjectionOptions } from "../../src/compaction/projection.ts";
import { projectionArtifactText } from "../../src/retrieval/projectionArtifact.ts";
import { searchProjections } from "../../src/retrieval/projectionSearch.ts";
import { purposeNames, purposeProfile } from "../../src/compaction/purpose.ts";
import { eventContext } from "../../src/compaction/eventContext.ts";
import { isZaxyError } from "../../src/errors.ts";
import { makeTempDir, python, removeTempDirs, skipWithoutPython } from "../eventloom/testkit.ts";
import { type LogSpec, nearDuplicateDocs, writeLog } from "./projection_testkit.ts";

after(removeTempDirs);

const noAudit: JsonObject = new Map();

function options(strategy: "medoid" | "exemplar", maxRecords = 5, purpose = "general"): BuildProjectionOptions {
  return { strategy, maxRecords, purpose: purposeProfile(purpose), embeddingDim: 64 };
}

async function build(specs: LogSpec[], opts: BuildProjectionOptions) {
  const { events } = await writeLog(makeTempDir("zaxy-projection"), specs);
  return { events, projection: buildProjection(events, noAudit, opts) };
}

function doc(pathName: string, start: number, end: number, content: string, actor = "indexer"): LogSpec {
  return { type: "document.indexed", actor, payload: { path: pathName, start_line: start, end_line: end, content } };
}

describe("buildProjection strategies", () => {
  test("medoid keeps one real source event with an event ref, and every source identity", async () => {
    const { events, projection } = await build(
      [doc("docs/a.md", 1, 4, "Cache migration note records identity-code-0001."), doc("docs/b.md", 5, 8, "Cache migration note records identity-code-0002.")],
      options("medoid"),
    );
    assert.equal(projection.strategy, "medoid");
    assert.equal(projection.source_event_count, 2);
    assert.equal(projection.records.length, 1);
    const record = projection.records[0];
    assert.equal(record.kind, "medoid");
    assert.ok(record.event_ref.startsWith("eventloom://default/events/"), record.event_ref);
    const source = events[record.event_seq - 1];
    assert.equal(record.event_ref, citationUri("default", source.seq, source.hash));
    // Real source text, never synthetic: the record's text is the event's own context text.
    assert.equal(record.text, eventContext(source));
    assert.ok(projection.source_identities.includes("docs/a.md:1-4"));
    assert.ok(projection.source_identities.includes("docs/b.md:5-8"));
    assert.deepEqual(record.identities, allEventIdentities(source));
  });

  test("exemplar with 4 documents and max 3 keeps 3 distinct cited records", async () => {
    const specs = Array.from({ length: 4 }, (_, idx) => doc(`docs/exemplar-${idx}.md`, idx + 1, idx + 2, `Planner note records identity-code-${String(idx).padStart(4, "0")}.`));
    const { projection } = await build(specs, options("exemplar", 3));
    assert.equal(projection.strategy, "exemplar");
    assert.equal(projection.records.length, 3);
    assert.deepEqual(new Set(projection.records.map((r) => r.kind)), new Set(["exemplar"]));
    assert.ok(projection.records.every((r) => r.citations.length > 0 && r.citations.some((c) => c.startsWith("docs/exemplar-"))));
    assert.equal(new Set(projection.records.map((r) => r.event_seq)).size, 3);
    assert.ok(projection.source_identities.includes("identity-code-0003"));
  });

  test("exemplar keeps every event in log order when there are at most max_records", async () => {
    const { projection } = await build(nearDuplicateDocs(4), options("exemplar", 4));
    assert.deepEqual(projection.records.map((r) => r.event_seq), [1, 2, 3, 4]);
  });

  test("near-duplicates differing only by identity code and path: enough exemplars keep every identity, the medoid does not", async () => {
    const specs = nearDuplicateDocs(12);
    const exemplar = (await build(specs, options("exemplar", 12))).projection;
    const kept = new Set(exemplar.records.flatMap((r) => r.identities));
    const contentIdentities = exemplar.source_identities.filter((id) => !id.startsWith("eventloom://"));
    assert.equal(contentIdentities.length, 24);
    for (const identity of contentIdentities) assert.ok(kept.has(identity), identity);
    const medoid = (await build(specs, options("medoid"))).projection;
    const medoidKept = new Set(medoid.records.flatMap((r) => r.identities));
    assert.equal(contentIdentities.filter((id) => medoidKept.has(id)).length, 2);
  });

  test("an empty log gives no records", () => {
    const projection = buildProjection([], noAudit, options("medoid"));
    assert.deepEqual(projection.records, []);
    assert.equal(projection.source_event_count, 0);
  });
});

describe("purpose profiles", () => {
  const coordinateSpecs: LogSpec[] = [
    {
      type: "coordination.finding.reported",
      actor: "worker-api",
      payload: {
        mission_id: "release-1", worker_id: "worker-api", finding_id: "finding-pending", claim_key: "release.package",
        claim_value: "pending-wrong-claim", coordination_status: "pending", summary: "Pending worker-local claim should stay diagnostic.",
      },
    },
    {
      type: "coordination.finding.reviewed",
      actor: "coordinator",
      payload: {
        mission_id: "release-1", worker_id: "worker-release", finding_id: "finding-accepted", claim_key: "release.package",
        claim_value: "zaxy-memory-1.0.2-ready", coordination_status: "accepted",
        promotion_event_ref: "eventloom://release-1/events/7#aaaaaaaaaaaa", review_event_ref: "eventloom://release-1/events/6#bbbbbbbbbbbb",
        source_event_ref: "eventloom://worker-release/events/3#cccccccccccc", summary: "Accepted parent state is authoritative.",
      },
    },
    {
      type: "coordination.finding.reviewed",
      actor: "coordinator",
      payload: {
        mission_id: "release-1", worker_id: "worker-ui", finding_id: "finding-rejected", claim_key: "release.package",
        claim_value: "rejected-claim", coordination_status: "rejected", summary: "Rejected row must not become authoritative memory.",
      },
    },
    {
      type: "coordination.finding.reported",
      actor: "worker-docs",
      payload: {
        mission_id: "release-1", worker_id: "worker-docs", finding_id: "finding-stale", claim_key: "release.docs", claim_value: "old-doc-state",
        coordination_status: "pending", stale: true, superseded_by: "finding-accepted", summary: "Stale unpromoted row stays diagnostic.",
      },
    },
  ];

  test("coordinate keeps only the accepted row with authority refs; pending, rejected and stale stay diagnostic and unsearchable", async () => {
    const { projection } = await build(coordinateSpecs, options("medoid", 1, "coordinate"));
    assert.equal(projection.strategy, "coordinate_authoritative");
    assert.equal(projection.purpose.get("profile"), "coordinate");
    assert.deepEqual(projection.records.map((r) => r.event_seq), [2]);
    assert.equal(projection.records[0].authority_scope, "authoritative");
    assert.deepEqual(projection.records[0].purpose_reasons, ["accepted_parent_state"]);
    assert.equal(projection.records[0].kind, "coordinate_authoritative");
    const policy = projection.consolidation_policy;
    assert.equal(policy.get("requested_strategy"), "medoid");
    assert.equal(policy.get("max_records_ignored"), false);
    assert.equal(canonicalJson(policy.get("authoritative_event_seqs")!), "[2]");
    assert.equal(canonicalJson(policy.get("diagnostic_event_seqs")!), "[1,3,4]");
    assert.equal(canonicalJson(policy.get("suppressed_count")!), "3");
    assert.equal(searchProjections([projection], "zaxy-memory-1.0.2-ready").length, 1);
    for (const query of ["pending-wrong-claim", "rejected-claim", "old-doc-state"]) assert.deepEqual(searchProjections([projection], query), [], query);
  });

  test("coordinate: 'accepted' without authority refs is diagnostic only", async () => {
    const { projection } = await build(
      [{
        type: "coordination.finding.reviewed",
        actor: "coordinator",
        payload: { finding_id: "finding-erased", claim_value: "accepted-without-proof", coordination_status: "accepted", summary: "No refs." },
      }],
      options("exemplar", 5, "coordinate"),
    );
    assert.deepEqual(projection.records, []);
    assert.equal(canonicalJson(projection.consolidation_policy.get("authoritative_count")!), "0");
    assert.equal(canonicalJson(projection.consolidation_policy.get("diagnostic_event_seqs")!), "[1]");
    assert.equal(canonicalJson(projection.consolidation_policy.get("suppressed_count")!), "1");
    assert.deepEqual(searchProjections([projection], "accepted-without-proof"), []);
  });

  test("coordinate: proof packets are coordinate_proof, mission-parent rows are kept, non-coordination events stay authoritative", async () => {
    const { projection } = await build(
      [
        { type: "coordination.proof_packet.created", payload: { summary: "proof" } },
        { type: "coordination.finding.reported", payload: { authority_scope: "mission-parent", summary: "parent" } },
        { type: "goal.created", payload: { title: "Ship" } },
        { type: "coordination.assignment.created", payload: { summary: "assignment" } },
      ],
      options("medoid", 1, "coordinate"),
    );
    assert.deepEqual(projection.records.map((r) => [r.event_seq, r.kind, r.purpose_reasons[0]]), [
      [1, "coordinate_proof", "proof_or_handoff"],
      [2, "coordinate_authoritative", "mission_parent_authority"],
      [3, "coordinate_authoritative", "coordinate_authoritative"],
    ]);
    assert.equal(projection.consolidation_policy.get("max_records_ignored"), true);
    assert.ok((projection.consolidation_policy.get("diagnostic_identities") as string[]).every((id) => typeof id === "string"));
  });

  test("security preserves every record as security_retained with security_findings among the reasons", async () => {
    const specs = ["secret exposure", "auth bypass", "risk acceptance"].map((label, i) =>
      doc(`security/finding-${i + 1}.md`, i + 1, i + 2, `Security review records ${label} identity-code-000${i + 1}.`, "security-reviewer")
    );
    const { projection } = await build(specs, options("medoid", 1, "security"));
    assert.equal(projection.strategy, "purpose_preserve_all");
    assert.equal(projection.consolidation_policy.get("preserve_all"), true);
    assert.equal(canonicalJson(projection.consolidation_policy.get("effective_max_records")!), "3");
    assert.equal(projection.consolidation_policy.get("purpose_consolidation_reason"), "preserve_threats_controls_findings_and_risk_acceptance");
    assert.deepEqual(projection.records.map((r) => r.kind), ["security_retained", "security_retained", "security_retained"]);
    assert.ok(projection.records.every((r) => r.purpose_reasons.includes("security_findings")));
    assert.ok(searchProjections([projection], "auth bypass").length > 0);
    assert.ok(searchProjections([projection], "risk acceptance").length > 0);
  });

  test("coding with 10 documents and max 2 keeps 8 coding_exemplar records (the purpose floor)", async () => {
    const specs = Array.from({ length: 10 }, (_, idx) => doc(`tests/regression-${idx}.md`, idx + 1, idx + 2, `Regression invariant identity-code-${String(idx).padStart(4, "0")} must survive.`, "developer"));
    const { projection } = await build(specs, options("medoid", 2, "coding"));
    assert.equal(projection.strategy, "purpose_exemplar");
    assert.equal(projection.consolidation_policy.get("preserve_all"), false);
    assert.equal(canonicalJson(projection.consolidation_policy.get("effective_max_records")!), "8");
    assert.equal(projection.records.length, 8);
    assert.deepEqual(new Set(projection.records.map((r) => r.kind)), new Set(["coding_exemplar"]));
    assert.ok(projection.records.every((r) => r.purpose_reasons.includes("test_results")));
    assert.deepEqual(projection.records[0].purpose_reasons, ["architectural_constraints", "failed_fixes", "accepted_decisions", "test_results", "invariant", "regression"]);
  });

  test("support/product compact to exemplars, sales/legal/executive keep everything; every profile states retain and suppress", async () => {
    const expected: Record<string, [string, string, boolean]> = {
      support: ["purpose_exemplar", "support_exemplar", false],
      product: ["purpose_exemplar", "product_exemplar", false],
      research: ["purpose_exemplar", "research_exemplar", false],
      review: ["purpose_preserve_all", "review_retained", true],
      release: ["purpose_preserve_all", "release_retained", true],
      sales: ["purpose_preserve_all", "sales_retained", true],
      legal: ["purpose_preserve_all", "legal_retained", true],
      executive: ["purpose_preserve_all", "executive_retained", true],
    };
    for (const [profile, [strategy, kind, preserveAll]] of Object.entries(expected)) {
      const specs = Array.from({ length: 3 }, (_, idx) => doc(`${profile}/fixture-${idx}.md`, idx + 1, idx + 2, `${profile} fixture identity-code-${String(idx).padStart(4, "0")} should survive.`));
      const { projection } = await build(specs, options("medoid", 1, profile));
      assert.equal(projection.purpose.get("profile"), profile);
      assert.equal(projection.strategy, strategy, profile);
      assert.equal(projection.consolidation_policy.get("preserve_all"), preserveAll, profile);
      assert.ok((projection.consolidation_policy.get("retain") as string[]).length > 0, profile);
      assert.ok((projection.consolidation_policy.get("suppress") as string[]).length > 0, profile);
      assert.deepEqual(new Set(projection.records.map((r) => r.kind)), new Set([kind]), profile);
      assert.equal(projection.records.length, 3, profile);
      assert.ok(projection.records.every((r) => r.purpose_reasons.length > 0), profile);
    }
  });

  test("general policy has no purpose reason and keeps the requested strategy", async () => {
    const { projection } = await build(nearDuplicateDocs(3), options("exemplar", 2));
    assert.equal(projection.consolidation_policy.get("strategy"), "exemplar");
    assert.equal(projection.consolidation_policy.has("purpose_consolidation_reason"), false);
    assert.deepEqual(projection.records[0].purpose_reasons, ["purpose_retained"]);
  });

  test("an unknown purpose is bad input naming the purpose field and the valid profiles", () => {
    assert.throws(() => purposeProfile("marketing"), (error: unknown) => {
      assert.ok(isZaxyError(error));
      assert.equal(error.exitCode, 2);
      assert.match(error.message, /^`purpose` "marketing" is not a purpose profile; expected one of general, coding, .*executive, coordinate/);
      return true;
    });
    assert.equal(purposeNames.length, 12);
  });
});

describe("projection_id", () => {
  test("is sha256 of Python-canonical {strategy, purpose, consolidation_policy, source_hashes, records} (python3 agrees)", { skip: skipWithoutPython }, async () => {
    const specs: LogSpec[] = [
      ...nearDuplicateDocs(6),
      { type: "goal.created", actor: "user", payload: { title: "Café — ship 😀", ratio: 0.5, big: 12345678901234567890n } },
    ];
    const { events, projection } = await build(specs, options("exemplar", 3, "coding"));
    const artifact = projectionArtifactText(projection);
    const hashes = events.map((e) => e.hash);
    const expected = python(
      `import hashlib, json, sys
data = json.load(sys.stdin)
a = json.loads(data["artifact"])
ident = {"strategy": a["strategy"], "purpose": a["purpose"], "consolidation_policy": a["consolidation_policy"], "source_hashes": data["hashes"], "records": [r["event_ref"] for r in a["records"]]}
print(hashlib.sha256(json.dumps(ident, sort_keys=True, separators=(",", ":")).encode("utf-8")).hexdigest())`,
      JSON.stringify({ artifact, hashes }),
    ).trim();
    assert.equal(projection.projection_id, expected);
    assert.match(projection.projection_id, /^[0-9a-f]{64}$/);
  });

  test("is deterministic and changes with the strategy, the purpose and the log", async () => {
    const root = makeTempDir("zaxy-projection");
    const { events } = await writeLog(root, nearDuplicateDocs(5));
    const a = buildProjection(events, noAudit, options("exemplar", 2));
    assert.equal(buildProjection(events, noAudit, options("exemplar", 2)).projection_id, a.projection_id);
    assert.notEqual(buildProjection(events, noAudit, options("medoid", 2)).projection_id, a.projection_id);
    assert.notEqual(buildProjection(events, noAudit, options("exemplar", 2, "security")).projection_id, a.projection_id);
    assert.notEqual(buildProjection(events.slice(0, 4), noAudit, options("exemplar", 2)).projection_id, a.projection_id);
  });
});

describe("searchProjections", () => {
  test("'cache identity-code-0001' limit 1 finds the cache record with its path citation and a positive score", async () => {
    const { projection } = await build(
      [doc("docs/cache.md", 2, 6, "Cache routing note records identity-code-0001."), doc("docs/auth.md", 4, 8, "Auth routing note records identity-code-0002.")],
      options("exemplar", 2),
    );
    const hits = searchProjections([projection], "cache identity-code-0001", 1);
    assert.equal(hits.length, 1);
    assert.equal(hits[0].projection_id, projection.projection_id);
    assert.ok(hits[0].record.text.includes("Cache routing note"));
    assert.ok(hits[0].citations.includes("docs/cache.md:2-6"));
    assert.ok(hits[0].score > 0);
    // Both query tokens are in the record: 2/2.
    assert.equal(hits[0].score, 1);
  });

  test("scores overlap / query tokens rounded to 4 places; one-character and empty queries find nothing", async () => {
    const { projection } = await build([doc("docs/cache.md", 2, 6, "Cache routing note.")], options("medoid"));
    assert.equal(searchProjections([projection], "cache zzz yyy")[0].score, 0.3333);
    assert.deepEqual(searchProjections([projection], "a ! ?"), []);
    assert.deepEqual(searchProjections([projection], ""), []);
    assert.throws(() => searchProjections([projection], "cache", 0), /limit 0/);
  });

  test("ties keep artifact and record order (stable), higher scores first", () => {
    const record = (seq: number, text: string) => ({
      kind: "exemplar", event_seq: seq, event_ref: `eventloom://default/events/${seq}#aaaaaaaaaaaa`, text, identities: [], citations: [], authority_scope: "authoritative", purpose_reasons: [],
    });
    const projection = (id: string, texts: string[]) => ({
      projection_id: id, strategy: "exemplar", source_event_count: texts.length, source_identities: [], records: texts.map((t, i) => record(i + 1, t)),
      audit: new Map(), purpose: new Map(), consolidation_policy: new Map(),
    });
    const hits = searchProjections([projection("p1", ["alpha", "alpha beta"]), projection("p2", ["alpha"])], "alpha beta");
    assert.deepEqual(hits.map((h) => [h.projection_id, h.record.event_seq, h.score]), [["p1", 2, 1], ["p1", 1, 0.5], ["p2", 1, 0.5]]);
  });

  test("tokens keep identities whole and casefold like Python (ß → ss)", async () => {
    const { projection } = await build([doc("docs/STRASSE.md", 1, 2, "Straße note records identity-code-0009.")], options("medoid"));
    assert.equal(searchProjections([projection], "strasse")[0].score, 1);
    assert.equal(searchProjections([projection], "docs/strasse.md:1-2")[0].score, 1);
    assert.deepEqual(searchProjections([projection], "identity-code-0008"), []);
  });
});

test("fromJs keeps bigints exact for the id cross-check fixture", () => {
  assert.equal(canonicalJson(fromJs({ big: 12345678901234567890n })), '{"big":12345678901234567890}');
});
