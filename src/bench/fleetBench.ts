/**
 * `zaxy bench fleet`: does knowledge one agent learns reach the rest of its fleet, does it reach
 * no one else, and does governance hold? Each scenario is a fresh Eventloom root (config.json
 * `fleet_enabled: true`) with a fleet, a teacher agent A, 3..10 receiver agents, one untrusted
 * agent and one stranger (never enrolled). Scenarios rotate the promotion kind (skill, outcome,
 * rule), the receiver count and the scope (every fourth is `global`, taught by a `trusted` A).
 *
 * Measured per scenario, through the library the CLI and MCP call (no shortcuts):
 * - transfer: A promotes what it learned (citing its sealed event); each receiver checks out
 *   with the fleet lane. A hit needs the promotion in `diagnostics.fleet.items`, its citation
 *   among the checkout's evidence, and that citation resolving to the sealed promotion event of
 *   the fleet thread. transfer_rate = hits / receivers.
 * - negative control: the stranger and the untrusted agent check out with the fleet lane, and
 *   a receiver checks out without naming the fleet; any fleet item in any of them is a leak.
 *   negative_control_rate = leaking checkouts / control checkouts (must be 0).
 * - governance: rejected promotions (untrusted, stranger) append nothing (fleet log bytes
 *   unchanged); the main promotion's gate event precedes it and is cited by it; a promotion
 *   conflicting with an active keystone stays pending and the keystone active; a pending
 *   (below-threshold) promotion is not in any checkout until a steward accepts it; rolling back
 *   a superseding promotion re-activates the one it superseded. governance_rate = scenarios
 *   where every check held / scenarios.
 * Timings (promotion, fleet-lane checkout, the lane alone, whole scenario) are reported with
 * the machine; they are not part of any rate.
 *
 * @example
 * const result = await runFleetBench({ scenarios: 2 });
 * result.transfer.rate; result.negative_control.rate; result.governance.rate; // 1, 0, 1
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fromJs } from "../canonical/mod.ts";
import { appendEvent } from "../events/append.ts";
import { parseCitationUri, type SourceEventRef } from "../eventloom/root.ts";
import { buildFleetLane } from "../fleet/checkoutLane.ts";
import { readFleetEvents } from "../fleet/fleetLog.ts";
import { reviewPromotion, rollbackPromotion } from "../fleet/lifecycle.ts";
import { assignTrust, createFleet, enrollAgent } from "../fleet/membership.ts";
import { keystoneHoldReason, promote, type PromotionInput } from "../fleet/promote.ts";
import { fleetState } from "../fleet/status.ts";
import { type PromotionKind, promotionKinds } from "../fleet/vocabulary.ts";
import { defaultEvolutionPolicy } from "../governance/evolutionGate.ts";
import { invariant } from "../invariant.ts";
import { validateMemoryRequest } from "../memory/request.ts";
import { MemoryService } from "../memory/service.ts";
import { atLeast, atMost, type BenchMachine, benchMachine, type BenchTarget, latencySummary, type LatencySummary, round } from "./measure.ts";

export const fleetBenchDefaults = { scenarios: 24 } as const;
export const fleetBenchScenariosMax = 1000;
/** Receivers per scenario cycle through this range (the Python FleetBench's 3..10 workers). */
export const receiversMin = 3;
export const receiversMax = 10;
/** Failures listed in the report (the counts cover all of them). */
const failuresListedMax = 20;

const steward = "coordinator";
const teacher = "agent-a";
const untrustedAgent = "agent-untrusted";
const stranger = "agent-stranger";
/** Above the default gate threshold (0.85): auto-applied. */
const autoConfidence = 0.9;
/** Below it: held for review. */
const reviewConfidence = 0.5;

export interface FleetBenchOptions {
  scenarios: number;
  progress?: (message: string) => void;
}

export interface GovernanceChecks {
  rejection_appends_nothing: boolean;
  gate_event_cited: boolean;
  keystone_hold_pending: boolean;
  pending_excluded_until_review: boolean;
  rollback_reactivates: boolean;
}

