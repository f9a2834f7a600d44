import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, test } from "node:test";
import { isZaxyError } from "../../src/errors.ts";
import { cacheFile, cacheFilePath } from "../../src/platform/cacheFile.ts";

const root = fs.mkdtempSync(path.join(os.tmpdir(), "zaxy-cachefile-test-"));
after(() => fs.rmSync(root, { recursive: true, force: true }));

const glue = new TextEncoder().encode("module.exports = 42;\n");
/** "glue-" + the first 16 hex digits of sha256("module.exports = 42;\n") + ".cjs". */
const glueName = "glue-1737ef29ba647e55.cjs";

test("cacheFile writes the bytes under a content-addressed name, readable only by us", () => {
  const dir = path.join(root, "fresh");
  const file = cacheFile("glue", ".cjs", glue, dir);
  assert.equal(file.reused, false);
  assert.equal(file.path, cacheFilePath("glue", ".cjs", glue, dir));
  assert.equal(file.path, path.join(dir, glueName));
  assert.match(file.sha256, /^1737ef29ba647e55[0-9a-f]{48}$/);
  assert.deepEqual(new Uint8Array(fs.readFileSync(file.path)), glue);
  assert.equal(fs.statSync(file.path).mode & 0o777, 0o600);
  assert.equal(fs.statSync(dir).mode & 0o077, 0);
  assert.deepEqual(fs.readdirSync(dir), [glueName]);
});

test("cacheFile reuses an identical file", () => {
  const dir = path.join(root, "reuse");
  const first = cacheFile("glue", ".cjs", glue, dir);
  const second = cacheFile("glue", ".cjs", glue, dir);
  assert.deepEqual(second, { ...first, reused: true });
});

test("cacheFile replaces a file whose contents no longer match its name", () => {
  const dir = path.join(root, "corrupt");
  const first = cacheFile("glue", ".cjs", glue, dir);
  fs.writeFileSync(first.path, "module.exports = 4");
  const again = cacheFile("glue", ".cjs", glue, dir);
  assert.equal(again.reused, false);
  assert.deepEqual(new Uint8Array(fs.readFileSync(again.path)), glue);
  assert.deepEqual(fs.readdirSync(dir), [path.basename(again.path)]);
});

test("cacheFile refuses a directory others can write to", { skip: process.platform === "win32" }, () => {
  const dir = path.join(root, "shared");
  fs.mkdirSync(dir);
  fs.chmodSync(dir, 0o777);
  assert.throws(
    () => cacheFile("glue", ".cjs", glue, dir),
    (error) => isZaxyError(error) && error.code === "cache_dir_unsafe" && error.message.includes("mode 777"),
  );
  assert.deepEqual(fs.readdirSync(dir), []);
});

test("cacheFile refuses a symlink in place of the directory", () => {
  const target = path.join(root, "elsewhere");
  fs.mkdirSync(target, { mode: 0o700 });
  const link = path.join(root, "link");
  fs.symlinkSync(target, link);
  assert.throws(
    () => cacheFile("glue", ".cjs", glue, link),
    (error) => isZaxyError(error) && error.code === "cache_dir_unsafe",
  );
});
