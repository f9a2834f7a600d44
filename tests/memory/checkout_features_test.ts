/** The optional-feature seam between the memory service and checkout. */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { type CheckoutFeature, checkoutFeatureContributions, type CheckoutFeatureInput } from "../../src/checkout/checkoutFeatures.ts";
import { MemorySessionFolds } from "../../src/retrieval/sessionIndex.ts";

const input: CheckoutFeatureInput = {
  sessionId: "default",
  folds: new MemorySessionFolds("default", null, []),
  retrieval: { contexts: [], laneCounts: {}, degraded: false },
};

describe("checkoutFeatureContributions", () => {
  test("collects sections, guidance and prompt lines in feature order; silent features add nothing", () => {
    const features: CheckoutFeature[] = [
      { key: "silent", contribute: () => null },
      { key: "alpha", contribute: () => ({ diagnostics: { n: 1 }, trust: ["t1"], ignore: [], promptLines: ["Alpha: n=1"] }) },
      { key: "beta", contribute: () => ({ diagnostics: { n: 2 }, trust: ["t2"], ignore: ["i2"], promptLines: ["Beta: n=2"] }) },
    ];
    const out = checkoutFeatureContributions(input, features);
    assert.deepEqual(Object.keys(out.extraDiagnostics), ["alpha", "beta"]);
    assert.deepEqual(out.extraGuidance, { trust: ["t1", "t2"], ignore: ["i2"] });
    assert.deepEqual(out.extraDiagnosticLines, ["Alpha: n=1", "Beta: n=2"]);
  });

  test("no features: nothing to merge", () => {
    assert.deepEqual(checkoutFeatureContributions(input, []), { extraDiagnostics: {}, extraGuidance: { trust: [], ignore: [] }, extraDiagnosticLines: [] });
  });
});
