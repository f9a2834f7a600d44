/**
 * The checkout fleet lane through the binary (docs/fleet.md "Checkout fleet lane"; reference
 * §5.4): fleet items appear only when config.json sets fleet_enabled AND the checkout names the
 * fleet AND the asking agent (--agent-id, default the session id) is enrolled and not untrusted;
 * only active fleet/global promotions, once each; their citations resolve to sealed fleet events;
 * and a checkout the lane does not serve is byte-identical to a plain checkout.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import { fromJs } from "../../src/canonical/mod.ts";
import { appendEvents } from "../../src/events/append.ts";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";
import { runZaxy, stackTraceLines, type ZaxyRun } from "../cli/zaxy.ts";

after(removeTempDirs);
const slow = { timeout: 60_000 };

let dir = "";
let root = "";
// deno-lint-ignore no-explicit-any
let active: any;
// deno-lint-ignore no-explicit-any
let pending: any;
// deno-lint-ignore no-explicit-any
let rolledBack: any;

function zaxy(args: string[]): ZaxyRun {
  return runZaxy(args, { cwd: dir });
}

// deno-lint-ignore no-explicit-any
function jsonOk(args: string[]): any {
  const run = zaxy([...args, "--json"]);
  assert.equal(run.code, 0, `${args.join(" ")}: ${run.stdout}${run.stderr}`);
  return JSON.parse(run.stdout);
}

function setFleetEnabled(value: unknown): void {
  fs.writeFileSync(path.join(root, "config.json"), JSON.stringify({ schema: "zaxy.config.v1", envelope: "v1", fleet_enabled: value }, null, 2) + "\n");
}

function source(session: string, title: string): string {
  const doc = jsonOk(["memory", "append", "task.completed", "--actor", session, "--session-id", session, "--payload-json", JSON.stringify({ title })]);
  return `${doc.seq}:${doc.hash}`;
}

const checkoutArgs = ["memory", "checkout", "auth failures", "--session-id", "agent-b", "--json"];

/** The checkout's stdout and stderr; exit 0 required. */
function checkout(extra: string[] = []): ZaxyRun {
  const run = zaxy([...checkoutArgs, ...extra]);
  assert.equal(run.code, 0, `${extra.join(" ")}: ${run.stdout}${run.stderr}`);
  assert.deepEqual(stackTraceLines(run.stderr), []);
  return run;
}

/** The full hash of line `seq` of a log (either envelope). */
function sealedHash(session: string, seq: number): { hash: string; type: string } {
  const line = JSON.parse(fs.readFileSync(path.join(root, `${session}.jsonl`), "utf8").trim().split("\n")[seq - 1]);
  return line.integrity ? { hash: line.integrity.hash.replace(/^sha256:/, ""), type: line.type } : { hash: line.hash, type: line.type };
}


/**
 * A plain checkout with a fleet lane's warning: in `warnings`, and at the end of the prompt,
 * under `# Context Warnings` (added when the plain prompt had none).
 */