export interface FleetBenchResult {
  scenarios: number;
  scenario_plan: { receivers_min: number; receivers_max: number; kinds: { [kind: string]: number }; scopes: { [scope: string]: number } };
  transfer: { rate: number; hits: number; receivers: number };
  negative_control: { rate: number; leaks: number; checkouts: number; stranger_leaks: number; untrusted_leaks: number; lane_off_leaks: number };
  governance: { rate: number; scenarios_held: number } & { [check in keyof GovernanceChecks as `${check}_rate`]: number };
  timings_ms: {
    promote: LatencySummary | null;
    checkout_fleet_lane: LatencySummary | null;
    fleet_lane_build: LatencySummary | null;
    scenario: LatencySummary | null;
    total_ms: number;
  };
  failures: Array<{ scenario: number; check: string; detail: string }>;
  targets: { [name: string]: BenchTarget };
  machine: BenchMachine;
}

interface ScenarioPlan {
  index: number;
  kind: PromotionKind;
  scope: "fleet" | "global";
  receivers: string[];
  code: string;
}

export function scenarioPlan(index: number): ScenarioPlan {
  const count = receiversMin + (index % (receiversMax - receiversMin + 1));
  const receivers = Array.from({ length: count }, (_, r) => `agent-r${String(r + 1).padStart(2, "0")}`);
  return {
    index,
    kind: promotionKinds[index % promotionKinds.length],
    scope: index % 4 === 3 ? "global" : "fleet",
    receivers,
    code: `fleet-code-${String(index).padStart(4, "0")}`,
  };
}

interface ScenarioOutcome {
  hits: number;
  receivers: number;
  leaks: { stranger: number; untrusted: number; laneOff: number; checkouts: number };
  governance: GovernanceChecks;
  promoteMs: number[];
  checkoutMs: number[];
  laneMs: number[];
  failures: Array<{ check: string; detail: string }>;
}

/** The kind-specific fields of the taught promotion; the scenario's code is in its text. */
function lessonFields(plan: ScenarioPlan): Partial<PromotionInput> {
  if (plan.kind === "skill") return { skillId: `fix-${plan.code}`, skillVersion: "1" };
  if (plan.kind === "outcome") return { outcome: "failure", summary: `Token cache expiry ${plan.code} broke auth`, claimKey: `bench.cause.${plan.index}` };
  return { rule: `Refresh tokens before expiry (${plan.code})`, trigger: `auth-${plan.index}` };
}

async function learned(root: string, session: string, title: string): Promise<SourceEventRef> {
  const event = await appendEvent(root, session, { type: "task.completed", actor: session, payload: fromJs({ title }) });
  return { seq: event.seq, hash: event.hash };
}

/** One scenario's fleet, root and outcome, shared by its stages. */
interface Scenario {
  plan: ScenarioPlan;
  root: string;
  fleetId: string;
  fleetLog: string;
  policy: typeof defaultEvolutionPolicy;
  out: ScenarioOutcome;
  fail: (check: string, detail: string) => void;
}

type Taught = Awaited<ReturnType<typeof promote>>;
type CheckoutDoc = Awaited<ReturnType<MemoryService["checkout"]>>;

/** Stage 1: the fleet, with the teacher, the receivers and an untrusted control enrolled. */
async function setUpFleet(scenario: Scenario): Promise<void> {
  const { plan, root, fleetId } = scenario;
  fs.mkdirSync(root, { recursive: true });
  fs.writeFileSync(path.join(root, "config.json"), JSON.stringify({ fleet_enabled: true }) + "\n");
  await createFleet(root, { fleetId, summary: `FleetBench scenario ${plan.index}`, actor: steward });
  await enrollAgent(root, { fleetId, agentId: teacher, actor: steward });
  if (plan.scope === "global") await assignTrust(root, { fleetId, agentId: teacher, trustTier: "trusted", actor: steward, rationale: "teaches globally" });
  for (const receiver of plan.receivers) await enrollAgent(root, { fleetId, agentId: receiver, actor: steward });
  await enrollAgent(root, { fleetId, agentId: untrustedAgent, actor: steward });
  await assignTrust(root, { fleetId, agentId: untrustedAgent, trustTier: "untrusted", actor: steward, rationale: "control" });
}

