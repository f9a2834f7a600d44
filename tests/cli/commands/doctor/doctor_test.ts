import assert from "node:assert/strict";
import { test } from "node:test";
import { runCliCaptured } from "../../inProcess.ts";

test("zaxy doctor --json from source reports no embedded assets and no glue cache", async () => {
  const { code, out, err } = await runCliCaptured(["doctor", "--json"]);
  assert.equal(code, 0);
  assert.equal(err, "");
  const doc = JSON.parse(out);
  assert.deepEqual(
    { schema: doc.schema, mode: doc.mode, ok: doc.ok, embedded: doc.embedded, assets: doc.assets, glue: doc.kuzu_glue_cache },
    { schema: "zaxy.doctor.v1", mode: "environment", ok: true, embedded: false, assets: [], glue: null },
  );
  assert.equal(doc.version, "0.1.0");
  assert.equal(doc.platform, `${process.platform}-${process.arch}`);
});

test("zaxy doctor is hidden from the command list", async () => {
  const { code, out } = await runCliCaptured(["--help"]);
  assert.equal(code, 0);
  assert.doesNotMatch(out, /doctor/);
});

test("zaxy doctor rejects an unknown option with exit 2, suggesting the one it is a typo of", async () => {
  const typo = await runCliCaptured(["doctor", "--selftset"]);
  assert.equal(typo.code, 2);
  assert.equal(typo.out, "");
  assert.equal(typo.err, 'zaxy doctor: unknown option "--selftset"; did you mean "--selftest"?\n');
  const unknown = await runCliCaptured(["doctor", "--frobnicate"]);
  assert.equal(unknown.code, 2);
  assert.equal(unknown.err, 'zaxy doctor: unknown option "--frobnicate" (see zaxy doctor --help)\n');
});
