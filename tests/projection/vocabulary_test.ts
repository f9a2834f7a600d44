/**
 * The event vocabulary (issue 18, items 1 and 3): docs/events.md is exactly what the extractors
 * render; every registered extractor is documented and every documented type is read by the
 * engine; an append of a near-miss type says which known type is closest; the append that
 * switches a v1 log to legacy lines says so once; the demo appends only types the engine reads.
 * The CLI runs in process (`runCli` with a captured io).
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { fromJs } from "../../src/canonical/mod.ts";
import { type CapturedRun, runCliCaptured } from "../cli/inProcess.ts";
import { sessionEvents } from "../../src/demo/agentSessionDemo.ts";
import { envelopeSwitchWarning } from "../../src/eventloom/append.ts";
import { recordEvents } from "../../src/recording/record.ts";
import { renderEventsDoc } from "../../src/projection/extract/eventsDoc.ts";
import { extractEvent, extractorFor, registeredEventTypes } from "../../src/projection/extract/mod.ts";
import {
  closestKnownType,
  engineRecordTypes,
  eventTypeAliases,
  eventTypeDocs,
  eventVocabulary,
  knownEventTypes,
  mistypedKnownType,
  unknownTypeWarning,
} from "../../src/projection/extract/vocabulary.ts";
import { fakeEventRecord } from "../testkit/eventRecord.ts";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";

const repoRoot = path.resolve(fileURLToPath(new URL("../../", import.meta.url)));
after(removeTempDirs);

function zaxy(dir: string, args: string[]): Promise<CapturedRun> {
  return runCliCaptured(args, { cwd: dir, env: { EVENTLOOM_PATH: path.join(dir, ".eventloom") }, stdinIsTTY: true });
}

const docs = eventTypeDocs();

describe("docs/events.md", () => {
  test("equals renderEventsDoc() byte for byte", () => {
    const file = path.join(repoRoot, "docs", "events.md");
    const onDisk = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "";
    assert.ok(onDisk === renderEventsDoc(), "docs/events.md is stale: run `npm run docs:events` (bun scripts/events-doc.ts) and commit the file");
  });

  test("has one section per vocabulary type, lists the audit record types, and quotes both warnings as the code words them", () => {
    const text = renderEventsDoc();
    for (const spec of eventVocabulary) assert.ok(text.includes(`\n### \`${spec.type}\`\n`), spec.type);
    for (const record of engineRecordTypes) assert.ok(text.includes(`- \`${record.type}\`: `), record.type);
    assert.ok(text.includes(`zaxy: warning: ${unknownTypeWarning("decision.recorded", 1, "decision.made")}\n`));
    assert.ok(text.includes(`zaxy: warning: ${envelopeSwitchWarning("default", "user.preference_changed", 2)}\n`));
    assert.ok(text.includes("## Envelopes\n"));
  });
});

describe("the vocabulary against the engine", () => {
  test("every registered extractor type is in the vocabulary", () => {
    const documented = new Set(eventVocabulary.map((spec) => spec.type));
    assert.deepEqual(registeredEventTypes().filter((type) => !documented.has(type)), []);
  });

  test("every vocabulary type is read by the engine: its example never becomes the generic entity unless zaxy derives an event from it", () => {
    assert.equal(new Set(eventVocabulary.map((spec) => spec.type)).size, eventVocabulary.length, "no type twice");
    for (const doc of docs) {
      if (extractorFor(doc.type) !== undefined) {
        assert.equal(doc.fallback, false, `${doc.type}: its example fell back to event:${doc.type}:<seq>`);
      } else {
        assert.ok(doc.derived.length > 0, `${doc.type} has no extractor and its example derives no event`);
        for (const derived of doc.derived) assert.ok(derived.entities.length + derived.edges.length > 0, `${doc.type} → ${derived.type} projects nothing`);
      }
    }
  });

  test("every key of an example is read, except for the bookkeeping types that read nothing", () => {
    for (const doc of docs) {
      if (doc.fieldsRead.length === 0) {
        assert.deepEqual([doc.entities, doc.edges, doc.derived], [[], [], []], `${doc.type} reads nothing, so it must build nothing`);
        continue;
      }
      const top = new Set(doc.fieldsRead.map((field) => field.split(/[.[]/, 1)[0]));
      const unread = Object.keys(doc.example).filter((key) => !top.has(key) && !doc.readsRetentionFields);
      assert.deepEqual(unread, [], `${doc.type}: the example carries keys the engine does not read`);
    }
  });

  test("the fields read are found by running the extractor: alternatives, nested keys, and no key that changes nothing", () => {
    const byType = new Map(docs.map((doc) => [doc.type, doc]));
    assert.deepEqual(byType.get("task.claimed")!.fieldsRead, ["taskId", "task_id", "task"]);
    assert.deepEqual(byType.get("user.preference_changed")!.fieldsRead, ["userId", "user_id", "user", "key", "value", "preference"]);
    assert.ok(byType.get("memory.corrected")!.fieldsRead.includes("target.hash"));
    assert.ok(byType.get("memory.rule.generated")!.fieldsRead.includes("source_events[].seq"));
    // sessionRun looks up a task id for every lifecycle event, but only some of them use it.
    assert.ok(byType.get("tool.call.completed")!.fieldsRead.includes("task_id"));
    assert.ok(!byType.get("session.ended")!.fieldsRead.includes("task_id"));
    assert.equal(byType.get("goal.created")!.readsRetentionFields, true);
  });

  test("the audit record types have no extractor and are known without being in the vocabulary", () => {
    const documented = new Set(eventVocabulary.map((spec) => spec.type));
    for (const record of engineRecordTypes) {
      assert.equal(extractorFor(record.type), undefined, record.type);
      assert.ok(!documented.has(record.type), record.type);
      assert.ok(knownEventTypes().includes(record.type), record.type);
    }
  });

  test("the envelope each type is documented with is the one it is written in", () => {
    const legacy = docs.filter((doc) => !doc.v1).map((doc) => doc.type).sort();
    assert.deepEqual(legacy, ["fleet.promotion.rolled_back", "memory.rolled_back", "skill.outcome_recorded", "user.preference_changed"]);
  });
});

describe("closestKnownType", () => {
  test("maps the natural guesses of the issue, typos and case to a known type", () => {
    assert.equal(closestKnownType("decision.recorded"), "decision.made");
    assert.equal(closestKnownType("task.created"), "task.proposed");
    assert.equal(closestKnownType("preference.set"), "user.preference_changed");
    assert.equal(closestKnownType("goal.craeted"), "goal.created");
    assert.equal(closestKnownType("tool.call.complete"), "tool.call.completed");
    assert.equal(closestKnownType("Decision.Made"), "decision.made");
  });

  test("is undefined for a known type and for a type nothing known is close to", () => {
    for (const type of knownEventTypes()) assert.equal(closestKnownType(type), undefined, type);
    for (const type of ["note.added", "x", "custom.thing", "deploy.finished", "task.started", "command.result", "file.edit.completed"]) {
      assert.equal(closestKnownType(type), undefined, type);
    }
  });

  test("every alias is a guess the engine does not know, for a type it knows", () => {
    const known = new Set(knownEventTypes());
    for (const [guess, type] of eventTypeAliases) {
      assert.ok(!known.has(guess), `${guess} is itself a known type`);
      assert.ok(known.has(type), `${guess} → ${type}: not a known type`);
    }
  });
});

describe("zaxy memory append with a type the engine does not read", () => {
  const expected = unknownTypeWarning("decision.recorded", 1, "decision.made");

  test(`zaxy memory append decision.recorded --actor a --payload-json '{"decision":"x"}' appends, and says on stderr that decision.made is closest`, async () => {
    const dir = makeTempDir("vocab-unknown");
    const run = await zaxy(dir, ["memory", "append", "decision.recorded", "--actor", "a", "--payload-json", '{"decision":"x"}']);
    assert.equal(run.code, 0, run.err);
    assert.equal(run.err, `zaxy: warning: ${expected}\n`);
    assert.match(run.err, /the closest known type is "decision\.made"/);
    assert.match(run.out, /^appended decision\.recorded as seq 1 \(v1\)  eventloom:\/\/default\/events\/1#[0-9a-f]{12}\n$/);
    assert.equal(expected, 'event type "decision.recorded" is not one the engine reads, so seq 1 is kept only as a generic "event:decision.recorded:1" entity; the closest known type is "decision.made" (\'zaxy help events\' lists every type and the fields it reads)');
  });

  test("--json lists it in warnings, and stdout stays one JSON document", async () => {
    const dir = makeTempDir("vocab-unknown-json");
    const run = await zaxy(dir, ["memory", "append", "decision.recorded", "--actor", "a", "--payload-json", '{"decision":"x"}', "--json"]);
    assert.equal(run.code, 0, run.err);
    const doc = JSON.parse(run.out);
    assert.equal(doc.schema, "zaxy.memory.append.v1");
    assert.equal(doc.event_type, "decision.recorded");
    assert.deepEqual(doc.warnings, [expected]);
    assert.equal(run.err, `zaxy: warning: ${expected}\n`);
  });

  test("a known type, and a type nothing known is close to, append without a warning", async () => {
    const dir = makeTempDir("vocab-known");
    for (const type of ["decision.made", "note.added"]) {
      const run = await zaxy(dir, ["memory", "append", type, "--actor", "a", "--payload-json", '{"decision":"x"}', "--json"]);
      assert.equal(run.code, 0, run.err);
      assert.equal(run.err, "", type);
      assert.equal(JSON.parse(run.out).warnings, undefined, type);
    }
  });

  test("recordEvents warns once per near-miss type of a batch (as ingest and MCP memory_append get it), naming its first seq", async () => {
    const root = path.join(makeTempDir("vocab-batch"), ".eventloom");
    const item = (type: string) => ({ type, actor: "a", payload: fromJs({ title: "t" }) });
    const result = await recordEvents(root, "default", [item("task.created"), item("goal.created"), item("task.created"), item("decision.recorded")]);
    assert.deepEqual(result.warnings, [
      unknownTypeWarning("task.created", 1, "task.proposed"),
      unknownTypeWarning("decision.recorded", 4, "decision.made"),
    ]);
  });
});

describe("mistypedKnownType", () => {
  test("names the known type a case slip or a typo meant", () => {
    assert.equal(mistypedKnownType("Decision.Made"), "decision.made");
    assert.equal(mistypedKnownType("GOAL.CREATED"), "goal.created");
    assert.equal(mistypedKnownType("goal.craeted"), "goal.created");
    assert.equal(mistypedKnownType("tool.call.complete"), "tool.call.completed");
    assert.equal(mistypedKnownType("User.Preference_Changed"), "user.preference_changed");
  });

  test("is undefined for a known type, an alias (warned about instead) and a type nothing known is close to", () => {
    for (const type of knownEventTypes()) assert.equal(mistypedKnownType(type), undefined, type);
    for (const guess of eventTypeAliases.keys()) assert.equal(mistypedKnownType(guess), undefined, guess);
    for (const type of ["note.added", "x", "custom.thing", "deploy.finished", "task.started", "command.result", "file.edit.completed"]) {
      assert.equal(mistypedKnownType(type), undefined, type);
    }
  });
});

describe("the append that switches a v1 log to legacy lines", () => {
  const appendArgs = (type: string, payload: string, ...flags: string[]) => ["memory", "append", type, "--actor", "a", "--payload-json", payload, "--json", ...flags];
  const preference = '{"user":"maya","key":"release_branch","value":"main"}';

  test("user.preference_changed on a v1 log warns once (stderr and warnings); later appends do not warn again", async () => {
    const dir = makeTempDir("vocab-envelope");
    const first = await zaxy(dir, appendArgs("goal.created", '{"title":"Ship"}'));
    assert.equal(first.err, "");
    assert.equal(JSON.parse(first.out).envelope, "v1");

    const logPath = path.join(dir, ".eventloom", "default.jsonl");
    const before = fs.readFileSync(logPath);
    const refused = await zaxy(dir, appendArgs("user.preference_changed", preference));
    assert.equal(refused.code, 2, refused.err);
    assert.equal(JSON.parse(refused.out).error.code, "envelope_switch");
    assert.match(JSON.parse(refused.out).error.message, /event_type "user\.preference_changed" cannot be written in the eventloom\.v1 envelope .* would switch session "default" to legacy lines from seq 2 on, for this and every later append .*Nothing was written\. To switch the session for good, pass --allow-envelope-switch/);
    assert.deepEqual(fs.readFileSync(logPath), before, "a refused switch leaves the log's bytes as they were");

    const switched = await zaxy(dir, appendArgs("user.preference_changed", preference, "--allow-envelope-switch"));
    assert.equal(switched.code, 0, switched.err);
    const expected = envelopeSwitchWarning("default", "user.preference_changed", 2);
    assert.equal(switched.err, `zaxy: warning: ${expected}\n`);
    const doc = JSON.parse(switched.out);
    assert.equal(doc.envelope, "legacy");
    assert.deepEqual(doc.warnings, [expected]);
    assert.match(expected, /^event type "user\.preference_changed" cannot be written in the eventloom\.v1 envelope .* session "default" is written in legacy lines from seq 2 on/);

    const again = await zaxy(dir, appendArgs("user.preference_changed", '{"user":"maya","key":"release_branch","value":"release/1.5"}'));
    assert.equal(again.code, 0, again.err);
    assert.equal(again.err, "");
    assert.equal(JSON.parse(again.out).warnings, undefined);
    assert.equal(JSON.parse(again.out).envelope, "legacy");

    const later = await zaxy(dir, appendArgs("goal.created", '{"title":"Later"}'));
    assert.equal(later.err, "");
    assert.equal(JSON.parse(later.out).envelope, "legacy", "Python's rule: a legacy tail keeps every later append legacy");
  });

  test("the first event of an empty v1 log is refused without the flag (no log created) and warns from seq 1 with it; a log configured legacy never warns nor needs it", async () => {
    const fresh = makeTempDir("vocab-envelope-empty");
    const refused = await zaxy(fresh, appendArgs("user.preference_changed", preference));
    assert.equal(refused.code, 2, refused.err);
    assert.match(JSON.parse(refused.out).error.message, /from seq 1 on/);
    assert.ok(!fs.existsSync(path.join(fresh, ".eventloom", "default.jsonl")), "a refused first append leaves no log behind");
    const run = await zaxy(fresh, appendArgs("user.preference_changed", preference, "--allow-envelope-switch"));
    assert.equal(run.err, `zaxy: warning: ${envelopeSwitchWarning("default", "user.preference_changed", 1)}\n`);

    const legacyDir = makeTempDir("vocab-envelope-legacy");
    fs.mkdirSync(path.join(legacyDir, ".eventloom"));
    fs.writeFileSync(path.join(legacyDir, ".eventloom", "config.json"), JSON.stringify({ envelope: "legacy" }));
    for (const type of ["goal.created", "user.preference_changed"]) {
      const legacy = await zaxy(legacyDir, appendArgs(type, type === "goal.created" ? '{"title":"Ship"}' : preference));
      assert.equal(legacy.code, 0, legacy.err);
      assert.equal(legacy.err, "", type);
      assert.equal(JSON.parse(legacy.out).envelope, "legacy");
    }
  });
});

describe("zaxy demo", () => {
  test("appends only types the engine reads: no decision.recorded, and every session event becomes its own entity", () => {
    const source = fs.readFileSync(path.join(repoRoot, "src", "demo", "agentSessionDemo.ts"), "utf8");
    assert.ok(!source.includes('"decision.recorded"'));
    const types = [...source.matchAll(/\btype: "([a-z_.]+)"/g)].map((m) => m[1]);
    assert.ok(types.includes("decision.made"));
    for (const type of types) assert.equal(closestKnownType(type), undefined, `${type} is a near miss of a known type`);
    for (const type of types) assert.ok(knownEventTypes().includes(type), `${type} is not a type the engine reads`);
    sessionEvents.forEach((event, i) => {
      const result = extractEvent(fakeEventRecord(i + 1, event.type, event.payload, { actor: event.actor, thread: "demo-agent" }));
      assert.ok(!result.entities.some((entity) => entity.entityType === "event"), `${event.type} fell back to a generic entity`);
    });
    const decision = extractEvent(fakeEventRecord(7, sessionEvents[6].type, sessionEvents[6].payload, { actor: "agent", thread: "demo-agent" }));
    assert.deepEqual(decision.entities.map((entity) => `${entity.entityType}:${entity.name}`), ["decision:Refetch JWKS on unknown key id", "actor:agent"]);
  });
});