/** Stage 2: the teacher learns something and teaches it; null (a failure) unless it is active. */
async function teachLesson(scenario: Scenario): Promise<Taught | null> {
  const { plan, root, fleetId, out } = scenario;
  const lessonSource = await learned(root, teacher, `Resolved auth outage ${plan.code}`);
  const started = performance.now();
  const taught = await promote(root, plan.kind, {
    fleetId,
    actor: teacher,
    originSession: teacher,
    sourceEvents: [lessonSource],
    confidence: autoConfidence,
    visibilityScope: plan.scope,
    ...lessonFields(plan),
  }, { policy: scenario.policy });
  out.promoteMs.push(performance.now() - started);
  if (taught.rejected || taught.review_status !== "active" || taught.promotion_event === null || taught.citation === null) {
    scenario.fail("promote", `teacher promotion was ${taught.rejected ? "rejected" : taught.review_status}: ${taught.reason}`);
    return null;
  }
  return taught;
}

/** Stage 3: the gate event comes first and the promotion cites it. */
function checkGateCited(scenario: Scenario, taught: Taught, fleetEvents: Awaited<ReturnType<typeof readFleetEvents>>): void {
  const promotionSeq = taught.promotion_event!.seq;
  const promotionEvent = fleetEvents[promotionSeq - 1];
  const gate = taught.gate_event;
  const gateEvent = gate === null ? undefined : fleetEvents[gate.seq - 1];
  const citedGate = promotionEvent?.payload.get("gate_event");
  const cited = gate !== null && gateEvent !== undefined && gateEvent.type === "evolution.gate.evaluated" &&
    gateEvent.hash === gate.hash && gate.seq < promotionSeq &&
    citedGate instanceof Map && citedGate.get("hash") === gate.hash;
  scenario.out.governance.gate_event_cited = cited;
  if (!cited) scenario.fail("gate_event_cited", `gate ${JSON.stringify(gate)} not before and cited by promotion ${promotionSeq}`);
}

/** A checkout by `session` for the scenario's query, timed. */
async function timedCheckout(scenario: Scenario, service: MemoryService, session: string, fleetIds: string[] | undefined): Promise<{ doc: CheckoutDoc; ms: number }> {
  const request = validateMemoryRequest({ sessionId: session, query: `auth outage ${scenario.plan.code}`, fleetIds, agentId: undefined });
  const mark = performance.now();
  const doc = await service.checkout(request);
  return { doc, ms: performance.now() - mark };
}

function fleetItemsIn(doc: CheckoutDoc): number {
  const section = doc.diagnostics.fleet as { count?: number } | undefined;
  return (section?.count ?? 0) + doc.evidence.filter((item) => item.source === "fleet").length;
}

/** Stage 4, transfer: every receiver's fleet-lane checkout must cite the sealed promotion event. */
async function checkTransfer(scenario: Scenario, service: MemoryService, taught: Taught, fleetEvents: Awaited<ReturnType<typeof readFleetEvents>>): Promise<void> {
  const { plan, root, fleetId, out } = scenario;
  for (const receiver of plan.receivers) {
    await learned(root, receiver, `Investigating auth outage ${plan.code}`);
    const { doc, ms } = await timedCheckout(scenario, service, receiver, [fleetId]);
    out.checkoutMs.push(ms);
    const items = ((doc.diagnostics.fleet as { items?: Array<{ promotion_id: string }> } | undefined)?.items) ?? [];
    const listed = items.some((item) => item.promotion_id === taught.promotion_id);
    const cited = doc.evidence.some((item) => item.citation === taught.citation && item.source === "fleet");
    const parsed = parseCitationUri(taught.citation!);
    const sealed = parsed !== undefined && parsed.thread === `fleet.${fleetId}` && fleetEvents[parsed.seq - 1]?.hash.startsWith(parsed.hashPrefix) === true &&
      fleetEvents[parsed.seq - 1]?.hash === taught.promotion_event!.hash;
    if (listed && cited && sealed) out.hits++;
    else scenario.fail("transfer", `${receiver}: listed ${listed}, cited ${cited}, sealed ${sealed}`);
  }
  const laneMark = performance.now();
  await buildFleetLane({ root, fleetIds: [fleetId], agentId: plan.receivers[0] });
  out.laneMs.push(performance.now() - laneMark);
}

