// deno-test: own-process (runs zaxy in this process, which may load kuzu-wasm; scripts/deno-test.sh runs it alone)
// test-lane: full (slow)
/**
 * Design 003 (the I7 fleet plane, /work/shared/seeds/003_ac7d84283a2606e0.txt) against the
 * CLI (run in this process) and the built binary's MCP server: the config gate
 * (`fleet_enabled`, off by default), the default enrolment tier (`fleet_default_trust_tier`), the
 * audited trust refusal, visibility scopes beyond promotions (member events, the reserved
 * `fleet.global`), and keystones as mandatory checkout guidance.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, describe, test } from "node:test";
import { stackTraceLines, type ZaxyRun } from "../cli/zaxy.ts";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";
import { skipWithoutBinary as skip, startMcpServer } from "../mcp/mcpTestClient.ts";
import { runZaxyInProcess } from "../cli/inProcessRoot.ts";

after(removeTempDirs);
const slow = { timeout: 120_000 };

interface Root {
  dir: string;
  root: string;
  run(args: string[]): Promise<ZaxyRun>;
  // deno-lint-ignore no-explicit-any
  json(args: string[]): Promise<any>;
  config(value: Record<string, unknown>): void;
  bytes(session: string): Buffer;
  // deno-lint-ignore no-explicit-any
  events(session: string): any[];
  /** Appends an event to `session` as `actor` and returns `SEQ:HASH`. */
  append(session: string, actor: string, payload: Record<string, unknown>, type?: string): Promise<string>;
}

function makeRoot(name: string): Root {
  const dir = makeTempDir(name);
  const root = path.join(dir, ".eventloom");
  const run = (args: string[]) => runZaxyInProcess(args, { cwd: dir });
  const json = async (args: string[]) => {
    const result = await run([...args, "--json"]);
    assert.equal(result.code, 0, `${args.join(" ")}: ${result.stdout}${result.stderr}`);
    return JSON.parse(result.stdout);
  };
  const bytes = (session: string) => fs.readFileSync(path.join(root, `${session}.jsonl`));
  return {
    dir,
    root,
    run,
    json,
    config(value) {
      fs.mkdirSync(root, { recursive: true });
      fs.writeFileSync(path.join(root, "config.json"), JSON.stringify(value));
    },
    bytes,
    events: (session) => bytes(session).toString("utf8").trim().split("\n").map((line) => JSON.parse(line)),
    async append(session, actor, payload, type = "task.completed") {
      const doc = await json(["memory", "append", type, "--actor", actor, "--session-id", session, "--payload-json", JSON.stringify(payload)]);
      return `${doc.seq}:${doc.hash}`;
    },
  };
}

/** A root with the plane on, fleet `alpha` (steward coordinator) and agents enrolled by tier. */
async function fleetRoot(name: string, agents: Record<string, string>): Promise<Root> {
  const r = makeRoot(name);
  await r.json(["init", "--fleet"]);
  await r.json(["fleet", "create", "alpha", "--summary", "Auth workers"]);
  for (const [agent, tier] of Object.entries(agents)) await r.json(["fleet", "enroll", "alpha", "--agent", agent, "--trust-tier", tier, "--actor", "coordinator"]);
  return r;
}

// deno-lint-ignore no-explicit-any
async function checkoutJson(r: Root, session: string, extra: string[]): Promise<any> {
  const run = await r.run(["memory", "checkout", "auth lessons", "--session-id", session, ...extra, "--json"]);
  assert.equal(run.code, 0, run.stderr);
  return JSON.parse(run.stdout);
}

function expectBadInput(run: ZaxyRun, code: string, field: string | RegExp): void {
  assert.equal(run.code, 2, `${run.stdout}${run.stderr}`);
  assert.deepEqual(stackTraceLines(run.stderr), []);
  const error = JSON.parse(run.stdout).error;
  assert.equal(error.code, code);
  if (typeof field === "string") assert.equal(error.field, field);
  else assert.match(error.field, field);
}

