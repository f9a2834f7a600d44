/**
 * Redaction before sealing (DESIGN §2.3, Python `security.secure_payload`): secret-looking keys
 * and secret-looking string values become "[REDACTED]", their paths are recorded, sensitivity
 * is "restricted"; secrets never reach the log bytes. Decisions are cross-checked against the
 * same rules run by Python's `re` module.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, describe, test } from "node:test";
import { fromJs, type JsonObject, toJs } from "../../src/canonical/mod.ts";
import { securePayload, writeConfig } from "../../src/eventloom/mod.ts";
import { appendEvents } from "../../src/events/append.ts";
import { makeTempDir, python, readLines, refVerifyMany, removeTempDirs, skipWithoutPython } from "./testkit.ts";

after(removeTempDirs);

function secure(payload: Record<string, unknown>): { payload: unknown; security: { sensitivity: string; redacted_paths: string[] } } {
  const result = securePayload(fromJs(payload) as JsonObject);
  return { payload: toJs(result.payload), security: result.security };
}

const R = "[REDACTED]";

/** Python's secure_payload, rebuilt from the documented rules, for cross-checking. */
const pythonSecurePayload = `
import json, re, sys
KEY = re.compile(r"(?i)(api[_-]?key|authorization|bearer|cookie|credential|password|private[_-]?key|secret|token)")
EXEMPT = {"answer_at_5_per_1k_injected_tokens", "answer_at_5_per_1k_returned_tokens", "completion_tokens",
          "facts_per_1k_prompt_tokens", "mean_injected_tokens", "mean_returned_tokens", "prompt_tokens",
          "quality_per_1k_injected_tokens", "quality_per_1k_returned_tokens", "token_efficiency", "total_tokens"}
VALUES = [re.compile(p) for p in (r"\\bsk-[A-Za-z0-9_-]{8,}\\b", r"\\bpypi-[A-Za-z0-9_-]{20,}\\b", r"\\bAKIA[0-9A-Z]{16}\\b",
          r"\\b[A-Za-z0-9_-]{10,}\\.[A-Za-z0-9_-]{10,}\\.[A-Za-z0-9_-]{10,}\\b")]
def walk(value, path, paths):
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            child = key if path == "" else path + "." + key
            if KEY.search(key) and key.casefold() not in EXEMPT:
                paths.append(child)
                out[key] = "[REDACTED]"
            else:
                out[key] = walk(item, child, paths)
        return out
    if isinstance(value, list):
        return [walk(item, (path or "$") + "[%d]" % i, paths) for i, item in enumerate(value)]
    if isinstance(value, str) and any(p.search(value) for p in VALUES):
        paths.append(path or "$")
        return "[REDACTED]"
    return value
payload = json.loads(sys.stdin.read())
paths = []
redacted = walk(payload, "", paths)
print(json.dumps({"payload": redacted, "security": {"sensitivity": "restricted" if paths else "public", "redacted_paths": paths}}))
`;

