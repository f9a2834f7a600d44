/**
 * The candidate contract (reference §2.2, test_consolidation.py): exact payloads, validation of
 * every field, the id's independence of everything but type/title/sources, and the id computed
 * by python3's hashlib + json.dumps on seeded generated inputs (non-ASCII and astral titles).
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  candidateCreatedItem,
  consolidationCandidateId,
  consolidationCandidatePayload,
  consolidationReviewPayload,
  consolidationReviewStatuses,
  consolidationCandidateTypes,
  validateConsolidationCandidateId,
} from "../../src/consolidation/candidate.ts";
import { writeJson } from "../../src/canonical/mod.ts";
import { isZaxyError } from "../../src/errors.ts";
import { python, skipWithoutPython } from "../eventloom/testkit.ts";
import { seededRandom } from "../../src/bench/measure.ts";

const a64 = "a".repeat(64);
const b64 = "b".repeat(64);
const base = {
  candidateType: "episode",
  title: "Checkout failure episode",
  summary: "pytest failed, then passed after the edit.",
  sourceEvents: [{ seq: 10, hash: a64 }, { seq: 11, hash: b64 }],
  confidence: 0.68,
  method: "event_segment_cluster_v1",
};

/** Asserts a ZaxyError with exit 2 naming `field` in both the field and the message. */
function assertRefused(fn: () => unknown, field: string, message?: RegExp): void {
  assert.throws(fn, (error: unknown) => {
    assert.ok(isZaxyError(error), String(error));
    assert.equal(error.exitCode, 2);
    assert.equal(error.details.field, field);
    assert.ok(error.message.includes(field), error.message);
    if (message) assert.match(error.message, message);
    return true;
  });
}

describe("consolidationCandidatePayload", () => {
  test("is pending, non_authoritative, cites the sources, keys in Python's order", () => {
    const payload = consolidationCandidatePayload({ ...base, purpose: "coding" });
    assert.deepEqual(Object.keys(payload), [
      "candidate_id", "candidate_type", "title", "summary", "source_events", "confidence", "method", "review_status", "authority_status", "purpose",
    ]);
    assert.equal(payload.review_status, "pending");
    assert.equal(payload.authority_status, "non_authoritative");
    assert.deepEqual(payload.source_events, [{ seq: 10, hash: a64 }, { seq: 11, hash: b64 }]);
    assert.match(String(payload.candidate_id), /^consolidation:episode:[0-9a-f]{16}$/);
    assert.equal("purpose" in consolidationCandidatePayload(base), false);
  });

  test("snapshots the sources: changing the caller's array afterwards changes nothing", () => {
    const sources = [{ seq: 10, hash: a64 }];
    const payload = consolidationCandidatePayload({ ...base, sourceEvents: sources });
    sources[0].seq = 99;
    sources.push({ seq: 12, hash: b64 });
    assert.deepEqual(payload.source_events, [{ seq: 10, hash: a64 }]);
  });

  test("a float confidence stays a float in the appended payload (1.0, not 1)", () => {
    const item = candidateCreatedItem("zaxy", consolidationCandidatePayload({ ...base, confidence: 1 }));
    assert.match(writeJson(item.payload!, { sortKeys: false, asciiOnly: false }), /"confidence":1\.0,/);
  });

  test("refuses empty or malformed sources, naming the field", () => {
    assertRefused(() => consolidationCandidatePayload({ ...base, sourceEvents: [] }), "source_events", /non-empty/);
    assertRefused(() => consolidationCandidatePayload({ ...base, sourceEvents: [{ seq: "1", hash: a64 }] as never }), "source_events[0].seq");
    assertRefused(() => consolidationCandidatePayload({ ...base, sourceEvents: [{ seq: 0, hash: a64 }] }), "source_events[0].seq", /positive/);
    assertRefused(() => consolidationCandidatePayload({ ...base, sourceEvents: [{ seq: true, hash: a64 }] as never }), "source_events[0].seq");
    assertRefused(() => consolidationCandidatePayload({ ...base, sourceEvents: [{ seq: 1.5, hash: a64 }] }), "source_events[0].seq");
    for (const hash of ["A".repeat(64), "g".repeat(64), "a".repeat(63), "a".repeat(65)]) {
      assertRefused(() => consolidationCandidatePayload({ ...base, sourceEvents: [{ seq: 1, hash: a64 }, { seq: 2, hash }] }), "source_events[1].hash", /64 lowercase hex/);
    }
  });

  test("refuses bad confidence: booleans, strings, out of range", () => {
    for (const confidence of [true, "0.5", -0.01, 1.01, Number.NaN]) {
      assertRefused(() => consolidationCandidatePayload({ ...base, confidence: confidence as number }), "confidence", /between 0.0 and 1.0/);
    }
    assert.equal(consolidationCandidatePayload({ ...base, confidence: 0 }).confidence, 0);
    assert.equal(consolidationCandidatePayload({ ...base, confidence: 1 }).confidence, 1);
  });

  test("refuses whitespace-only and non-string text fields, and unknown types", () => {
    for (const field of ["title", "summary", "method", "purpose"] as const) {
      for (const value of ["", "   ", "\u3000\n", 7]) assertRefused(() => consolidationCandidatePayload({ ...base, [field]: value as string }), field);
    }
    assertRefused(() => consolidationCandidatePayload({ ...base, candidateType: "summary" }), "candidate_type", /claim, episode, procedure/);
  });
});