const fleetCommands: string[][] = [
  ["create", "alpha", "--summary", "s"],
  ["enroll", "alpha", "--agent", "a", "--actor", "coordinator"],
  ["assign-trust", "alpha", "--agent", "a", "--trust-tier", "trusted", "--actor", "coordinator"],
  ["promote-skill", "alpha", "--skill-id", "s", "--skill-version", "1", "--origin-session", "a", "--source-event", `1:${"0".repeat(64)}`, "--confidence", "0.9", "--actor", "a"],
  ["promote-outcome", "alpha", "--outcome", "success", "--summary", "s", "--origin-session", "a", "--source-event", `1:${"0".repeat(64)}`, "--confidence", "0.9", "--actor", "a"],
  ["promote-rule", "alpha", "--rule", "r", "--trigger", "t", "--origin-session", "a", "--source-event", `1:${"0".repeat(64)}`, "--confidence", "0.9", "--actor", "a"],
  ["review", "alpha", "--promotion", `fleetpromo:${"a".repeat(24)}`, "--decision", "accepted", "--actor", "coordinator"],
  ["rollback", "alpha", "--promotion", `fleetpromo:${"a".repeat(24)}`, "--reason", "r", "--actor", "coordinator"],
  ["status", "alpha"],
  ["audit", "alpha"],
  ["escalate-finding", "alpha", "--mission", "m1", "--finding-id", "f1", "--actor", "coordinator"],
];

describe("design 003: fleet_enabled gates the whole plane", () => {
  test("design 003: with fleet_enabled off (the default) every fleet command refuses with exit 2 naming config.json fleet_enabled, and writes nothing", slow, async () => {
    const r = makeRoot("zaxy-seed-fleet-off");
    await r.append("a", "a", { title: "t" });
    const listing = () => fs.readdirSync(r.root).sort();
    const before = listing();
    for (const args of fleetCommands) {
      const run = await r.run(["fleet", ...args, "--json"]);
      expectBadInput(run, "fleet_disabled", "config.json fleet_enabled");
      assert.match(JSON.parse(run.stdout).error.message, /fleet plane is off/);
      const text = await r.run(["fleet", ...args]);
      assert.equal(text.code, 2);
      assert.match(text.stderr, /config\.json fleet_enabled/);
    }
    // Explicitly off is the same; a value that is not a boolean is bad input naming the key.
    r.config({ fleet_enabled: false });
    expectBadInput(await r.run(["fleet", "status", "alpha", "--json"]), "fleet_disabled", "config.json fleet_enabled");
    r.config({ fleet_enabled: "yes" });
    const invalid = await r.run(["fleet", "create", "alpha", "--summary", "s", "--json"]);
    expectBadInput(invalid, "invalid_config", "config.json fleet_enabled");
    assert.match(JSON.parse(invalid.stdout).error.message, /fleet_enabled must be true or false, got "yes"/);
    fs.rmSync(path.join(r.root, "config.json"));
    assert.deepEqual(listing(), before.filter((name) => name !== "config.json"));
    assert.equal(fs.existsSync(path.join(r.root, "fleet.alpha.jsonl")), false);
  });

  test("design 003: zaxy fleet --help says the plane is off by default and how to turn it on; zaxy init --fleet turns it on", slow, async () => {
    const r = makeRoot("zaxy-seed-fleet-help");
    const help = await r.run(["fleet", "--help"]);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /off by default/);
    assert.match(help.stdout, /"fleet_enabled": true/);
    const init = await r.json(["init", "--fleet"]);
    assert.equal(init.fleet_enabled, true);
    assert.equal(JSON.parse(fs.readFileSync(path.join(r.root, "config.json"), "utf8")).fleet_enabled, true);
    assert.equal((await r.json(["fleet", "create", "alpha", "--summary", "s"])).refused, false);
    // init --fleet on an existing root keeps the envelope and every other key.
    r.config({ schema: "zaxy.config.v1", envelope: "legacy", long_horizon_enabled: true });
    await r.json(["init", "--fleet"]);
    const config = JSON.parse(fs.readFileSync(path.join(r.root, "config.json"), "utf8"));
    assert.deepEqual([config.envelope, config.long_horizon_enabled, config.fleet_enabled], ["legacy", true, true]);
  });

  test("design 003: with fleet_enabled off the MCP fleet tools refuse (invalid_request naming config.json fleet_enabled) and write nothing", { ...slow, skip }, async () => {
    const r = makeRoot("zaxy-seed-fleet-mcp");
    fs.mkdirSync(r.root, { recursive: true });
    const mcp = await startMcpServer(r.root, { clientName: "zaxy-seed-fleet" });
    try {
      for (const [name, args] of [["fleet_create", { fleet_id: "alpha", summary: "s" }], ["fleet_status", { fleet_id: "alpha" }]] as const) {
        const outcome = await mcp.call(name, args);
        assert.equal(outcome.isError, true);
        assert.equal(outcome.doc.error.code, "invalid_request");
        assert.match(outcome.doc.error.message, /config\.json fleet_enabled/);
      }
      assert.equal(fs.existsSync(path.join(r.root, "fleet.alpha.jsonl")), false);
      r.config({ fleet_enabled: true });
      assert.equal((await mcp.callOk("fleet_create", { fleet_id: "alpha", summary: "s" })).refused, false);
      // The reserved id is refused through MCP too.
      const reserved = await mcp.call("fleet_create", { fleet_id: "global", summary: "s" });
      assert.equal(reserved.doc.error.code, "invalid_request");
      assert.match(reserved.doc.error.message, /"global" is reserved/);
      assert.equal(fs.existsSync(path.join(r.root, "fleet.global.jsonl")), false);
    } finally {
      await mcp.close();
    }
  });
});