/** Stage 5, negative controls: never enrolled, untrusted, and a member who does not name the fleet. */
async function checkNegativeControls(scenario: Scenario, service: MemoryService): Promise<void> {
  const { plan, root, fleetId, out } = scenario;
  for (const [agent, key] of [[stranger, "stranger"], [untrustedAgent, "untrusted"]] as const) {
    await learned(root, agent, `Investigating auth outage ${plan.code}`);
    const { doc } = await timedCheckout(scenario, service, agent, [fleetId]);
    out.leaks.checkouts++;
    if (fleetItemsIn(doc) > 0) {
      out.leaks[key]++;
      scenario.fail("negative_control", `${agent} received ${fleetItemsIn(doc)} fleet items`);
    }
  }
  const laneOff = await timedCheckout(scenario, service, plan.receivers[0], undefined);
  out.leaks.checkouts++;
  if (fleetItemsIn(laneOff.doc) > 0) {
    out.leaks.laneOff++;
    scenario.fail("negative_control", `${plan.receivers[0]} without --fleet-id received fleet items`);
  }
}

/**
 * Stage 6: rejections append nothing to the fleet thread: not a gate event, not a byte. Each is
 * audited in the refused agent's own session instead (design 003).
 */
async function checkRejections(scenario: Scenario): Promise<void> {
  const { plan, root, fleetId, fleetLog, policy, out } = scenario;
  const before = fs.readFileSync(fleetLog);
  const untrustedSource = await learned(root, untrustedAgent, `Untrusted claim ${plan.code}`);
  const rejections = [
    await promote(root, "outcome", { fleetId, actor: untrustedAgent, originSession: untrustedAgent, sourceEvents: [untrustedSource], confidence: 0.99, outcome: "success", summary: "trust me" }, { policy }),
    await promote(root, "outcome", { fleetId, actor: stranger, originSession: untrustedAgent, sourceEvents: [untrustedSource], confidence: 0.99, outcome: "success", summary: "trust me" }, { policy, refusalSessionId: stranger }),
  ];
  out.governance.rejection_appends_nothing = rejections.every((r) => r.rejected) && fs.readFileSync(fleetLog).equals(before);
  if (!out.governance.rejection_appends_nothing) scenario.fail("rejection_appends_nothing", rejections.map((r) => `${r.rejected}:${r.reason}`).join("; "));
}

/** Stage 7: a keystone holds a conflicting auto-applicable promotion pending, and stays active. */
async function checkKeystoneHold(scenario: Scenario): Promise<void> {
  const { plan, root, fleetId, policy, out } = scenario;
  const keystoneSource = await learned(root, steward, `Deploy policy ${plan.code}`);
  const keystone = await promote(root, "rule", {
    fleetId, actor: steward, originSession: steward, sourceEvents: [keystoneSource], confidence: 0.95, rule: "Deploy only after canary", trigger: `deploy-${plan.index}`, keystone: true,
  }, { policy });
  const challengerSource = await learned(root, teacher, `Deploy shortcut ${plan.code}`);
  const challenger = await promote(root, "rule", {
    fleetId, actor: teacher, originSession: teacher, sourceEvents: [challengerSource], confidence: 0.95, rule: "Deploy straight to production", trigger: `deploy-${plan.index}`,
  }, { policy });
  const state = await fleetState(root, fleetId);
  out.governance.keystone_hold_pending = keystone.review_status === "active" && challenger.review_status === "pending" &&
    challenger.reason === keystoneHoldReason && challenger.supersessions.length === 0 &&
    state.promotions.get(keystone.promotion_id)?.reviewStatus === "active";
  if (!out.governance.keystone_hold_pending) scenario.fail("keystone_hold_pending", `keystone ${keystone.review_status}, challenger ${challenger.review_status} (${challenger.reason})`);
}

/** Stage 8: below the threshold a promotion is pending, so no checkout shows it until a steward accepts it. */
async function checkPendingReview(scenario: Scenario): Promise<void> {
  const { plan, root, fleetId, policy, out } = scenario;
  const pendingSource = await learned(root, teacher, `Tentative lesson ${plan.code}`);
  const tentative = await promote(root, "skill", {
    fleetId, actor: teacher, originSession: teacher, sourceEvents: [pendingSource], confidence: reviewConfidence, skillId: `tentative-${plan.code}`, skillVersion: "1",
  }, { policy });
  const listedFor = async (promotionId: string) => {
    const lane = await buildFleetLane({ root, fleetIds: [fleetId], agentId: plan.receivers[0] });
    return lane.diagnostics.items.some((item) => item.promotion_id === promotionId);
  };
  const hiddenWhilePending = tentative.review_status === "pending" && !(await listedFor(tentative.promotion_id));
  const review = await reviewPromotion(root, { fleetId, promotionId: tentative.promotion_id, decision: "accepted", actor: steward, rationale: "checked" });
  out.governance.pending_excluded_until_review = hiddenWhilePending && !review.refused && (await listedFor(tentative.promotion_id));
  if (!out.governance.pending_excluded_until_review) scenario.fail("pending_excluded_until_review", `pending ${tentative.review_status}, hidden ${hiddenWhilePending}, review ${review.reason}`);
}

