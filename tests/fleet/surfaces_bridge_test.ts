/**
 * The coordination bridge through the binary: `zaxy fleet escalate-finding` promotes an accepted
 * mission finding (`coordination.finding.promoted` in the mission's thread) to a fleet, citing
 * that event as the only source (reference §5.3 escalate_finding_to_fleet). Checks the fleet
 * event's payload bytes, the promotion id against python3, --as-skill, confidence precedence,
 * idempotency, and that refusals (no accepted promotion, unknown mission, bad flags: exit 2;
 * an unenrolled actor: exit 1) write nothing.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";
import { runZaxy, stackTraceLines, type ZaxyRun } from "../cli/zaxy.ts";

after(removeTempDirs);
const slow = { timeout: 60_000 };

let dir = "";
let root = "";
/** The mission log's events as appended: [reported f1, promoted f1, reported f2, promoted f3 (no confidence)]. */
const mission: Array<{ seq: number; hash: string; citation: string }> = [];

function zaxy(args: string[]): ZaxyRun {
  return runZaxy(args, { cwd: dir });
}

// deno-lint-ignore no-explicit-any
function jsonOk(args: string[]): any {
  const run = zaxy([...args, "--json"]);
  assert.equal(run.code, 0, `${args.join(" ")}: ${run.stdout}${run.stderr}`);
  assert.equal(run.stderr, "");
  return JSON.parse(run.stdout);
}

function fleetBytes(): Buffer {
  return fs.readFileSync(path.join(root, "fleet.alpha.jsonl"));
}

// deno-lint-ignore no-explicit-any
function lastFleetEvent(): any {
  return JSON.parse(fleetBytes().toString("utf8").trim().split("\n").at(-1)!);
}

/** Runs escalate-finding expecting `code`; the fleet log and the mission log are byte-identical afterwards. */
function refused(args: string[], code: number, message: RegExp): void {
  const fleetBefore = fleetBytes();
  const missionBefore = fs.readFileSync(path.join(root, "m1.jsonl"));
  const run = zaxy(["fleet", "escalate-finding", ...args]);
  assert.equal(run.code, code, `${args.join(" ")}: ${run.stdout}${run.stderr}`);
  assert.deepEqual(stackTraceLines(run.stderr), []);
  assert.match(run.stderr, message);
  assert.equal(run.stdout, "");
  assert.deepEqual(fleetBytes(), fleetBefore);
  assert.deepEqual(fs.readFileSync(path.join(root, "m1.jsonl")), missionBefore);
}

function promotionIdByPython(fleetId: string, kind: string, originSession: string, sources: Array<{ seq: number; hash: string }>): string | undefined {
  const script = "import hashlib,json,sys\nd=json.loads(sys.argv[1])\n" +
    "print('fleetpromo:'+hashlib.sha256(json.dumps(d,sort_keys=True,separators=(',',':')).encode()).hexdigest()[:24])";
  const run = spawnSync("python3", ["-c", script, JSON.stringify({ fleet_id: fleetId, kind, origin_session: originSession, source_events: sources })], { encoding: "utf8" });
  return run.status === 0 ? run.stdout.trim() : undefined;
}