describe("design 003: fleet_default_trust_tier", () => {
  test("design 003: an enrolment without --trust-tier gets config.json fleet_default_trust_tier (default member); a bad value is exit 2 naming it", slow, async () => {
    const r = await fleetRoot("zaxy-seed-fleet-tier", {});
    assert.equal((await r.json(["fleet", "enroll", "alpha", "--agent", "a", "--actor", "coordinator"])).trust_tier, "member");
    r.config({ fleet_enabled: true, fleet_default_trust_tier: "untrusted" });
    assert.equal((await r.json(["fleet", "enroll", "alpha", "--agent", "b", "--actor", "coordinator"])).trust_tier, "untrusted");
    // An explicit tier wins over the default.
    assert.equal((await r.json(["fleet", "enroll", "alpha", "--agent", "c", "--trust-tier", "trusted", "--actor", "coordinator"])).trust_tier, "trusted");
    const agents = (await r.json(["fleet", "status", "alpha"])).agents;
    assert.deepEqual(agents, [
      { agent_id: "coordinator", trust_tier: "steward" },
      { agent_id: "a", trust_tier: "member" },
      { agent_id: "b", trust_tier: "untrusted" },
      { agent_id: "c", trust_tier: "trusted" },
    ]);
    for (const bad of ["admin", 3]) {
      r.config({ fleet_enabled: true, fleet_default_trust_tier: bad });
      const before = r.bytes("fleet.alpha");
      const run = await r.run(["fleet", "enroll", "alpha", "--agent", "d", "--actor", "coordinator", "--json"]);
      expectBadInput(run, "invalid_config", "config.json fleet_default_trust_tier");
      assert.match(JSON.parse(run.stdout).error.message, /fleet_default_trust_tier must be one of untrusted, member, trusted, steward/);
      assert.deepEqual(r.bytes("fleet.alpha"), before);
    }
  });
});

