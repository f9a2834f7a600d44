/**
 * `zaxy config` and the embedding keys (src/semantic/embeddingSettings.ts), through the CLI a user
 * runs: a model server is configured key by key, every bad value is exit 2 naming its key with
 * nothing written, and an API key never reaches config.json or the output.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, describe, test } from "node:test";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";
import { runZaxy, stackTraceLines } from "./zaxy.ts";

after(removeTempDirs);

const slow = { timeout: 120_000 };

type Run = { code: number | null; stdout: string; stderr: string };

function json(run: Run, code = 0) {
  assert.equal(run.code, code, run.stdout + run.stderr);
  assert.deepEqual(stackTraceLines(run.stderr), []);
  return JSON.parse(run.stdout);
}

const config = (dir: string, ...args: string[]) => runZaxy(["config", ...args], { cwd: dir });
const configFile = (dir: string) => path.join(dir, ".eventloom", "config.json");
const configText = (dir: string) => (fs.existsSync(configFile(dir)) ? fs.readFileSync(configFile(dir), "utf8") : "");

describe("zaxy config and the embedding keys", () => {
  test("config list shows every embedding key with its default", slow, () => {
    const dir = makeTempDir("zaxy-config-embedding-list");
    const list = json(config(dir, "list", "--json"));
    const byKey = Object.fromEntries(list.settings.map((s: { key: string; value: unknown; source: string }) => [s.key, [s.value, s.source]]));
    assert.deepEqual(byKey["embedding.provider"], ["bundled", "default"]);
    assert.deepEqual(byKey["embedding.url"], [null, "default"]);
    assert.deepEqual(byKey["embedding.model"], [null, "default"]);
    assert.deepEqual(byKey["embedding.dimensions"], [null, "default"]);
    assert.deepEqual(byKey["embedding.timeout_ms"], [10000, "default"]);
    assert.deepEqual(byKey["embedding.api_key_env"], ["ZAXY_EMBEDDING_API_KEY", "default"]);
    const text = config(dir, "list");
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /^embedding\.provider +bundled {2}\(default\)$/m);
    assert.match(text.stdout, /^embedding\.timeout_ms +10000 {2}\(default\)$/m);
  });

  test("an OpenAI server is set key by key, read back, and unset to the bundled model", slow, () => {
    const dir = makeTempDir("zaxy-config-embedding-openai");
    // The provider needs the URL and the model first.
    const early = json(config(dir, "set", "embedding.provider", "openai", "--json"), 2);
    assert.equal(early.error.code, "invalid_config");
    assert.equal(early.error.field, "config.json embedding.provider");
    assert.match(early.error.message, /embedding\.provider "openai" needs embedding\.url and embedding\.model, which are not set$/);
    assert.match(early.error.hint, /^set embedding\.url and embedding\.model first/);
    assert.equal(configText(dir), "", "nothing was written");

    json(config(dir, "set", "embedding.url", "https://api.openai.com/", "--json"));
    json(config(dir, "set", "embedding.model", "text-embedding-3-small", "--json"));
    json(config(dir, "set", "embedding.dimensions", "256", "--json"));
    json(config(dir, "set", "embedding.timeout_ms", "5000", "--json"));
    json(config(dir, "set", "embedding.api_key_env", "OPENAI_API_KEY", "--json"));
    const set = json(config(dir, "set", "embedding.provider", "openai", "--json"));
    assert.deepEqual({ key: set.key, value: set.value, previous: set.previous }, { key: "embedding.provider", value: "openai", previous: null });

    assert.equal(config(dir, "get", "embedding.provider").stdout, "openai\n");
    assert.equal(config(dir, "get", "embedding.url").stdout, "https://api.openai.com/\n");
    assert.equal(config(dir, "get", "embedding.dimensions").stdout, "256\n");
    const get = json(config(dir, "get", "embedding.api_key_env", "--json"));
    assert.deepEqual({ value: get.value, source: get.source }, { value: "OPENAI_API_KEY", source: "config.json" });
    const written = JSON.parse(configText(dir));
    assert.equal(written["embedding.provider"], "openai");
    assert.equal(written["embedding.model"], "text-embedding-3-small");
    assert.equal(written["embedding.timeout_ms"], 5000);

    // The provider still needs its model: unsetting it is refused, and the file is unchanged.
    const before = configText(dir);
    const unsetModel = json(config(dir, "unset", "embedding.model", "--json"), 2);
    assert.equal(unsetModel.error.code, "invalid_config");
    assert.match(unsetModel.error.message, /embedding\.provider "openai" needs embedding\.model, which is not set$/);
    assert.equal(configText(dir), before);

    const unset = json(config(dir, "unset", "embedding.provider", "--json"));
    assert.deepEqual({ removed: unset.removed, default: unset.default }, { removed: true, default: "bundled" });
    assert.equal(config(dir, "get", "embedding.provider").stdout, "bundled\n");
  });

  test("an Ollama server needs only its URL and model", slow, () => {
    const dir = makeTempDir("zaxy-config-embedding-ollama");
    json(config(dir, "set", "embedding.url", "http://127.0.0.1:11434", "--json"));
    json(config(dir, "set", "embedding.model", "nomic-embed-text", "--json"));
    json(config(dir, "set", "embedding.provider", "ollama", "--json"));
    assert.equal(config(dir, "get", "embedding.provider").stdout, "ollama\n");
  });

  const badValues: Array<[string, string, string]> = [
    ["embedding.provider", "huggingface", "embedding.provider must be one of bundled, openai, ollama, got \"huggingface\""],
    ["embedding.url", "ftp://models.internal", "embedding.url must be an http:// or https:// URL, got one with \"ftp:\""],
    ["embedding.url", "localhost 11434", "embedding.url must be a URL such as \"http://127.0.0.1:11434\", got \"localhost 11434\""],
    ["embedding.url", "42", "embedding.url must be a URL such as \"http://127.0.0.1:11434\", got 42"],
    ["embedding.model", "\"\"", "embedding.model must be a non-empty model name such as \"nomic-embed-text\", got \"\""],
    ["embedding.dimensions", "0", "embedding.dimensions must be an integer >= 1, got 0"],
    ["embedding.dimensions", "1.5", "embedding.dimensions must be an integer >= 1, got 1.5"],
    ["embedding.timeout_ms", "\"10\"", "embedding.timeout_ms must be an integer >= 1, got \"10\""],
    ["embedding.timeout_ms", "soon", "embedding.timeout_ms must be an integer >= 1, got \"soon\""],
  ];
  for (const [key, value, message] of badValues) {
    test(`config set ${key} ${value} is exit 2 naming the key, and writes nothing`, slow, () => {
      const dir = makeTempDir("zaxy-config-embedding-bad");
      const bad = json(config(dir, "set", key, value, "--json"), 2);
      assert.equal(bad.error.code, "invalid_config");
      assert.equal(bad.error.field, `config.json ${key}`);
      assert.equal(bad.error.message, `.eventloom/config.json: ${message}`);
      assert.equal(configText(dir), "");
    });
  }

  test("a URL with credentials or a query is refused without being shown", slow, () => {
    const dir = makeTempDir("zaxy-config-embedding-url-secret");
    for (const url of ["https://user:hunter2@models.internal", "https://models.internal/?api_key=hunter2"]) {
      const run = config(dir, "set", "embedding.url", url, "--json");
      const bad = json(run, 2);
      assert.equal(bad.error.code, "invalid_config");
      assert.match(bad.error.message, /embedding\.url must be a base URL without user name, password, query or fragment/);
      assert.ok(!(run.stdout + run.stderr).includes("hunter2"));
    }
    assert.equal(configText(dir), "");
  });

  test("an API key is never written: embedding.api_key is unknown, and a key given as api_key_env is refused unshown", slow, () => {
    const dir = makeTempDir("zaxy-config-embedding-key");
    const key = "sk-proj-Zx9SECRET0123456789";
    const unknownRun = config(dir, "set", "embedding.api_key", key, "--json");
    const unknown = json(unknownRun, 2);
    assert.equal(unknown.error.code, "unknown_config_key");
    assert.match(unknown.error.hint, /^config\.json never holds an API key: export it in the environment variable embedding\.api_key_env names/);
    for (const value of [key, "openai_api_key", "1PASSWORD"]) {
      const run = config(dir, "set", "embedding.api_key_env", value, "--json");
      const bad = json(run, 2);
      assert.equal(bad.error.code, "invalid_config");
      assert.equal(bad.error.field, "config.json embedding.api_key_env");
      assert.match(bad.error.message, /embedding\.api_key_env must be the name of an environment variable .* not the key itself/);
      assert.ok(!(run.stdout + run.stderr).includes(value), `${value} is not echoed`);
    }
    const text = config(dir, "set", "embedding.api_key", key);
    assert.equal(text.code, 2);
    assert.ok(!(text.stdout + text.stderr).includes(key));
    assert.equal(configText(dir), "", "nothing was written");
    // A configured server keeps only the variable's name.
    json(config(dir, "set", "embedding.api_key_env", "MY_EMBEDDING_KEY", "--json"));
    assert.ok(!configText(dir).includes(key));
    assert.equal(JSON.parse(configText(dir))["embedding.api_key_env"], "MY_EMBEDDING_KEY");
  });
});
