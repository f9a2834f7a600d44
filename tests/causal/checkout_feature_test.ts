/**
 * Checkout diagnostics for causal memory (DESIGN §6; reference §3.5): `causal_context` counts
 * the causal edges touching retrieved current graph contexts (exact dict, guidance strings,
 * prompt line), ignores retracted edges, unregistered labels, raw-event and superseded contexts,
 * and adds nothing at all (byte-identical checkout) when there is no causal content.
 */
import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import { readEvents } from "../../src/eventloom/replay.ts";
import {
  causalCheckoutFeature,
  checkoutFeatureContributions,
  checkoutFeatures,
  type CheckoutFeatureInput,
} from "../../src/checkout/checkoutFeatures.ts";
import { validateMemoryRequest } from "../../src/memory/request.ts";
import { MemoryService } from "../../src/memory/service.ts";
import { extractEvent } from "../../src/projection/extract/mod.ts";
import { GraphFold } from "../../src/projection/graphFold.ts";
import type { EntityRow } from "../../src/projection/types.ts";
import type { RetrievedContext } from "../../src/retrieval/types.ts";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";
import { CausalSession, ref } from "./testkit.ts";
import { MemorySessionFolds } from "../../src/retrieval/sessionIndex.ts";

after(removeTempDirs);

const slow = { timeout: 120_000 };
const trustLine = "Use causal_context as explanatory memory, not as authoritative state.";
const ignoreLine = "Do not treat proposed causal edges as accepted facts without review status.";

function context(entity: EntityRow, overrides: Partial<RetrievedContext> = {}): RetrievedContext {
  return {
    content: entity.name,
    source: "graph",
    sourceLane: "exact",
    score: 1,
    validFrom: entity.validFrom,
    validTo: entity.validTo,
    citation: null,
    eventSeq: entity.sourceEventSeq,
    eventHash: entity.sourceEventHash,
    entityName: entity.name,
    entityType: entity.entityType,
    scoreExplanation: {},
    metadata: { entity_name: entity.name, entity_type: entity.entityType, node_key: entity.nodeKey, current: entity.validTo === null },
    ...overrides,
  };
}

async function inputFor(session: CausalSession) {
  const { events } = readEvents(session.logPath());
  const fold = new GraphFold(session.sessionId);
  for (const event of events) fold.apply(event, extractEvent(event));
  const rows = fold.rows();
  const entity = (name: string) => rows.entities.find((e) => e.name === name && e.validTo === null)!;
  const input = (contexts: RetrievedContext[]): CheckoutFeatureInput => ({
    sessionId: session.sessionId,
    folds: new MemorySessionFolds(session.sessionId, rows, events),
    retrieval: { contexts, laneCounts: {}, degraded: false },
  });
  return { rows, entity, input };
}

