import assert from "node:assert/strict";
import { test } from "node:test";
import type { CommandIo } from "../../../../src/cli/command.ts";
import { runCli } from "../../../../src/cli/main.ts";

function capturedIo(): { io: CommandIo; out: () => string; err: () => string } {
  let out = "";
  let err = "";
  const io: CommandIo = {
    stdout: (text) => void (out += text),
    stderr: (text) => void (err += text),
    readStdin: () => Promise.resolve(new Uint8Array()),
    stdinIsTTY: false,
    stderrIsTTY: false,
    env: {},
    cwd: process.cwd(),
  };
  return { io, out: () => out, err: () => err };
}

test("zaxy doctor --json from source reports no embedded assets and no glue cache", async () => {
  const { io, out, err } = capturedIo();
  const code = await runCli(["doctor", "--json"], io);
  assert.equal(code, 0);
  assert.equal(err(), "");
  const doc = JSON.parse(out());
  assert.deepEqual(
    { schema: doc.schema, mode: doc.mode, ok: doc.ok, embedded: doc.embedded, assets: doc.assets, glue: doc.kuzu_glue_cache },
    { schema: "zaxy.doctor.v1", mode: "environment", ok: true, embedded: false, assets: [], glue: null },
  );
  assert.equal(doc.version, "0.1.0");
  assert.equal(doc.platform, `${process.platform}-${process.arch}`);
});

test("zaxy doctor is hidden from the command list", async () => {
  const { io, out } = capturedIo();
  assert.equal(await runCli(["--help"], io), 0);
  assert.doesNotMatch(out(), /doctor/);
});

test("zaxy doctor rejects an unknown option with exit 2", async () => {
  const { io, out, err } = capturedIo();
  assert.equal(await runCli(["doctor", "--selftset"], io), 2);
  assert.equal(out(), "");
  assert.equal(err(), 'zaxy doctor: unknown option "--selftset" (see zaxy doctor --help)\n');
});