/** Stage 9: rolling back a superseding promotion re-activates the one it superseded. */
async function checkRollback(scenario: Scenario): Promise<void> {
  const { plan, root, fleetId, policy, out } = scenario;
  const firstSource = await learned(root, teacher, `Cause A ${plan.code}`);
  const first = await promote(root, "outcome", {
    fleetId, actor: teacher, originSession: teacher, sourceEvents: [firstSource], confidence: autoConfidence, outcome: "success", summary: "cause A", claimKey: `gov.claim.${plan.index}`,
  }, { policy });
  const rival = plan.receivers[0];
  const secondSource = await learned(root, rival, `Cause B ${plan.code}`);
  const second = await promote(root, "outcome", {
    fleetId, actor: rival, originSession: rival, sourceEvents: [secondSource], confidence: autoConfidence, outcome: "failure", summary: "cause B", claimKey: `gov.claim.${plan.index}`,
  }, { policy });
  const superseded = second.supersessions.some((s) => s.superseded_promotion_id === first.promotion_id) &&
    (await fleetState(root, fleetId)).promotions.get(first.promotion_id)?.reviewStatus === "superseded";
  const rolled = await rollbackPromotion(root, { fleetId, promotionId: second.promotion_id, reason: "wrong cause", actor: steward }, { policy });
  const state = await fleetState(root, fleetId);
  out.governance.rollback_reactivates = superseded && !rolled.refused && state.promotions.get(first.promotion_id)?.reviewStatus === "active" &&
    state.promotions.get(second.promotion_id)?.reviewStatus === "rolled_back";
  if (!out.governance.rollback_reactivates) scenario.fail("rollback_reactivates", `superseded ${superseded}, rollback ${rolled.reason}`);
}

async function runScenario(plan: ScenarioPlan, root: string): Promise<ScenarioOutcome> {
  const fleetId = `bench-${plan.index}`;
  const out: ScenarioOutcome = {
    hits: 0,
    receivers: plan.receivers.length,
    leaks: { stranger: 0, untrusted: 0, laneOff: 0, checkouts: 0 },
    governance: { rejection_appends_nothing: false, gate_event_cited: false, keystone_hold_pending: false, pending_excluded_until_review: false, rollback_reactivates: false },
    promoteMs: [],
    checkoutMs: [],
    laneMs: [],
    failures: [],
  };
  const scenario: Scenario = {
    plan,
    root,
    fleetId,
    fleetLog: path.join(root, `fleet.${fleetId}.jsonl`),
    policy: defaultEvolutionPolicy,
    out,
    fail: (check, detail) => void out.failures.push({ check, detail }),
  };
  await setUpFleet(scenario);
  const taught = await teachLesson(scenario);
  if (taught === null) return out;
  const fleetEvents = await readFleetEvents(root, fleetId);
  checkGateCited(scenario, taught, fleetEvents);
  const service = new MemoryService(root);
  await checkTransfer(scenario, service, taught, fleetEvents);
  await checkNegativeControls(scenario, service);
  await checkRejections(scenario);
  await checkKeystoneHold(scenario);
  await checkPendingReview(scenario);
  await checkRollback(scenario);
  // Every receiver's checkout was either a hit or a listed failure.
  invariant(out.checkoutMs.length === plan.receivers.length, `${out.checkoutMs.length} transfer checkouts timed for ${plan.receivers.length} receivers`);
  return out;
}

function rate(numerator: number, denominator: number): number {
  return denominator === 0 ? 0 : round(numerator / denominator, 4);
}

/**
 * Runs `options.scenarios` scenarios, each in its own temporary root (removed afterwards).
 */
