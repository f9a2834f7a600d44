// deno-test: own-process (loads kuzu-wasm in this process; scripts/deno-test.sh runs it alone)
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import { test } from "node:test";
import { runSelftest } from "../../src/diagnostics/mod.ts";

test("runSelftest passes every step from source and removes its temporary directory", { timeout: 60_000 }, async () => {
  const report = await runSelftest();
  assert.deepEqual(
    report.steps.map((s) => [s.step, s.ok, s.message]),
    [
      ["tempdir", true, undefined],
      ["usearch.load", true, undefined],
      ["usearch.index", true, undefined],
      ["usearch.save_load", true, undefined],
      ["kuzu.load", true, undefined],
      ["kuzu.write", true, undefined],
      ["kuzu.reopen", true, undefined],
    ],
  );
  assert.equal(report.ok, true);
  assert.equal(report.version, "0.1.0");
  assert.equal(report.platform, `${process.platform}-${process.arch}`);
  const kuzuLoad = report.steps.find((s) => s.step === "kuzu.load");
  assert.deepEqual(
    { source: kuzuLoad?.detail?.source, version: kuzuLoad?.detail?.version, glue: kuzuLoad?.detail?.glue_cache_path },
    { source: "package", version: "0.11.3", glue: null },
  );
  const dir = String(report.steps[0].detail?.path);
  assert.ok(dir.startsWith(os.tmpdir()), dir);
  assert.equal(fs.existsSync(dir), false);
});