describe("zaxy fleet escalate-finding", () => {
  before(() => {
    dir = makeTempDir("zaxy-fleet-bridge");
    root = path.join(dir, ".eventloom");
    zaxy(["init", "--fleet"]);
    jsonOk(["fleet", "create", "alpha", "--summary", "Platform agents"]);
    const finding = (type: string, payload: object) => {
      const doc = jsonOk(["memory", "append", type, "--actor", "coordinator", "--session-id", "m1", "--payload-json", JSON.stringify(payload)]);
      mission.push({ seq: doc.seq, hash: doc.hash, citation: doc.citation });
    };
    const f1 = { mission_id: "m1", worker_id: "worker-api", finding_id: "f1", summary: "JWKS refresh fixes the auth failures", evidence: [], confidence: 0.9, claim_key: "auth.cause", claim_value: "jwks" };
    finding("coordination.finding.reported", { ...f1, status: "pending" });
    finding("coordination.finding.promoted", { ...f1, source_event_seq: 1, source_event_hash: "0".repeat(64), status: "accepted" });
    finding("coordination.finding.reported", { ...f1, finding_id: "f2", status: "pending" });
    finding("coordination.finding.promoted", { mission_id: "m1", worker_id: "worker-db", finding_id: "f3", summary: "Index the sessions table", evidence: [], status: "accepted" });
  }, slow);

  test("an accepted finding becomes an outcome promotion citing its promoted event", slow, () => {
    const doc = jsonOk(["fleet", "escalate-finding", "alpha", "--mission", "m1", "--finding-id", "f1", "--actor", "coordinator"]);
    const promoted = mission[1];
    assert.equal(doc.schema, "zaxy.fleet.escalate_finding.v1");
    assert.deepEqual([doc.kind, doc.rejected, doc.review_status, doc.mission_id, doc.finding_id], ["outcome", false, "active", "m1", "f1"]);
    assert.deepEqual(doc.finding_event, promoted);
    const python = promotionIdByPython("alpha", "outcome", "m1", [{ seq: promoted.seq, hash: promoted.hash }]);
    if (python !== undefined) assert.equal(doc.promotion_id, python);
    const event = lastFleetEvent();
    assert.equal(event.type, "fleet.outcome.propagated");
    const payload = event.payload;
    assert.deepEqual(payload.source_events, [{ seq: promoted.seq, hash: promoted.hash }]);
    assert.deepEqual(
      [payload.origin_session, payload.origin_actor, payload.outcome, payload.summary, payload.claim_key, payload.confidence, payload.authority_status],
      ["m1", "worker-api", "success", "JWKS refresh fixes the auth failures", "auth.cause", 0.9, "non_authoritative"],
    );
    assert.equal(event.actorId, "coordinator");
    // The audit resolves the citation to the sealed mission event.
    const audit = jsonOk(["fleet", "audit", "alpha"]);
    assert.equal(audit.ok, true, JSON.stringify(audit));
    assert.ok(JSON.stringify(audit).includes(promoted.citation), JSON.stringify(audit));

    // The same finding again is the same promotion: nothing is appended.
    const before = fleetBytes();
    const again = jsonOk(["fleet", "escalate-finding", "alpha", "--mission", "m1", "--finding-id", "f1", "--actor", "coordinator"]);
    assert.deepEqual([again.idempotent, again.promotion_id], [true, doc.promotion_id]);
    assert.deepEqual(fleetBytes(), before);
  });

  test("--as-skill promotes skill finding:<id> version 1; --confidence beats the finding's; no confidence means 1.0", slow, () => {
    const skill = jsonOk(["fleet", "escalate-finding", "alpha", "--mission", "m1", "--finding-id", "f1", "--actor", "coordinator", "--as-skill", "--confidence", "0.5"]);
    assert.deepEqual([skill.kind, skill.review_status, skill.auto_applied], ["skill", "pending", false]);
    let payload = lastFleetEvent().payload;
    assert.deepEqual([payload.skill_id, payload.skill_version, payload.confidence, payload.review_status], ["finding:f1", "1", 0.5, "pending"]);
    assert.deepEqual(payload.source_events, [{ seq: mission[1].seq, hash: mission[1].hash }]);

    const defaulted = jsonOk(["fleet", "escalate-finding", "alpha", "--mission", "m1", "--finding-id", "f3", "--actor", "coordinator", "--visibility-scope", "global"]);
    assert.equal(defaulted.review_status, "active");
    payload = lastFleetEvent().payload;
    assert.deepEqual([payload.confidence, payload.origin_actor, payload.visibility_scope, payload.claim_key], [1.0, "worker-db", "global", undefined]);
    assert.match(fleetBytes().toString("utf8").trim().split("\n").at(-1)!, /"confidence":1\.0[,}]/);
  });

  test("refusals write nothing to the fleet or mission log: no accepted promotion, unknown mission and bad flags exit 2; an unenrolled actor exits 1 (audited in its own session)", slow, () => {
    refused(["alpha", "--mission", "m1", "--finding-id", "f2", "--actor", "coordinator"], 2, /Finding "f2" of mission "m1" has no accepted promotion/);
    refused(["alpha", "--mission", "m1", "--finding-id", "nope", "--actor", "coordinator"], 2, /no accepted promotion/);
    refused(["alpha", "--mission", "m9", "--finding-id", "f1", "--actor", "coordinator"], 2, /Mission "m9" has no log/);
    refused(["alpha", "--mission", "../m1", "--finding-id", "f1", "--actor", "coordinator"], 2, /--mission/);
    refused(["alpha", "--mission", "m1", "--finding-id", "f1"], 2, /--actor is required/);
    refused(["alpha", "--mission", "m1", "--finding-id", "f1", "--actor", "coordinator", "--confidence", "1.5"], 2, /--confidence/);
    refused(["alpha", "--mission", "m1", "--finding-id", "f1", "--actor", "coordinator", "--visibility-scope", "mission"], 2, /--visibility-scope/);
    refused(["nosuch", "--mission", "m1", "--finding-id", "f1", "--actor", "coordinator"], 2, /Unknown fleet "nosuch"/);
    // A trust refusal is audited in the proposer's own session (--session-id), never in the fleet or mission log.
    refused(["alpha", "--mission", "m1", "--finding-id", "f1", "--actor", "stranger", "--confidence", "0.95", "--session-id", "stranger"], 1, /rejected: insufficient trust: actor 'stranger' \(not enrolled\)/);
    const audit = fs.readFileSync(path.join(root, "stranger.jsonl"), "utf8").trim().split("\n").map((line) => JSON.parse(line));
    assert.deepEqual(audit.map((e) => [e.type, e.payload.fleet_id, e.payload.origin_session, e.payload.actual_tier]), [["fleet.promotion.refused", "alpha", "m1", null]]);
    const run = zaxy(["fleet", "escalate-finding", "alpha", "--mission", "m1", "--finding-id", "f2", "--actor", "coordinator", "--json"]);
    assert.equal(run.code, 2);
    assert.equal(JSON.parse(run.stdout).error.code, "no_accepted_promotion");
  });
});
