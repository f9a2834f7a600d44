/**
 * Event context text and identities, cross-checked against python3 running Python's own
 * `event_context` and `_event_identities` rules on the same lines.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { fromJs, JsonNumber, parseJson, type JsonObject } from "../../src/canonical/mod.ts";
import { eventContext } from "../../src/compaction/eventContext.ts";
import { pythonJsonDumpsSorted } from "../../src/canonical/pythonText.ts";
import { contentIdentities, eventIdentities, hasSourceCitation } from "../../src/compaction/identities.ts";

const pythonEventContext = `
import json, sys
def event_context(event):
    payload = event.get("payload")
    payload_text = ""
    if isinstance(payload, dict):
        parts = [f"{key}={value}" for key, value in sorted(payload.items())]
        if "key" in payload and "value" in payload:
            parts.append(f"{payload['key']}={payload['value']}")
        payload_text = " ".join(parts)
    return " ".join(part for part in [str(event.get("timestamp", "")), str(event.get("type", "")), str(event.get("actor", "")), payload_text, json.dumps(payload, sort_keys=True) if isinstance(payload, dict) else ""] if part)
for line in sys.stdin:
    print(json.dumps(event_context(json.loads(line))))
`;

const payloadTexts = [
  '{"path":"docs/a.md","start_line":1,"end_line":5,"content":"café identity-code-0001 naïve 😀"}',
  '{"b":1.5,"a":1e-7,"c":5.0,"d":1e16,"e":-0.0,"f":123456789012345678901234567890,"g":true,"h":null}',
  '{"nested":{"z":[1,2.50,{"q":"it\'s \\"x\\""}],"a":"tab\\there"},"list":[],"obj":{}}',
  '{"key":"mode","value":"fast","\\ufb01":"lig","\\ud83d\\ude00":"astral"}',
  '{"summary":"line\\nbreak \\u0007 bell \\u00a0nbsp","description":"Doc-Code-0002 doc-code-0003 xdoc-code-0004"}',
  "{}",
];

test("eventContext equals Python's event_context byte for byte (floats, non-ASCII, nesting, key=value)", () => {
  const events = payloadTexts.map((text, i) => ({ timestamp: `2024-06-15T12:00:0${i}Z`, type: "document.indexed", actor: "agent-é", payload: parseJson(text) as JsonObject }));
  const input = payloadTexts.map((text, i) => `{"timestamp":"2024-06-15T12:00:0${i}Z","type":"document.indexed","actor":"agent-\\u00e9","payload":${text}}`).join("\n") + "\n";
  const run = spawnSync("python3", ["-c", pythonEventContext], { input, encoding: "utf8" });
  assert.equal(run.status, 0, run.stderr);
  const expected = run.stdout.trim().split("\n").map((line) => JSON.parse(line) as string);
  assert.deepEqual(events.map(eventContext), expected);
});

test("pythonJsonDumpsSorted uses Python's default separators and ensure_ascii", () => {
  assert.equal(pythonJsonDumpsSorted(parseJson('{"b":"é","a":[1,2.50]}')), '{"a": [1, 2.5], "b": "\\u00e9"}');
});

function record(payload: Record<string, unknown>, type = "document.indexed") {
  return { thread: "default", seq: 3, hash: "ab".repeat(32), type, payload: fromJs(payload) as JsonObject };
}

test("eventIdentities lists Python's identities in order, event ref apart", () => {
  const ids = eventIdentities(record({
    path: "docs/service-0004.md", start_line: 1, end_line: 5, source: "chat", turn_index: 2, taskId: "T-1", title: "Runbook",
    claim_key: "cache.ttl", content: "see identity-code-0004 and goal-code-0001", summary: "identity-code-0004 again", description: "",
  }));
  assert.equal(ids.eventRef, "eventloom://default/events/3#abababababab");
  assert.deepEqual(ids.content, ["docs/service-0004.md:1-5", "chat:turn-2", "T-1", "Runbook", "cache.ttl", "identity-code-0004", "goal-code-0001"]);
});

test("an identity equal to the event's own ref is left out of its content; another event's ref stays", () => {
  const own = "eventloom://default/events/3#abababababab";
  const other = "eventloom://default/events/2#cdcdcdcdcdcd";
  const event = record({ title: own, taskId: other, source: own, claim_value: "eventloom://default/events/3" });
  assert.deepEqual(eventIdentities(event).content, [other, "eventloom://default/events/3"]);
  assert.deepEqual(contentIdentities(event), [other, "eventloom://default/events/3"]);
  assert.deepEqual(contentIdentities(record({ title: "Runbook", path: "docs/a.md" })), ["docs/a.md", "Runbook"]);
});

test("eventIdentities falls back to the bare path or source without integer lines or turn", () => {
  const payload = fromJs({ path: "docs/a.md", start_line: 1, source: "chat" }) as JsonObject;
  payload.set("turn_index", new JsonNumber("2.0", true));
  assert.deepEqual(eventIdentities({ thread: "t", seq: 1, hash: "0".repeat(64), payload }).content, ["docs/a.md", "chat"]);
});

test("hasSourceCitation: documents need a path, transcript turns a source and an integer turn", () => {
  assert.equal(hasSourceCitation(record({ path: "docs/a.md" })), true);
  assert.equal(hasSourceCitation(record({ path: "" })), false);
  assert.equal(hasSourceCitation(record({ content: "x" })), false);
  assert.equal(hasSourceCitation(record({ source: "chat", turn_index: 1 }, "transcript.turn")), true);
  assert.equal(hasSourceCitation(record({ source: "chat", turn_index: "1" }, "transcript.turn")), false);
  assert.equal(hasSourceCitation(record({ turn_index: 1 }, "transcript.turn")), false);
  assert.equal(hasSourceCitation(record({}, "tool.call.completed")), true);
});