describe("consolidationCandidateId", () => {
  test("depends on type, title and sources only", () => {
    const id = String(consolidationCandidatePayload(base).candidate_id);
    assert.equal(consolidationCandidatePayload({ ...base, summary: "other", confidence: 0.1, method: "m2", purpose: "p" }).candidate_id, id);
    assert.notEqual(consolidationCandidatePayload({ ...base, title: "Checkout failure episode." }).candidate_id, id);
    assert.notEqual(String(consolidationCandidatePayload({ ...base, candidateType: "claim" }).candidate_id).slice(-16), id.slice(-16));
    assert.notEqual(consolidationCandidatePayload({ ...base, sourceEvents: [...base.sourceEvents].reverse() }).candidate_id, id);
    assert.equal(consolidationCandidateId("episode", base.title, base.sourceEvents), id);
  });

  test("equals python3's sha256(json.dumps(sort_keys, compact))[:16] (seed 001) on 200 seeded inputs", { skip: skipWithoutPython }, () => {
    const seed = 20_260_404;
    const rand = seededRandom(seed);
    const alphabet = ["a", "Z", " ", "é", "ß", "\u3000", "😀", "\x7f", "\\", "\"", "\n", "/", "\u2028", "\ufb01", "𝔘", "0"];
    const inputs = Array.from({ length: 200 }, () => {
      const title = Array.from({ length: 1 + Math.floor(rand() * 12) }, () => alphabet[Math.floor(rand() * alphabet.length)]).join("");
      const sources = Array.from({ length: 1 + Math.floor(rand() * 4) }, () => ({
        seq: 1 + Math.floor(rand() * 2 ** 40),
        hash: Array.from({ length: 64 }, () => "0123456789abcdef"[Math.floor(rand() * 16)]).join(""),
      }));
      const type = consolidationCandidateTypes[Math.floor(rand() * 3)];
      return { candidate_type: type, title, source_events: sources };
    });
    const expected = python(
      `import hashlib, json, sys
for o in json.load(sys.stdin):
    print("consolidation:%s:%s" % (o["candidate_type"], hashlib.sha256(json.dumps(o, sort_keys=True, separators=(",", ":")).encode("utf-8")).hexdigest()[:16]))`,
      JSON.stringify(inputs),
    ).trim().split("\n");
    const actual = inputs.map((o) => consolidationCandidateId(o.candidate_type, o.title, o.source_events));
    assert.deepEqual(actual, expected, `seed ${seed}`);
  });
});

describe("validateConsolidationCandidateId", () => {
  test("returns the type of a 16-hex id or an earlier build's 24-hex id and refuses everything else", () => {
    assert.equal(validateConsolidationCandidateId("consolidation:claim:" + "0".repeat(16)), "claim");
    assert.equal(validateConsolidationCandidateId("consolidation:claim:" + "0".repeat(24)), "claim");
    for (const id of [
      "consolidation:claim:" + "A".repeat(16),
      "consolidation:claim:" + "A".repeat(24),
      "consolidation:claim:" + "a".repeat(15),
      "consolidation:claim:" + "a".repeat(17),
      "consolidation:claim:" + "a".repeat(20),
      "consolidation:claim:" + "a".repeat(23),
      "consolidation:claim:" + "a".repeat(25),
      "consolidation:summary:" + "a".repeat(24),
      "consolidation:claim:" + "a".repeat(24) + ":x",
      "claim:" + "a".repeat(24),
    ]) {
      assertRefused(() => validateConsolidationCandidateId(id), "candidate_id");
    }
  });
});

describe("consolidationReviewPayload", () => {
  test("is exactly {candidate_id, status, authority_status non_authoritative, rationale}", () => {
    const id = "consolidation:episode:" + "c".repeat(24);
    assert.deepEqual(consolidationReviewPayload({ candidateId: id, status: "accepted", rationale: "Cited and useful." }), {
      candidate_id: id,
      status: "accepted",
      authority_status: "non_authoritative",
      rationale: "Cited and useful.",
    });
    assert.deepEqual([...consolidationReviewStatuses], ["accepted", "rejected", "deferred", "conflicted"]);
    assertRefused(() => consolidationReviewPayload({ candidateId: id, status: "pending", rationale: "x" }), "status", /accepted, conflicted, deferred, rejected/);
    assertRefused(() => consolidationReviewPayload({ candidateId: id, status: "accepted", rationale: " \t" }), "rationale");
  });
});
