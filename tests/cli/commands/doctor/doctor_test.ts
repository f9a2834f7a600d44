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

test("zaxy doctor rejects an unknown option with exit 2", async () => {
  const { code, out, err } = await runCliCaptured(["doctor", "--selftset"]);
  assert.equal(code, 2);
  assert.equal(out, "");
  assert.equal(err, 'zaxy doctor: unknown option "--selftset" (see zaxy doctor --help)\n');
});