describe("causalCheckoutFeature", () => {
  test("counts the edges touching retrieved current contexts: exact dict, guidance and prompt line", async () => {
    const session = new CausalSession(makeTempDir("causal-checkout"));
    await session.explain(ref("config drift", "cause"), ref("stale pool", "symptom"), "caused", 0.9);
    await session.explain(ref("stale pool", "symptom"), ref("latency spike", "symptom"), "caused", 0.8);
    await session.explain(ref("hotfix", "change"), ref("latency spike", "symptom"), "fixed", 0.6);
    const cited = await session.evidence("hunch");
    await session.record("inference.edge.generated", {
      source: ref("moon phase", "cause"), target: ref("stale pool", "symptom"), relation_type: "causal_correlated", confidence: 0.1, inference_method: "hunch_v0", evidence: cited,
    });
    const { entity, input } = await inputFor(session);
    // Two retrieved contexts: "stale pool" (2 causal edges, 1 unregistered) and "latency spike"
    // (2 edges, one shared with "stale pool"); a raw event context and a superseded one do not count.
    const output = causalCheckoutFeature.contribute(input([
      context(entity("stale pool")),
      context(entity("latency spike")),
      context(entity("config drift"), { source: "verbatim" }),
      context(entity("hotfix"), { validTo: "2025-02-01T00:00:00Z" }),
    ]))!;
    assert.deepEqual(output.diagnostics, {
      context_count: 2,
      edge_count: 3,
      relation_types: ["causal_caused", "causal_fixed"],
      methods: ["explicit_outcome_explanation_v1"],
      average_trust: 0.77,
      authority_status: "non_authoritative",
    });
    assert.deepEqual(output.trust, [trustLine]);
    assert.deepEqual(output.ignore, [ignoreLine]);
    assert.deepEqual(output.promptLines, [
      "Causal context: contexts=2, edges=3, average_trust=0.77, authority=non_authoritative, relations=causal_caused, causal_fixed, methods=explicit_outcome_explanation_v1",
    ]);
    // A round average prints the way Python prints a float.
    const one = causalCheckoutFeature.contribute(input([context(entity("hotfix"))]))!;
    assert.equal(one.promptLines[0], "Causal context: contexts=1, edges=1, average_trust=0.6, authority=non_authoritative, relations=causal_fixed, methods=explicit_outcome_explanation_v1");
  });

  test("nothing to say: no causal edges, only unregistered labels, retracted edges, or no endpoint retrieved", async () => {
    const session = new CausalSession(makeTempDir("causal-checkout-none"));
    await session.record("goal.created", { title: "Ship v1" });
    const edge = await session.explain(ref("flaky test", "symptom"), ref("release", "task"));
    await session.contradict(ref("flaky test", "symptom"), ref("release", "task"), "caused", edge);
    await session.explain(ref("a", "cause"), ref("b", "symptom"));
    const cited = await session.evidence("hunch");
    await session.record("inference.edge.generated", {
      source: ref("moon phase", "cause"), target: ref("goal", "x"), relation_type: "causal_correlated", confidence: 0.1, inference_method: "hunch_v0", evidence: cited,
    });
    const { entity, input } = await inputFor(session);
    for (const contexts of [[], [context(entity("release"))], [context(entity("flaky test"))], [context(entity("moon phase"))]]) {
      assert.equal(causalCheckoutFeature.contribute(input(contexts)), null);
      assert.deepEqual(checkoutFeatureContributions(input(contexts), [causalCheckoutFeature]), {
        extraDiagnostics: {},
        extraGuidance: { trust: [], ignore: [] },
        extraDiagnosticLines: [],
      });
    }
    assert.equal(causalCheckoutFeature.contribute({ ...input([context(entity("a"))]), folds: new MemorySessionFolds("s", null, []) }), null);
  });

  test("causal_context is registered first and shows in a real checkout; a checkout without causal content is unchanged", slow, async () => {
    assert.equal(checkoutFeatures[0], causalCheckoutFeature);
    const session = new CausalSession(makeTempDir("causal-checkout-e2e"));
    await session.record("goal.created", { title: "Keep checkout latency low" });
    const service = new MemoryService(session.root);
    const request = (query: string) => validateMemoryRequest({ sessionId: "default", query });
    const plain = await service.checkout(request("checkout latency"));
    assert.equal("causal_context" in plain.diagnostics, false);
    assert.ok(!plain.prompt.includes("Causal context"));
    assert.ok(!plain.guidance.trust.includes(trustLine));

    await session.explain(ref("stale pool", "symptom"), ref("checkout latency spike", "symptom"), "caused", 0.8);
    const checkout = await service.checkout(request("checkout latency spike"));
    const causal = (checkout.diagnostics as unknown as { causal_context: Record<string, unknown> }).causal_context;
    assert.equal(causal.authority_status, "non_authoritative");
    assert.deepEqual(causal.relation_types, ["causal_caused"]);
    assert.ok(checkout.guidance.trust.includes(trustLine));
    assert.ok(checkout.guidance.ignore.includes(ignoreLine));
    assert.ok(
      checkout.prompt.includes(`- Causal context: contexts=${causal.context_count}, edges=${causal.edge_count}, average_trust=0.8, authority=non_authoritative, relations=causal_caused`),
      checkout.prompt,
    );
  });
});
