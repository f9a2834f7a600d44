// deno-test: own-process (loads kuzu-wasm in this process; scripts/deno-test.sh runs it alone)
// test-lane: full (slow)
/**
 * The semantic lane as a read's default (src/memory/service.ts `wantsSemantic`) through real CLI
 * processes: a paraphrase runs it, the query's own words do not, `--no-semantic` turns it off;
 * vectors persist under <root>/projections/semantic/ across processes and a reproject; a read's
 * embedding budget and `zaxy memory embed`; forgetting removes a fact's vector; a model server
 * that fails falls back to the bundled model, one that works ranks and stores its own vectors.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";
import { runZaxyInProcess } from "./inProcessRoot.ts";
import { runZaxy, runZaxyAsync, stackTraceLines, type ZaxyRun } from "./zaxy.ts";

const slow = { timeout: 240_000 };
const bundledModelId = "use-lite-512-uint8-v1";
const paraphrase = "how are we upgrading the db?";
const postgres = "Migrated the database to PostgreSQL 16";

const decisions = [
  "Adopt Kuzu for the graph projection",
  "Carol leads the weekend on-call rotation",
  "Nightly builds run on GitHub Actions using self-hosted runners",
  "Use Tailwind for the marketing site styles",
  "Frontend state lives in Zustand stores",
  "Logs ship to Loki with a 30 day retention",
  "Release notes are written by the feature owner",
  "Feature flags are managed in LaunchDarkly",
  postgres,
  "The mobile app targets iOS 17 and Android 14",
  "Code review needs one approval from a maintainer",
  "Error budgets are reviewed every sprint",
];

const servers: http.Server[] = [];
after(async () => {
  for (const server of servers) await new Promise<void>((resolve) => server.close(() => resolve()));
  removeTempDirs();
});

function ok(run: ZaxyRun, what: string): ZaxyRun {
  assert.equal(run.code, 0, `${what}: ${run.stdout}${run.stderr}`);
  assert.deepEqual(stackTraceLines(run.stderr), [], what);
  return run;
}

const eventloomRoot = (dir: string) => path.join(dir, ".eventloom");
const semanticDir = (dir: string) => path.join(eventloomRoot(dir), "projections", "semantic", "default");

function vecFiles(dir: string): string[] {
  const at = semanticDir(dir);
  return fs.existsSync(at) ? fs.readdirSync(at).filter((name) => name.endsWith(".vec")).map((name) => path.join(at, name)) : [];
}

/** The keys (hex SHA-256 of the embedded text) of every whole record of a .vec file. */
function vecKeys(file: string): string[] {
  const bytes = fs.readFileSync(file);
  assert.equal(bytes.subarray(0, 8).toString("latin1"), "zaxysvec");
  const dim = bytes.readUInt32LE(12);
  const recordBytes = 32 + 4 + dim + 4;
  const keys: string[] = [];
  for (let at = 64; at + recordBytes <= bytes.length; at += recordBytes) keys.push(bytes.subarray(at, at + 32).toString("hex"));
  return keys;
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/** Appends decisions in one `memory ingest` (one process for any number). */
function ingest(dir: string, texts: string[]): void {
  ok(runZaxy(["memory", "ingest", "-", "--json"], { cwd: dir, input: ingestLines(texts) }), "ingest");
}

function ingestLines(texts: string[]): string {
  return texts.map((decision) => JSON.stringify({ event_type: "decision.made", actor: "architect", payload: { decision, rationale: "agreed in the weekly review" } })).join("\n") + "\n";
}

function query(dir: string, q: string, ...flags: string[]) {
  const run = ok(runZaxy(["memory", "query", q, ...flags, "--json"], { cwd: dir }), `query ${q} ${flags.join(" ")}`);
  return { doc: JSON.parse(run.stdout), stderr: run.stderr };
}

/**
 * The same commands in this process, for the tests that are about what a read embeds and stores
 * rather than about separate processes: the bundled model then loads once, not per command.
 */
const inProcess = {
  async run(dir: string, args: string[], what: string, input?: string): Promise<ZaxyRun> {
    return ok(await runZaxyInProcess(args, { cwd: dir, input }), what);
  },
  async ingest(dir: string, texts: string[]): Promise<void> {
    await inProcess.run(dir, ["memory", "ingest", "-", "--json"], "ingest", ingestLines(texts));
  },
  async query(dir: string, q: string, ...flags: string[]) {
    const run = await inProcess.run(dir, ["memory", "query", q, ...flags, "--json"], `query ${q} ${flags.join(" ")}`);
    return { doc: JSON.parse(run.stdout), stderr: run.stderr };
  },
};

/** A read embeds at most this many facts; the rest wait for `zaxy memory embed`. */
const readEmbedBudget = 16;
/** Enough facts to leave some past one read's budget (the size is not the point). */
const budgetFactCount = readEmbedBudget + 40;

type Result = { content: string; score_explanation: { lanes: Record<string, number> } };

describe("the semantic lane by default, through the CLI", () => {
  let dir = "";
  let first: ReturnType<typeof query>;

  before(() => {
    dir = makeTempDir("cli-semantic-default");
    ingest(dir, decisions);
    first = query(dir, paraphrase);
  });

  test("a paraphrase runs the lane: receipt, the fact in the top 5, a result with the semantic lane", slow, () => {
    const { doc } = first;
    const semantic = doc.diagnostics.semantic;
    assert.equal(semantic.ran, true, JSON.stringify(semantic));
    assert.equal(semantic.model_id, bundledModelId);
    assert.match(semantic.weights_sha256, /^[0-9a-f]{64}$/);
    assert.equal(semantic.facts_compared, decisions.length);
    assert.equal(semantic.facts_not_embedded, 0);
    assert.equal(semantic.embedded_now, decisions.length);
    const results = doc.results as Result[];
    assert.ok(results.slice(0, 5).some((r) => r.content.includes(postgres)), JSON.stringify(results.map((r) => r.content)));
    assert.ok(results.some((r) => "semantic" in r.score_explanation.lanes));
    assert.equal(first.stderr, "");
  });

  test("--no-semantic: no semantic lane in any result, no run", slow, () => {
    const { doc } = query(dir, paraphrase, "--no-semantic");
    assert.ok((doc.results as Result[]).every((r) => !("semantic" in r.score_explanation.lanes)));
    assert.equal(doc.diagnostics.semantic, undefined, JSON.stringify(doc.diagnostics.semantic));
  });

  test("a query in the fact's own words does not run the lane", slow, () => {
    const { doc } = query(dir, "PostgreSQL 16 database migrated");
    assert.equal(doc.diagnostics.semantic.ran, false, JSON.stringify(doc.diagnostics.semantic));
    // The receipt still names the model the lane would have used.
    assert.equal(doc.diagnostics.semantic.model_id, "use-lite-512-uint8-v1");
    assert.match((doc.results as Result[])[0].content, /PostgreSQL 16/);
  });

  test("vectors persist: another process embeds nothing, a reproject keeps them, and the answer is the same bytes", slow, () => {
    const files = vecFiles(dir);
    assert.equal(files.length, 1, String(files));
    assert.equal(vecKeys(files[0]).length, decisions.length);
    const second = query(dir, paraphrase);
    assert.equal(second.doc.diagnostics.semantic.embedded_now, 0);
    ok(runZaxy(["reproject", "--json"], { cwd: dir }), "reproject");
    assert.deepEqual(vecFiles(dir), files, "reproject keeps the vectors");
    const third = query(dir, paraphrase);
    assert.equal(third.doc.diagnostics.semantic.embedded_now, 0);
    assert.equal(vecKeys(files[0]).length, decisions.length, "nothing appended");
    assert.equal(JSON.stringify(third.doc.results), JSON.stringify(first.doc.results));
    assert.equal(JSON.stringify(second.doc.results), JSON.stringify(first.doc.results));
    const { embedded_now: _now, ...rest } = first.doc.diagnostics.semantic;
    const { embedded_now: _later, ...restLater } = third.doc.diagnostics.semantic;
    assert.deepEqual(restLater, rest);
  });

  test("--semantic with --no-semantic is exit 2 naming both flags", slow, () => {
    const run = runZaxy(["memory", "query", paraphrase, "--semantic", "--no-semantic", "--json"], { cwd: dir });
    assert.equal(run.code, 2, run.stdout + run.stderr);
    assert.match(run.stdout + run.stderr, /--semantic/);
    assert.match(run.stdout + run.stderr, /--no-semantic/);
  });
});

test("a read's embedding budget: the rest is reported with a hint to `zaxy memory embed`, which embeds it all", slow, async () => {
  const dir = makeTempDir("cli-semantic-budget");
  await inProcess.ingest(dir, Array.from({ length: budgetFactCount }, (_, i) => `Service ${i} deploys to region ${i % 7} with ${i % 5} replicas`));
  const before = await inProcess.query(dir, paraphrase);
  const semantic = before.doc.diagnostics.semantic;
  assert.equal(semantic.ran, true);
  assert.ok(semantic.facts_not_embedded > 0, JSON.stringify(semantic));
  assert.equal(semantic.embedded_now, readEmbedBudget);
  const warnings = before.doc.diagnostics.warnings as string[];
  assert.ok(warnings.some((w) => /compared \d+ of \d+ current facts/.test(w) && w.includes("zaxy memory embed")), JSON.stringify(warnings));
  assert.match(before.stderr, /zaxy memory embed/);

  const embed = JSON.parse((await inProcess.run(dir, ["memory", "embed", "--json"], "embed")).stdout);
  assert.equal(embed.session_id, "default");
  assert.equal(embed.semantic.facts_not_embedded, 0);
  assert.equal(embed.semantic.facts_compared, budgetFactCount);
  assert.equal(embed.semantic.embedded_now, budgetFactCount - readEmbedBudget);
  assert.ok(fs.existsSync(embed.vectors_file) || fs.existsSync(path.join(dir, embed.vectors_file)), embed.vectors_file);

  const afterEmbed = await inProcess.query(dir, paraphrase);
  assert.equal(afterEmbed.doc.diagnostics.semantic.embedded_now, 0);
  assert.equal(afterEmbed.doc.diagnostics.semantic.facts_not_embedded, 0);
  assert.ok(!((afterEmbed.doc.diagnostics.warnings ?? []) as string[]).some((w) => w.includes("zaxy memory embed")));
  assert.doesNotMatch(afterEmbed.stderr, /zaxy memory embed/);
});

test("forgetting a fact removes its vector, and a semantic query no longer returns it", slow, async () => {
  const dir = makeTempDir("cli-semantic-forget");
  await inProcess.run(dir, ["config", "set", "forgetting_enabled", "true", "--json"], "config");
  const appended = JSON.parse(
    (await inProcess.run(dir, ["memory", "append", "decision.made", "--actor", "architect", "--payload-json", JSON.stringify({ decision: postgres, rationale: "agreed in the weekly review" }), "--json"], "append")).stdout,
  );
  await inProcess.ingest(dir, decisions.filter((d) => d !== postgres));
  const { canonicalSemanticText } = await import("../../src/semantic/semanticText.ts");
  const key = sha256(canonicalSemanticText(`${postgres}: agreed in the weekly review`));
  const seen = await inProcess.query(dir, paraphrase, "--semantic");
  assert.ok((seen.doc.results as Result[]).some((r) => r.content.includes(postgres)));
  const files = vecFiles(dir);
  assert.equal(files.length, 1);
  assert.ok(vecKeys(files[0]).includes(key), "the fact's vector is keyed by the SHA-256 of its text");

  await inProcess.run(dir, ["memory", "forget", "--target-seq", String(appended.seq), "--target-hash", appended.hash, "--reason", "user asked", "--json"], "forget");
  for (const file of vecFiles(dir)) assert.ok(!vecKeys(file).includes(key), `${file} still holds the forgotten fact's vector`);
  const later = await inProcess.query(dir, paraphrase, "--semantic");
  assert.equal(later.doc.diagnostics.semantic.ran, true);
  assert.ok((later.doc.results as Result[]).every((r) => !r.content.includes(postgres)), JSON.stringify(later.doc.results));
  for (const file of vecFiles(dir)) assert.ok(!vecKeys(file).includes(key), `${file} holds the forgotten fact's vector again`);
  assert.equal(later.doc.diagnostics.semantic.facts_not_embedded, 0);
});

/** Hashed bag of words, `dim` numbers: deterministic, and texts that share words are close. */
function bagOfWords(text: string, dim = 64): number[] {
  const out = new Array<number>(dim).fill(0);
  for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) out[createHash("sha256").update(word).digest()[0] % dim] += 1;
  out[dim - 1] += 0.5;
  return out;
}

