/**
 * eventloom/eventTarget.ts on hand-built events: the checks of a citation, a hash prefix and a
 * seq, and the lookup, including an ambiguous prefix (no real log has two hashes sharing 12 hex,
 * so the CLI tests in tests/memory/event_target_test.ts cannot reach it).
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { isZaxyError } from "../../src/errors.ts";
import { eventTargetInternals, eventTargetMcpFields as fields, parseSourceEvents } from "../../src/eventloom/eventTarget.ts";
import { fakeEventRecord, fakeHash } from "../testkit/eventRecord.ts";

const { parseEventTarget, pickEventTarget } = eventTargetInternals;
const events = [1, 2, 3].map((seq) => fakeEventRecord(seq, "note.added", { text: `n${seq}` }, { thread: "s" }));
// fakeHash pads the seq with zeros: every hash starts with twelve zeros.
const sharedPrefix = "0".repeat(12);

function refusal(run: () => unknown): { code: string; field?: string; message: string } {
  try {
    run();
  } catch (error) {
    assert.ok(isZaxyError(error), String(error));
    assert.equal(error.exitCode, 2);
    return { code: error.code, field: error.details.field, message: error.message };
  }
  assert.fail("expected a refusal");
}

describe("parseEventTarget", () => {
  test("nothing named is undefined; a seq without a hash says the hash is required", () => {
    assert.equal(parseEventTarget({}, "s", fields), undefined);
    const missing = refusal(() => parseEventTarget({ seq: 2 }, "s", fields));
    assert.deepEqual([missing.code, missing.field], ["missing_target", "target_hash"]);
    assert.equal(missing.message, "target_hash is required with target_seq (or target CITATION)");
  });

  test("a hash of 11 hex is too short, 12 is enough; uppercase and 65 hex are refused", () => {
    assert.match(refusal(() => parseEventTarget({ hash: "a".repeat(11) }, "s", fields)).message, /has 11 hex characters; at least 12 are needed/);
    assert.deepEqual(parseEventTarget({ hash: "a".repeat(12) }, "s", fields), { seq: undefined, hash: "a".repeat(12) });
    assert.match(refusal(() => parseEventTarget({ hash: "A".repeat(12) }, "s", fields)).message, /^target_hash must be 64 lowercase hex, or a prefix of at least 12/);
    assert.match(refusal(() => parseEventTarget({ hash: "a".repeat(65) }, "s", fields)).message, /^target_hash must be 64 lowercase hex, or a prefix of at least 12/);
  });

  test("a citation gives seq and hash prefix; another session's, a short one, or one with seq/hash is refused", () => {
    assert.deepEqual(parseEventTarget({ citation: "eventloom://s/events/3#0123456789ab" }, "s", fields), { seq: 3, hash: "0123456789ab", citation: "eventloom://s/events/3#0123456789ab" });
    const other = refusal(() => parseEventTarget({ citation: "eventloom://t/events/3#0123456789ab" }, "s", fields));
    assert.deepEqual([other.code, other.field], ["target_session_mismatch", "target"]);
    assert.match(other.message, /cites session "t", but this call acts on session "s"/);
    assert.match(refusal(() => parseEventTarget({ citation: "eventloom://s/events/3#01234567" }, "s", fields)).message, /carries 8 hex characters of the hash; 12 to 64 are needed/);
    assert.match(refusal(() => parseEventTarget({ citation: "events/3" }, "s", fields)).message, /target must be a citation eventloom:\/\/<session>\/events\/<seq>#<hash prefix>/);
    assert.match(refusal(() => parseEventTarget({ citation: "eventloom://s/events/3#0123456789ab", seq: 3 }, "s", fields)).message, /Give target or target_seq\/target_hash, not both/);
  });
});

describe("pickEventTarget", () => {
  test("a prefix several events share is ambiguous and lists their seqs; with a seq it names that event", () => {
    const ambiguous = refusal(() => pickEventTarget(events, "s", { hash: sharedPrefix }, fields));
    assert.deepEqual([ambiguous.code, ambiguous.field], ["ambiguous_target", "target_hash"]);
    assert.equal(ambiguous.message, `target_hash ${sharedPrefix} matches 3 events in session "s" (seqs 1, 2, 3); give more hex characters or target_seq`);
    assert.deepEqual(pickEventTarget(events, "s", { seq: 2, hash: sharedPrefix }, fields), { seq: 2, hash: fakeHash(2) });
  });

  test("a full hash without a seq finds its event; an unknown prefix and a disagreeing seq are refused", () => {
    assert.deepEqual(pickEventTarget(events, "s", { hash: fakeHash(3) }, fields), { seq: 3, hash: fakeHash(3) });
    const unknown = refusal(() => pickEventTarget(events, "s", { hash: "f".repeat(12) }, fields));
    assert.deepEqual([unknown.code, unknown.message], ["unknown_target", `No event in session "s" has a hash starting with ${"f".repeat(12)}`]);
    const disagree = refusal(() => pickEventTarget(events, "s", { seq: 1, hash: fakeHash(3) }, fields));
    assert.deepEqual([disagree.code, disagree.field], ["target_mismatch", "target_seq"]);
    assert.equal(disagree.message, `target_seq 1 and target_hash ${fakeHash(3)} disagree: in session "s" the event whose hash starts with ${fakeHash(3)} is seq 3`);
  });
});

describe("parseSourceEvents", () => {
  const origin = { field: "--source-event", role: { noun: "the origin session", field: "--origin-session" } };

  test("SEQ:HASH, SEQ:PREFIX and a citation on the CLI; {seq, hash} and a citation over MCP", () => {
    const specs = parseSourceEvents([`2:${fakeHash(2)}`, `3:${sharedPrefix}`, "eventloom://s/events/1#0123456789ab"], "s", origin);
    assert.deepEqual(specs.map((s) => s.spec), [{ seq: 2, hash: fakeHash(2) }, { seq: 3, hash: sharedPrefix }, { seq: 1, hash: "0123456789ab", citation: "eventloom://s/events/1#0123456789ab" }]);
    const mcp = parseSourceEvents([{ seq: 2, hash: sharedPrefix }, "eventloom://s/events/1#0123456789ab"], "s", { field: "source_events" });
    assert.deepEqual(mcp.map((s) => s.fields.hash), ["source_events[0].hash", "source_events[1].hash"]);
  });

  test("a short prefix, another session's citation and junk are refused naming the item", () => {
    const short = refusal(() => parseSourceEvents([`3:${"a".repeat(11)}`], "s", origin));
    assert.deepEqual([short.code, short.field], ["invalid_source_event", "--source-event"]);
    const other = refusal(() => parseSourceEvents(["eventloom://t/events/1#0123456789ab"], "s", origin));
    assert.equal(other.message, `--source-event "eventloom://t/events/1#0123456789ab" cites session "t", but it must cite an event of the origin session "s" (--origin-session)`);
    const mcpShort = refusal(() => parseSourceEvents([{ seq: 1, hash: fakeHash(1) }, { seq: 1, hash: "abc" }], "s", { field: "source_events" }));
    assert.deepEqual([mcpShort.field, mcpShort.message], ["source_events[1].hash", `source_events[1].hash "abc" has 3 hex characters; at least 12 are needed to name one event`]);
    assert.equal(refusal(() => parseSourceEvents([42], "s", { field: "source_events" })).field, "source_events[0]");
  });

  test("a prefix several events share is ambiguous, named by the flag", () => {
    const [{ spec, fields: flagFields }] = parseSourceEvents([`eventloom://s/events/2#${sharedPrefix}`], "s", origin);
    assert.deepEqual(pickEventTarget(events, "s", spec, flagFields), { seq: 2, hash: fakeHash(2) });
    const [bare] = parseSourceEvents([{ hash: sharedPrefix }], "s", { field: "source_events" });
    const ambiguous = refusal(() => pickEventTarget(events, "s", bare.spec, bare.fields));
    assert.deepEqual([ambiguous.code, ambiguous.field], ["ambiguous_target", "source_events[0].hash"]);
  });
});