function withLaneWarning<T extends { prompt: string; warnings: string[] }>(plain: T, warning: string): T {
  const lines = plain.prompt.includes("\n# Context Warnings\n") ? `\n- ${warning}` : `\n\n# Context Warnings\n- ${warning}`;
  return { ...plain, prompt: plain.prompt + lines, warnings: [...plain.warnings, warning] };
}
describe("checkout fleet lane", () => {
  before(async () => {
    dir = makeTempDir("zaxy-fleet-checkout");
    root = path.join(dir, ".eventloom");
    fs.mkdirSync(root, { recursive: true });
    // The fleet commands need the plane on; the lane-off test turns it off again.
    setFleetEnabled(true);
    jsonOk(["fleet", "create", "alpha", "--summary", "Auth workers"]);
    for (const agent of ["agent-a", "agent-b", "agent-u"]) jsonOk(["fleet", "enroll", "alpha", "--agent", agent, "--actor", "coordinator"]);
    jsonOk(["fleet", "assign-trust", "alpha", "--agent", "agent-u", "--trust-tier", "untrusted", "--actor", "coordinator"]);
    const a1 = source("agent-a", "JWKS cache expiry caused the auth failures");
    const a2 = source("agent-a", "rotate keys before expiry");
    const a3 = source("agent-a", "a guess about auth");
    source("agent-b", "investigating auth failures");
    const common = ["--origin-session", "agent-a", "--actor", "agent-a"];
    active = jsonOk(["fleet", "promote-outcome", "alpha", "--outcome", "failure", "--summary", "JWKS cache expiry caused the auth failures", "--claim-key", "auth.cause", "--source-event", a1, "--confidence", "0.9", ...common]);
    pending = jsonOk(["fleet", "promote-rule", "alpha", "--rule", "rotate keys before expiry", "--trigger", "jwks", "--source-event", a2, "--confidence", "0.5", ...common]);
    rolledBack = jsonOk(["fleet", "promote-skill", "alpha", "--skill-id", "auth-guess", "--skill-version", "1", "--source-event", a3, "--confidence", "0.95", ...common]);
    jsonOk(["fleet", "rollback", "alpha", "--promotion", rolledBack.promotion_id, "--reason", "wrong", "--actor", "coordinator"]);
    assert.deepEqual([active.review_status, pending.review_status], ["active", "pending"]);
    // An active promotion scoped to a mission, written straight into the fleet thread through the
    // library (a plain append to a fleet thread is refused): the lane must skip it.
    await appendEvents(root, "fleet.alpha", [{ type: "fleet.outcome.propagated", actor: "agent-a", payload: fromJs({
      fleet_id: "alpha", promotion_id: "fleetpromo:" + "a".repeat(24), outcome: "success", summary: "mission-only lesson", origin_session: "agent-a",
      origin_actor: "agent-a", visibility_scope: "mission", confidence: 0.99, source_events: [], review_status: "active", authority_status: "non_authoritative",
    }) }]);
  }, slow);

  test("lane off: --fleet-id is ignored, said on stderr and in the JSON warnings; otherwise the answer is a plain checkout's", slow, () => {
    fs.rmSync(path.join(root, "config.json"));
    const plain = checkout();
    assert.equal(plain.stderr, "");
    const asked = checkout(["--fleet-id", "alpha", "--agent-id", "agent-b"]);
    const warning = "fleet lane is off: fleet ids ignored; turn it on with `zaxy config set fleet_enabled true` (zaxy help --topic fleet; docs/fleet.md)";
    const expected = withLaneWarning(JSON.parse(plain.stdout), warning);
    assert.deepEqual(JSON.parse(asked.stdout), expected);
    assert.equal(asked.stderr, `zaxy: warning: ${warning}\n`);
    setFleetEnabled(false);
    assert.deepEqual(JSON.parse(checkout(["--fleet-id", "alpha"]).stdout), expected);
    // Enabling the lane does not change a checkout that names no fleet.
    setFleetEnabled(true);
    const enabledPlain = checkout();
    assert.equal(enabledPlain.stdout, plain.stdout);
    assert.equal(enabledPlain.stderr, "");
    assert.equal(JSON.parse(plain.stdout).diagnostics.fleet, undefined);
  });

  test("enabled, enrolled member: only the active fleet promotion, once, cited to its sealed fleet event", slow, () => {
    setFleetEnabled(true);
    const run = checkout(["--fleet-id", "alpha", "--fleet-id", "alpha"]);
    assert.equal(run.stderr, "");
    const doc = JSON.parse(run.stdout);
    const fleet = doc.diagnostics.fleet;
    assert.deepEqual([fleet.count, fleet.non_authoritative], [1, true]);
    assert.deepEqual(Object.keys(fleet.items[0]), [
      "fleet_id", "promotion_id", "kind", "summary", "citation", "source_event_citations", "review_status", "visibility_scope", "keystone",
      "confidence", "origin_actor", "origin_session", "non_authoritative", "authority_status",
    ]);
    const item = fleet.items[0];
    assert.deepEqual([item.promotion_id, item.kind, item.review_status, item.visibility_scope, item.origin_actor, item.authority_status], [
      active.promotion_id, "outcome", "active", "fleet", "agent-a", "non_authoritative",
    ]);
    assert.equal(item.citation, active.citation);
    assert.equal(doc.diagnostics.source_lanes.fleet, 1);
    assert.match(doc.prompt, /- Fleet: fleets=1, items=1, authority=non_authoritative/);

    const fact = doc.current_facts.find((f: { source: string }) => f.source === "fleet");
    assert.equal(fact.citation, active.citation);
    assert.deepEqual([fact.score, fact.source_lane, fact.entity_type, fact.entity_name], [0.9, "fleet", "fleet_promotion", active.promotion_id]);
    assert.deepEqual([fact.score_explanation.non_authoritative, fact.score_explanation.authority_status], [true, "non_authoritative"]);
    assert.equal(fact.content, "Fleet outcome (failure) from agent-a: JWKS cache expiry caused the auth failures");
    assert.ok(doc.evidence.some((e: { citation: string }) => e.citation === active.citation));

    // The citation names a sealed fleet.outcome.propagated event of fleet.alpha, and its source resolves to agent-a's log.
    const match = /^eventloom:\/\/fleet\.alpha\/events\/(\d+)#([0-9a-f]{12})$/.exec(item.citation);
    assert.ok(match, item.citation);
    const sealed = sealedHash("fleet.alpha", Number(match[1]));
    assert.deepEqual([sealed.type, sealed.hash.slice(0, 12), sealed.hash], ["fleet.outcome.propagated", match[2], active.promotion_event.hash]);
    const src = /^eventloom:\/\/agent-a\/events\/(\d+)#([0-9a-f]{12})$/.exec(item.source_event_citations[0]);
    assert.ok(src, item.source_event_citations[0]);
    assert.equal(sealedHash("agent-a", Number(src[1])).hash.slice(0, 12), src[2]);
    // The cited hash is the seal the verifier recomputes, so the citation leads to a verified event.
    const verify = zaxy(["verify", path.join(root, "fleet.alpha.jsonl"), "--json"]);
    assert.equal(verify.code, 0, verify.stdout);

    // Fleet items come on top of --limit: the session's own best fact stays.
    const own = JSON.parse(checkout(["--limit", "1"]).stdout).current_facts;
    assert.equal(own.length, 1);
    const withFleet = JSON.parse(checkout(["--limit", "1", "--fleet-id", "alpha"]).stdout).current_facts;
    assert.deepEqual(withFleet.map((f: { citation: string }) => f.citation).sort(), [own[0].citation, active.citation].sort());

    // The session id is the default agent id; --agent-id names the same member explicitly.
    assert.equal(checkout(["--fleet-id", "alpha", "--agent-id", "agent-b"]).stdout, run.stdout);
  });

  test("a stranger or an untrusted agent receives nothing: a plain checkout plus the warning naming the fleet", slow, () => {
    setFleetEnabled(true);
    const plain = JSON.parse(checkout().stdout);
    for (const agent of ["stranger", "agent-u"]) {
      const run = checkout(["--fleet-id", "alpha", "--agent-id", agent]);
      const warning = `fleet lane: agent "${agent}" is ${agent === "stranger" ? "not enrolled" : "'untrusted'"} in fleet "alpha"; no items from it`;
      assert.deepEqual(JSON.parse(run.stdout), withLaneWarning(plain, warning), agent);
      assert.equal(run.stderr, `zaxy: warning: ${warning}\n`);
    }
  });

  test("a fleet whose thread fails verification is skipped and listed as unavailable; the other fleet still serves", slow, () => {
    setFleetEnabled(true);
    jsonOk(["fleet", "create", "beta", "--summary", "Will be tampered"]);
    jsonOk(["fleet", "enroll", "beta", "--agent", "agent-b", "--actor", "coordinator"]);
    const betaLog = path.join(root, "fleet.beta.jsonl");
    const text = fs.readFileSync(betaLog, "utf8");
    fs.writeFileSync(betaLog, text.replace("Will be tampered", "Was been tampered"));
    const run = checkout(["--fleet-id", "beta", "--fleet-id", "alpha"]);
    const fleet = JSON.parse(run.stdout).diagnostics.fleet;
    assert.equal(fleet.count, 1);
    assert.equal(fleet.items[0].promotion_id, active.promotion_id);
    assert.equal(fleet.unavailable.length, 1);
    assert.equal(fleet.unavailable[0].fleet_id, "beta");
    assert.match(fleet.unavailable[0].reason, /fails verification at seq 1/);
    assert.match(JSON.parse(run.stdout).prompt, /- Fleet: fleets=2, items=1, unavailable=1, authority=non_authoritative/);
    assert.match(run.stderr, /fleet lane: fleet "beta" skipped/);
    fs.writeFileSync(betaLog, text);
  });

  test("bad input exits 2 naming the flag or the config key, and writes nothing", slow, () => {
    setFleetEnabled(true);
    const logs = fs.readdirSync(root).filter((f) => f.endsWith(".jsonl")).map((f) => [f, fs.readFileSync(path.join(root, f))] as const);
    const bad = (extra: string[], message: RegExp) => {
      const run = zaxy([...checkoutArgs, ...extra]);
      assert.equal(run.code, 2, `${extra.join(" ")}: ${run.stdout}${run.stderr}`);
      assert.deepEqual(stackTraceLines(run.stderr), []);
      assert.match(JSON.parse(run.stdout).error.message, message);
    };
    bad(["--agent-id", "agent-b"], /--agent-id applies only to the fleet lane: name a fleet with --fleet-id/);
    bad(["--fleet-id", "a/b"], /--fleet-id "a\/b" is not a fleet id/);
    bad(["--fleet-id", "nosuch"], /Unknown fleet "nosuch"/);
    setFleetEnabled("yes");
    bad(["--fleet-id", "alpha"], /fleet_enabled must be true or false, got "yes"/);
    setFleetEnabled(true);
    for (const [file, bytes] of logs) assert.deepEqual(fs.readFileSync(path.join(root, file)), bytes, file);
  });
});