describe("design 003: a refused promotion is audited, with no event on the fleet thread", () => {
  test("design 003: a promotion refused for insufficient trust is audited in the proposer's session; the fleet log stays byte-identical", slow, async () => {
    const r = await fleetRoot("zaxy-seed-fleet-refused", { "agent-m": "member" });
    const source = await r.append("agent-m", "agent-m", { title: "JWKS expiry caused the failures" });
    const [seq, hash] = source.split(":");
    const fleetBefore = r.bytes("fleet.alpha");
    // A member may not propose global: refused, recorded in its --session-id.
    const common = ["promote-outcome", "alpha", "--outcome", "failure", "--summary", "JWKS expiry", "--origin-session", "agent-m", "--source-event", source, "--confidence", "0.9"];
    const refused = await r.run(["fleet", ...common, "--actor", "agent-m", "--visibility-scope", "global", "--session-id", "agent-m-work", "--json"]);
    assert.equal(refused.code, 1, refused.stderr);
    const doc = JSON.parse(refused.stdout);
    assert.equal(doc.rejected, true);
    assert.deepEqual(r.bytes("fleet.alpha"), fleetBefore);
    const [audit] = r.events("agent-m-work");
    assert.equal(audit.type, "fleet.promotion.refused");
    assert.equal(audit.actorId, "agent-m");
    const p = audit.payload;
    assert.deepEqual(
      [p.fleet_id, p.fleet_thread, p.promotion_id, p.kind, p.agent_id, p.origin_session, p.requested_scope, p.required_tier, p.actual_tier, p.authority_status],
      ["alpha", "fleet.alpha", doc.promotion_id, "outcome", "agent-m", "agent-m", "global", "trusted", "member", "non_authoritative"],
    );
    assert.deepEqual(p.source_events, [{ seq: Number(seq), hash }]);
    assert.equal(p.reason, doc.reason);
    const fleetEvents = r.events("fleet.alpha");
    const head = fleetEvents[fleetEvents.length - 1];
    assert.deepEqual(p.fleet_head, { seq: fleetEvents.length, hash: head.integrity.hash.replace(/^sha256:/, "") });
    assert.equal(doc.refusal_event.session_id, "agent-m-work");
    assert.equal(doc.refusal_event.citation, `eventloom://agent-m-work/events/1#${doc.refusal_event.hash.slice(0, 12)}`);

    // Without --session-id the refusal goes to the origin session; text mode says where.
    const originBefore = r.events("agent-m").length;
    const stranger = await r.run(["fleet", ...common, "--actor", "stranger"]);
    assert.equal(stranger.code, 1);
    assert.match(stranger.stderr, /rejected: insufficient trust: actor 'stranger' \(not enrolled\)/);
    assert.match(stranger.stderr, /refusal recorded in session agent-m \(eventloom:\/\/agent-m\/events\/2#[0-9a-f]{12}\); the fleet thread is unchanged/);
    const origin = r.events("agent-m");
    assert.equal(origin.length, originBefore + 1);
    assert.deepEqual([origin[1].type, origin[1].payload.actual_tier, origin[1].payload.required_tier], ["fleet.promotion.refused", null, "member"]);
    assert.deepEqual(r.bytes("fleet.alpha"), fleetBefore);
    assert.equal((await r.run(["verify", path.join(r.root, "agent-m.jsonl")])).code, 0);

    // The audit record is not a fleet memory: an enrolled member's fleet checkout never receives it.
    await r.json(["fleet", "enroll", "alpha", "--agent", "agent-b", "--actor", "coordinator"]);
    await r.append("agent-b", "agent-b", { title: "auth lessons" });
    const lane = await checkoutJson(r, "agent-b", ["--fleet-id", "alpha"]);
    assert.equal(lane.diagnostics.fleet, undefined);
  });
});

describe("design 003: visibility scopes beyond promotions", () => {
  test("design 003: member events with visibility_scope fleet reach other enrolled agents' fleet checkout, cited; private, session and mission never cross", slow, async () => {
    const r = await fleetRoot("zaxy-seed-fleet-scopes", { "agent-a": "member", "agent-b": "member", "agent-u": "untrusted" });
    await r.json(["fleet", "create", "beta", "--summary", "Other fleet"]);
    const shared = await r.append("agent-a", "agent-a", { text: "auth lessons: JWKS keys rotate hourly", visibility_scope: "fleet" });
    for (const scope of ["private", "session", "mission"]) await r.append("agent-a", "agent-a", { text: `auth lessons kept ${scope}`, visibility_scope: scope });
    await r.append("agent-a", "agent-a", { text: "auth lessons without a scope" });
    await r.append("agent-a", "agent-a", { text: "auth lessons for beta only", visibility_scope: "fleet", fleet_id: "beta" });
    await r.append("agent-u", "agent-u", { text: "auth lessons from an untrusted agent", visibility_scope: "fleet" });
    await r.append("stranger", "stranger", { text: "auth lessons from a stranger", visibility_scope: "fleet" });
    await r.append("agent-b", "agent-b", { text: "auth work in progress" });

    const doc = await checkoutJson(r, "agent-b", ["--fleet-id", "alpha"]);
    const [seq, hash] = shared.split(":");
    const citation = `eventloom://agent-a/events/${seq}#${hash.slice(0, 12)}`;
    assert.deepEqual(doc.diagnostics.fleet.member_events, [{
      fleet_id: "alpha",
      session_id: "agent-a",
      seq: Number(seq),
      hash,
      citation,
      event_type: "task.completed",
      actor: "agent-a",
      visibility_scope: "fleet",
      non_authoritative: true,
      authority_status: "non_authoritative",
    }]);
    assert.equal(doc.diagnostics.fleet.count, 1);
    assert.equal(doc.diagnostics.source_lanes.fleet, 1);
    const fleetFacts = doc.current_facts.filter((f: { source: string }) => f.source === "fleet");
    assert.deepEqual(fleetFacts.map((f: { citation: string }) => f.citation), [citation]);
    assert.match(fleetFacts[0].content, /^Fleet member event from agent-a \(session agent-a, scope fleet\): .*JWKS keys rotate hourly/);
    assert.equal(fleetFacts[0].score_explanation.non_authoritative, true);
    const everything = JSON.stringify(doc);
    for (const hidden of ["kept private", "kept session", "kept mission", "without a scope", "beta only", "untrusted agent", "from a stranger"]) {
      assert.equal(everything.includes(hidden), false, `${hidden} crossed into agent-b's checkout`);
    }
    // An agent that is not enrolled (or is untrusted) receives nothing.
    const stranger = await r.run(["memory", "checkout", "auth lessons", "--session-id", "stranger", "--fleet-id", "alpha", "--json"]);
    assert.equal(stranger.code, 0);
    assert.equal(JSON.parse(stranger.stdout).diagnostics.fleet, undefined);
    const untrusted = await checkoutJson(r, "agent-u", ["--fleet-id", "alpha"]);
    assert.equal(untrusted.diagnostics.fleet, undefined);
  });

  test("design 003: visibility_scope global reaches agents of every named fleet when its author is trusted; a member's global event stays home", slow, async () => {
    const r = await fleetRoot("zaxy-seed-fleet-global", { "agent-b": "member" });
    await r.json(["fleet", "create", "beta", "--summary", "Platform"]);
    await r.json(["fleet", "enroll", "beta", "--agent", "agent-t", "--trust-tier", "trusted", "--actor", "coordinator"]);
    await r.json(["fleet", "enroll", "beta", "--agent", "agent-m", "--trust-tier", "member", "--actor", "coordinator"]);
    const global = await r.append("agent-t", "agent-t", { text: "auth lessons: never cache tokens past expiry", visibility_scope: "global" });
    await r.append("agent-m", "agent-m", { text: "auth lessons a member wanted global", visibility_scope: "global" });
    await r.append("agent-b", "agent-b", { text: "auth work" });
    const doc = await checkoutJson(r, "agent-b", ["--fleet-id", "alpha"]);
    const members = doc.diagnostics.fleet.member_events;
    assert.deepEqual(members.map((m: { fleet_id: string; citation: string; visibility_scope: string }) => [m.fleet_id, m.citation, m.visibility_scope]), [
      ["global", `eventloom://agent-t/events/1#${global.split(":")[1].slice(0, 12)}`, "global"],
    ]);
    assert.equal(JSON.stringify(doc).includes("a member wanted global"), false);
  });

  test("design 003: global is the reserved fleet.global thread: fleet create global, every fleet command and --fleet-id global are refused with exit 2", slow, async () => {
    const r = await fleetRoot("zaxy-seed-fleet-reserved", {});
    await r.append("default", "a", { title: "t" });
    for (const args of fleetCommands) {
      const run = await r.run(["fleet", ...args.map((arg) => (arg === "alpha" ? "global" : arg)), "--json"]);
      expectBadInput(run, "reserved_fleet_id", /^(ID|fleet_id)$/);
      assert.match(JSON.parse(run.stdout).error.message, /"global" is reserved: fleet\.global is the deployment-wide thread/);
    }
    expectBadInput(await r.run(["memory", "checkout", "x", "--fleet-id", "global", "--json"]), "reserved_fleet_id", /fleet-id/);
    assert.equal(fs.existsSync(path.join(r.root, "fleet.global.jsonl")), false);
    // Dotted ids that merely contain the word stay ordinary fleets.
    assert.equal((await r.json(["fleet", "create", "global.ops", "--summary", "s"])).refused, false);
  });
});

describe("design 003: keystones as mandatory guidance", () => {
  test("design 003: an active keystone rule is a mandatory checkout guidance line, cited and non-authoritative; rolled back it disappears", slow, async () => {
    const r = await fleetRoot("zaxy-seed-fleet-keystone", { "agent-a": "member", "agent-b": "member" });
    const k = await r.append("agent-a", "agent-a", { title: "rotated keys before expiry" });
    const plain = await r.append("agent-a", "agent-a", { title: "retried the login" });
    const keystone = await r.json(["fleet", "promote-rule", "alpha", "--rule", "rotate keys before expiry", "--trigger", "jwks", "--keystone", "--origin-session", "agent-a", "--source-event", k, "--confidence", "0.9", "--actor", "agent-a"]);
    await r.json(["fleet", "promote-rule", "alpha", "--rule", "retry login once", "--trigger", "login", "--origin-session", "agent-a", "--source-event", plain, "--confidence", "0.9", "--actor", "agent-a"]);
    assert.equal(keystone.review_status, "active");
    await r.append("agent-b", "agent-b", { title: "auth work" });
    const line = `Keystone rule of fleet alpha (${keystone.citation}): rotate keys before expiry [when: jwks] — follow it; non-authoritative, reversible by fleet rollback`;
    const doc = await checkoutJson(r, "agent-b", ["--fleet-id", "alpha"]);
    assert.deepEqual(doc.guidance.mandatory, [line]);
    const text = await r.run(["memory", "checkout", "auth lessons", "--session-id", "agent-b", "--fleet-id", "alpha"]);
    assert.equal(text.code, 0);
    assert.ok(text.stdout.includes(`## Checkout Guidance\n- Mandatory: ${line}\n- Trust: `), text.stdout);
    // Rolled back: no longer mandatory, and a checkout without a keystone has no mandatory key at all.
    await r.json(["fleet", "rollback", "alpha", "--promotion", keystone.promotion_id, "--reason", "superseded practice", "--actor", "coordinator"]);
    const after = await checkoutJson(r, "agent-b", ["--fleet-id", "alpha"]);
    assert.equal(after.guidance.mandatory, undefined);
    assert.equal(after.diagnostics.fleet.items.length, 1);
    assert.equal(after.diagnostics.fleet.items[0].keystone, false);
  });
});