describe("securePayload", () => {
  test("secret keys of any case and separator are redacted with their paths; token-count metrics are kept", () => {
    const result = secure({
      api_key: "k1",
      "API-KEY": "k2",
      apikey: "k3",
      password: "p",
      private_key: "pk",
      "private-key": "pk2",
      authorization: "Basic xyz",
      Cookie: "c=1",
      secret: "s",
      client_secret: "cs",
      token: "t",
      access_token: "at",
      bearer: "b",
      credentials: "cr",
      prompt_tokens: 10,
      total_tokens: 20,
      completion_tokens: 5,
      token_efficiency: 0.5,
      Prompt_Tokens: 11,
      facts_per_1k_prompt_tokens: 5.0,
      max_tokens: 100,
      title: "kept",
    });
    assert.deepEqual(result.security, {
      sensitivity: "restricted",
      redacted_paths: ["api_key", "API-KEY", "apikey", "password", "private_key", "private-key", "authorization", "Cookie", "secret", "client_secret", "token", "access_token", "bearer", "credentials", "max_tokens"],
    });
    const payload = result.payload as Record<string, unknown>;
    assert.equal(payload.api_key, R);
    assert.equal(payload.max_tokens, R, "only the listed metric keys are exempt");
    assert.equal(payload.prompt_tokens, 10);
    assert.equal(payload.Prompt_Tokens, 11, "exemption is case-insensitive");
    assert.equal(payload.token_efficiency, 0.5);
    assert.equal(payload.title, "kept");
  });

  test("secret-looking values are redacted wherever they are; near misses are kept", () => {
    const akia = "AKIA" + "ABCDEFGHIJ123456";
    const result = secure({
      openai: "sk-abcdefgh123",
      aws: akia,
      pypi: "pypi-" + "A1b2C3d4E5f6G7h8I9j0",
      jwt: "aaaaaaaaaa.bbbbbbbbbb.cccccccccc",
      embedded: `use ${akia} please`,
      short_sk: "sk-abc1234",
      aws_short: "AKIA" + "ABCDEFGHIJ12345",
      aws_lower: "AKIA" + "abcdefghij123456",
      pypi_short: "pypi-" + "a".repeat(19),
      jwt_short: "aaaaaaaaa.bbbbbbbbbb.cccccccccc",
      glued: "xsk-abcdefgh123",
      number: 12345,
    });
    const payload = result.payload as Record<string, unknown>;
    assert.deepEqual(result.security.redacted_paths, ["openai", "aws", "pypi", "jwt", "embedded"]);
    for (const key of ["short_sk", "aws_short", "aws_lower", "pypi_short", "jwt_short", "glued"]) assert.notEqual(payload[key], R, key);
  });

  test("paths: a.b for nested keys, items[0].token in arrays, list[1] for array values, a[0][1] for nested arrays", () => {
    const result = secure({
      a: { b: "sk-abcdefgh123", c: { password: { nested: "whole object replaced" } } },
      items: [{ token: "t0", name: "n" }, { name: "m" }],
      list: ["fine", "sk-abcdefgh123"],
      grid: [["x", "AKIA" + "ABCDEFGHIJ123456"]],
    });
    assert.deepEqual(result.security.redacted_paths, ["a.b", "a.c.password", "items[0].token", "list[1]", "grid[0][1]"]);
    assert.deepEqual(result.payload, {
      a: { b: R, c: { password: R } },
      items: [{ token: R, name: "n" }, { name: "m" }],
      list: ["fine", R],
      grid: [["x", R]],
    });
  });

  test("a clean payload is public with no paths, and the input is never changed", () => {
    const input = fromJs({ api_key: "k", ok: "yes" }) as JsonObject;
    securePayload(input);
    assert.equal(input.get("api_key"), "k");
    assert.deepEqual(secure({ title: "hello", n: 1, list: [1, "two"] }).security, { sensitivity: "public", redacted_paths: [] });
    assert.deepEqual(secure({}).security, { sensitivity: "public", redacted_paths: [] });
  });

  const asciiCorpus = {
    api_key: "v",
    "API-KEY": "v",
    x_api_key_id: "v",
    PASSWORD_HASH: "v",
    privatekey: "v",
    "set-cookie": "v",
    tokens: "v",
    prompt_tokens: 1,
    mean_returned_tokens: 2,
    nested: { deep: [{ secret: 1 }, "pypi-" + "a".repeat(20), ["sk-abcdefgh123"]] },
    v0: "sk-abcdefgh123",
    v1: "sk-abc",
    v2: "AKIA" + "ABCDEFGHIJ123456",
    v3: "AKIA" + "ABCDEFGHIJ12345",
    v4: "pypi-" + "a".repeat(19),
    v5: "aaaaaaaaaa.bbbbbbbbbb.cccccccccc",
    v6: "prefix sk-abcdefgh123 suffix",
    v7: "xsk-abcdefgh123",
    v8: "see https://verylongdomain.examplecompany.international/x",
    v9: "email@example.com",
    v10: "sk-abcdefgh123-",
    v11: "-sk-abcdefgh123",
  };

  test("ASCII keys and values: same redactions and paths as Python's re rules", { skip: skipWithoutPython }, () => {
    const py = JSON.parse(python(pythonSecurePayload, JSON.stringify(asciiCorpus)));
    assert.deepEqual(secure(asciiCorpus), py);
  });

  test("non-ASCII next to a token, and keys Python's (?i) folds (K Kelvin sign, ſ long s): same decisions as Python", { skip: skipWithoutPython }, () => {
    // Python's \\b and (?i) are Unicode-aware: 'é' is a word character, 'ſ' folds to 's' and
    // 'K' (U+212A) to 'k'. JavaScript's \\b (and /i without /u) are ASCII-only.
    const unicodeCorpus = {
      "to\u212aen": "secret under a Kelvin-sign key",
      "\u017fecret": "secret under a long-s key",
      v0: "ésk-abcdefgh123",
      v1: "sk-abcdefgh123é",
      v2: "日本sk-abcdefgh123",
      v3: "naïveaaaaaa.bbbbbbbbbb.cccccccccc",
    };
    const py = JSON.parse(python(pythonSecurePayload, JSON.stringify(unicodeCorpus)));
    assert.deepEqual(secure(unicodeCorpus), py);
  });
});

