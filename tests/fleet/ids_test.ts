/**
 * Fleet ids against python3 (DESIGN §3, reference §5.4): promotion ids and rule ids are the
 * first 24 hex of SHA-256 over Python's canonical JSON, for generated inputs including
 * non-ASCII and astral text; fleet ids must make a valid thread.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { isZaxyError } from "../../src/errors.ts";
import { fleetPromotionId, fleetRuleId, fleetThread, promotionKinds, scopePermits, trustTiers, validateFleetId, visibilityScopes } from "../../src/fleet/mod.ts";
import { python, skipWithoutPython } from "../eventloom/testkit.ts";
import { Rng } from "../testkit/rng.ts";

const seed = 0xf1ee7;
const alphabet = ["a", "Z", "0", "-", "_", ".", " ", "é", "ß", "漢", "😀", "\"", "\\", "\n", "\u0001", "\u007f", "\ufb01"];

function randomText(rng: Rng, max: number): string {
  let out = "";
  const n = 1 + rng.int(max);
  for (let i = 0; i < n; i++) out += alphabet[rng.int(alphabet.length)];
  return out;
}

function randomHash(rng: Rng): string {
  let out = "";
  for (let i = 0; i < 64; i++) out += "0123456789abcdef"[rng.int(16)];
  return out;
}

describe("fleet ids", () => {
  test(`fleetPromotionId and fleetRuleId equal python3 on 200 generated inputs (seed ${seed})`, { skip: skipWithoutPython }, () => {
    const rng = new Rng(seed);
    const cases = Array.from({ length: 200 }, () => {
      const sources = Array.from({ length: 1 + rng.int(3) }, () => ({ seq: 1 + rng.int(100000), hash: randomHash(rng) }));
      return {
        fleet_id: randomText(rng, 12),
        kind: promotionKinds[rng.int(3)],
        origin_session: randomText(rng, 12),
        rule: randomText(rng, 30),
        trigger: randomText(rng, 20),
        source_events: sources,
      };
    });
    const program =
      "import hashlib, json, sys\n" +
      "out = []\n" +
      "for c in json.load(sys.stdin):\n" +
      "    ident = {'fleet_id': c['fleet_id'], 'kind': c['kind'], 'origin_session': c['origin_session'], 'source_events': c['source_events']}\n" +
      "    rule = {'rule': c['rule'], 'trigger': c['trigger'], 'source_events': c['source_events']}\n" +
      "    d = lambda o: hashlib.sha256(json.dumps(o, sort_keys=True, separators=(',', ':')).encode()).hexdigest()[:24]\n" +
      "    out.append(['fleetpromo:' + d(ident), 'rule:' + d(rule)])\n" +
      "print(json.dumps(out))\n";
    const expected = JSON.parse(python(program, JSON.stringify(cases))) as Array<[string, string]>;
    cases.forEach((c, i) => {
      assert.equal(fleetPromotionId(c.fleet_id, c.kind, c.origin_session, c.source_events), expected[i][0], `case ${i} (seed ${seed})`);
      assert.equal(fleetRuleId(c.rule, c.trigger, c.source_events), expected[i][1], `case ${i} (seed ${seed})`);
    });
  });

  test("a promotion id is fleetpromo: + 24 hex and varies with fleet, kind, origin session and sources", () => {
    const src = [{ seq: 1, hash: "a".repeat(64) }];
    const id = fleetPromotionId("alpha", "skill", "w1", src);
    assert.match(id, /^fleetpromo:[0-9a-f]{24}$/);
    assert.equal(fleetPromotionId("alpha", "skill", "w1", [{ seq: 1, hash: "a".repeat(64) }]), id);
    assert.notEqual(fleetPromotionId("beta", "skill", "w1", src), id);
    assert.notEqual(fleetPromotionId("alpha", "rule", "w1", src), id);
    assert.notEqual(fleetPromotionId("alpha", "skill", "w2", src), id);
    assert.notEqual(fleetPromotionId("alpha", "skill", "w1", [{ seq: 2, hash: "a".repeat(64) }]), id);
  });

  test("fleetThread prefixes fleet.; ids with ':' or '/' are bad input", () => {
    assert.equal(fleetThread("alpha"), "fleet.alpha");
    assert.equal(validateFleetId("alpha-1_x.y"), "alpha-1_x.y");
    for (const bad of ["a:b", "a/b", "", "x".repeat(123)]) {
      assert.throws(() => validateFleetId(bad), (e: unknown) => isZaxyError(e) && e.code === "invalid_fleet_id" && e.exitCode === 2);
    }
  });

  test("'.' and '..' are not fleet ids (as for session ids: the id names a file), but dotted names are", () => {
    for (const bad of [".", ".."]) {
      assert.throws(
        () => validateFleetId(bad, "--fleet-id"),
        (e: unknown) => isZaxyError(e) && e.code === "invalid_fleet_id" && e.exitCode === 2 && e.message.startsWith(`--fleet-id ${JSON.stringify(bad)} is not a fleet id`),
      );
    }
    for (const ok of ["...", ".a", "a..b"]) assert.equal(validateFleetId(ok), ok);
  });

  test("the trust ladder: untrusted → session, member → fleet, trusted and steward → global", () => {
    const ceiling = { untrusted: "session", member: "fleet", trusted: "global", steward: "global" } as const;
    for (const tier of trustTiers) {
      for (const scope of visibilityScopes) {
        assert.equal(scopePermits(tier, scope), visibilityScopes.indexOf(scope) <= visibilityScopes.indexOf(ceiling[tier]), `${tier} × ${scope}`);
      }
    }
  });
});