async function openAiServer(status = 200): Promise<{ url: string; requests: string[][] }> {
  const requests: string[][] = [];
  const server = http.createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => void (body += chunk));
    req.on("end", () => {
      const input = (JSON.parse(body).input ?? []) as string[];
      requests.push(input);
      if (status !== 200) {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: "boom" } }));
        return;
      }
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ object: "list", data: input.map((text, index) => ({ object: "embedding", index, embedding: bagOfWords(text) })) }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  servers.push(server);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
}

async function closedPortUrl(): Promise<string> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

function configureServer(dir: string, url: string): void {
  for (const [key, value] of [["embedding.url", url], ["embedding.model", "m"], ["embedding.provider", "openai"]]) {
    ok(runZaxy(["config", "set", key, value, "--json"], { cwd: dir }), `config set ${key}`);
  }
}

async function queryAsync(dir: string, q: string) {
  const run = await runZaxyAsync(["memory", "query", q, "--json"], { cwd: dir });
  ok(run, `query ${q}`);
  return { doc: JSON.parse(run.stdout), stderr: run.stderr };
}

test("zaxy memory embed stores nothing when the log changes while the model runs (exit 3, log_changed)", slow, async () => {
  const dir = makeTempDir("cli-semantic-embed-changed");
  ingest(dir, decisions);
  let appended = false;
  const server = http.createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => void (body += chunk));
    req.on("end", () => {
      // Another writer appends while the facts are being embedded (a forget would too).
      if (!appended) {
        appended = true;
        ok(runZaxy(["memory", "append", "decision.made", "--actor", "architect", "--payload-json", JSON.stringify({ decision: "Adopt Valkey for rate limits" })], { cwd: dir }), "append meanwhile");
      }
      const input = (JSON.parse(body).input ?? []) as string[];
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ object: "list", data: input.map((text, index) => ({ object: "embedding", index, embedding: bagOfWords(text) })) }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  servers.push(server);
  configureServer(dir, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  const run = await runZaxyAsync(["memory", "embed", "--json"], { cwd: dir });
  assert.equal(run.code, 3, run.stdout + run.stderr);
  const error = JSON.parse(run.stdout).error;
  assert.equal(error.code, "log_changed");
  assert.match(error.message, /log changed while its facts were embedded.*none of this run's vectors was stored/);
  assert.ok(appended);
  assert.deepEqual(vecFiles(dir).flatMap(vecKeys), [], "no vector stored");
  // Run again on the new state: every fact is embedded and stored.
  const again = JSON.parse(ok(await runZaxyAsync(["memory", "embed", "--json"], { cwd: dir }), "embed again").stdout);
  assert.equal(again.semantic.facts_not_embedded, 0);
  assert.equal(vecFiles(dir).flatMap(vecKeys).length, decisions.length + 1);
});

describe("a configured model server", () => {
  for (const failure of ["a closed port", "a server answering 500"]) {
    test(`${failure}: the read falls back to the bundled model with the reason and a warning`, slow, async () => {
      const dir = makeTempDir("cli-semantic-fallback");
      ingest(dir, decisions);
      const url = failure === "a closed port" ? await closedPortUrl() : (await openAiServer(500)).url;
      configureServer(dir, url);
      const { doc, stderr } = await queryAsync(dir, paraphrase);
      const semantic = doc.diagnostics.semantic;
      assert.equal(semantic.ran, true);
      assert.equal(semantic.model_id, bundledModelId);
      assert.match(semantic.weights_sha256, /^[0-9a-f]{64}$/);
      assert.ok(typeof semantic.fallback_reason === "string" && semantic.fallback_reason.includes(url), JSON.stringify(semantic));
      assert.match(stderr, /semantic lane: .*ranked with the bundled model/);
      assert.ok((doc.results as Result[]).slice(0, 5).some((r) => r.content.includes(postgres)));
    });
  }

  test("a working OpenAI server ranks with its own vectors, stored under its model id, embedded once", slow, async () => {
    const dir = makeTempDir("cli-semantic-server");
    ingest(dir, decisions);
    const server = await openAiServer();
    configureServer(dir, server.url);
    const first = await queryAsync(dir, paraphrase);
    const semantic = first.doc.diagnostics.semantic;
    assert.equal(semantic.ran, true, JSON.stringify(semantic));
    assert.equal(semantic.model_id, "openai:m");
    assert.equal(semantic.weights_sha256, null);
    assert.ok(typeof semantic.endpoint === "string" && semantic.endpoint.startsWith(server.url), JSON.stringify(semantic));
    assert.equal(semantic.fallback_reason, undefined);
    assert.equal(semantic.embedded_now, decisions.length);
    assert.equal(first.stderr, "");
    const files = vecFiles(dir);
    assert.equal(files.length, 1, String(files));
    assert.match(path.basename(files[0]), /^openai_m-[0-9a-f]{12}\.vec$/);
    assert.equal(fs.readFileSync(files[0]).readUInt32LE(12), 64);
    assert.equal(vecKeys(files[0]).length, decisions.length);
    assert.equal(server.requests.flat().length, decisions.length + 1, "the facts and the query");

    const before = server.requests.length;
    const second = await queryAsync(dir, paraphrase);
    assert.equal(second.doc.diagnostics.semantic.embedded_now, 0);
    assert.deepEqual(server.requests.slice(before).map((input) => input.length), [1], "only the query text");
    assert.equal(JSON.stringify(second.doc.results), JSON.stringify(first.doc.results));
  });
});