describe("redaction in stored events", () => {
  const secretPayload = {
    title: "deploy",
    api_key: "sk-live-abcdefgh12345",
    config: { password: "hunter2", region: "eu" },
    items: [{ token: "tok-123", name: "a" }],
    note: "AKIA" + "ABCDEFGHIJ123456",
    usage: { prompt_tokens: 12, total_tokens: 34 },
  };
  const expectedPaths = ["api_key", "config.password", "items[0].token", "note"];

  for (const envelope of ["legacy", "v1"] as const) {
    test(`${envelope}: secrets are stored as "[REDACTED]" and never reach the file; paths in ${envelope === "legacy" ? "security" : "payload.__zaxy_security"}`, async () => {
      const root = path.join(makeTempDir("redact"), envelope);
      writeConfig(root, { envelope });
      await appendEvents(root, "s", [
        { type: "deploy.started", actor: "ci", payload: fromJs(secretPayload) },
        { type: "deploy.finished", actor: "ci", payload: fromJs({ ok: true }) },
      ]);
      const file = path.join(root, "s.jsonl");
      const text = fs.readFileSync(file, "utf8");
      for (const secret of ["sk-live-abcdefgh12345", "hunter2", "tok-123", "AKIA" + "ABCDEFGHIJ123456"]) assert.ok(!text.includes(secret), secret);
      const [first, second] = readLines(file).map((l) => JSON.parse(l));
      const security = envelope === "legacy" ? first.security : first.payload.__zaxy_security;
      const clean = envelope === "legacy" ? second.security : second.payload.__zaxy_security;
      assert.deepEqual(security, { sensitivity: "restricted", redacted_paths: expectedPaths });
      assert.deepEqual(clean, { sensitivity: "public", redacted_paths: [] });
      assert.equal(first.payload.api_key, R);
      assert.deepEqual(first.payload.config, { password: R, region: "eu" });
      assert.deepEqual(first.payload.items, [{ token: R, name: "a" }]);
      assert.equal(first.payload.note, R);
      assert.deepEqual(first.payload.usage, { prompt_tokens: 12, total_tokens: 34 });
      if (envelope === "legacy") assert.equal("__zaxy_security" in first.payload, false);
      else assert.equal("security" in first, false);
      if (skipWithoutPython === false) {
        assert.deepEqual(refVerifyMany([file])[0], { ok: true, total_events: 2, broken_at_seq: null, broken_reason: null });
      }
    });
  }
});