export async function runFleetBench(options: FleetBenchOptions): Promise<FleetBenchResult> {
  const machine = benchMachine();
  const base = fs.mkdtempSync(path.join(os.tmpdir(), "zaxy-bench-fleet-"));
  const outcomes: ScenarioOutcome[] = [];
  const scenarioMs: number[] = [];
  const kinds: { [kind: string]: number } = {};
  const scopes: { [scope: string]: number } = {};
  const failures: FleetBenchResult["failures"] = [];
  const started = performance.now();
  try {
    for (let index = 0; index < options.scenarios; index++) {
      const plan = scenarioPlan(index);
      kinds[plan.kind] = (kinds[plan.kind] ?? 0) + 1;
      scopes[plan.scope] = (scopes[plan.scope] ?? 0) + 1;
      const root = path.join(base, `scenario-${index}`, ".eventloom");
      const mark = performance.now();
      const outcome = await runScenario(plan, root);
      scenarioMs.push(performance.now() - mark);
      outcomes.push(outcome);
      for (const failure of outcome.failures) failures.push({ scenario: index, ...failure });
      fs.rmSync(path.dirname(root), { recursive: true, force: true });
      options.progress?.(`scenario ${index + 1}/${options.scenarios}: ${plan.kind} to ${plan.receivers.length} receivers (${plan.scope}), ` +
        `${outcome.hits}/${outcome.receivers} transferred, ${outcome.failures.length} failures, ${Math.round(scenarioMs.at(-1)!)} ms`);
    }
  } finally {
    fs.rmSync(base, { recursive: true, force: true });
  }
  const totalMs = performance.now() - started;
  const sum = (pick: (o: ScenarioOutcome) => number) => outcomes.reduce((total, o) => total + pick(o), 0);
  const hits = sum((o) => o.hits);
  const receivers = sum((o) => o.receivers);
  const leaks = { stranger: sum((o) => o.leaks.stranger), untrusted: sum((o) => o.leaks.untrusted), laneOff: sum((o) => o.leaks.laneOff) };
  const leakTotal = leaks.stranger + leaks.untrusted + leaks.laneOff;
  const controlCheckouts = sum((o) => o.leaks.checkouts);
  const checkRate = (check: keyof GovernanceChecks) => rate(outcomes.filter((o) => o.governance[check]).length, outcomes.length);
  const held = outcomes.filter((o) => Object.values(o.governance).every(Boolean)).length;
  const transferRate = rate(hits, receivers);
  const negativeRate = rate(leakTotal, controlCheckouts);
  const governanceRate = rate(held, outcomes.length);
  return {
    scenarios: outcomes.length,
    scenario_plan: { receivers_min: receiversMin, receivers_max: receiversMax, kinds, scopes },
    transfer: { rate: transferRate, hits, receivers },
    negative_control: {
      rate: negativeRate,
      leaks: leakTotal,
      checkouts: controlCheckouts,
      stranger_leaks: leaks.stranger,
      untrusted_leaks: leaks.untrusted,
      lane_off_leaks: leaks.laneOff,
    },
    governance: {
      rate: governanceRate,
      scenarios_held: held,
      rejection_appends_nothing_rate: checkRate("rejection_appends_nothing"),
      gate_event_cited_rate: checkRate("gate_event_cited"),
      keystone_hold_pending_rate: checkRate("keystone_hold_pending"),
      pending_excluded_until_review_rate: checkRate("pending_excluded_until_review"),
      rollback_reactivates_rate: checkRate("rollback_reactivates"),
    },
    timings_ms: {
      promote: latencySummary(outcomes.flatMap((o) => o.promoteMs)),
      checkout_fleet_lane: latencySummary(outcomes.flatMap((o) => o.checkoutMs)),
      fleet_lane_build: latencySummary(outcomes.flatMap((o) => o.laneMs)),
      scenario: latencySummary(scenarioMs),
      total_ms: round(totalMs, 1),
    },
    failures: failures.slice(0, failuresListedMax),
    targets: {
      transfer_rate: atLeast(1, transferRate, "= 1"),
      negative_control_rate: atMost(0, negativeRate, "= 0"),
      governance_rate: atLeast(1, governanceRate, "= 1"),
    },
    machine,
  };
}
