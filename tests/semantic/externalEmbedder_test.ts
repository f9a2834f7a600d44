/**
 * A model server as the semantic lane's embedder (src/semantic/externalEmbedder.ts), against a
 * real local HTTP server that speaks the OpenAI and Ollama wire formats: what is sent, what is
 * accepted, and how each failure is worded (never with the API key) and then failed fast.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import * as path from "node:path";
import { after, describe, test } from "node:test";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";
import { configuredSemanticEmbedders, lazyBundledEmbedder } from "../../src/semantic/embedderChoice.ts";
import type { ServerEmbeddingSettings } from "../../src/semantic/embeddingSettings.ts";
import { EmbeddingEndpointError, externalEmbedder } from "../../src/semantic/externalEmbedder.ts";
import { endpointRetryAfterMs, embeddingServerBatchTextsMax } from "../../src/limits.ts";
import type { SemanticEmbedder } from "../../src/semantic/semanticEmbedder.ts";
import { semanticModelId } from "../../src/semantic/semanticModel.ts";

interface SeenRequest {
  method: string;
  url: string;
  authorization: string | undefined;
  body: { model?: unknown; input?: string[]; dimensions?: unknown; [key: string]: unknown };
}

/** "hang": never answer; "stall": send the headers and the start of a body, then nothing. */
type Reply = { status?: number; body: string } | "hang" | "stall";

interface FakeServer {
  url: string;
  requests: SeenRequest[];
  close(): Promise<void>;
}

const slow = { timeout: 120_000 };

const servers: FakeServer[] = [];
after(async () => {
  for (const server of servers) await server.close();
  removeTempDirs();
});

/** A server on 127.0.0.1 (a free port) that records each request and answers with `reply`. */
async function fakeServer(reply: (request: SeenRequest) => Reply | Promise<Reply>): Promise<FakeServer> {
  const requests: SeenRequest[] = [];
  const hanging = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    let text = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => void (text += chunk));
    req.on("end", async () => {
      const seen: SeenRequest = { method: req.method ?? "", url: req.url ?? "", authorization: req.headers.authorization, body: JSON.parse(text) };
      requests.push(seen);
      const answer = await reply(seen);
      if (answer === "hang" || answer === "stall") {
        hanging.add(res);
        if (answer === "stall") {
          res.writeHead(200, { "content-type": "application/json" });
          res.write('{"data": [');
        }
        return;
      }
      res.writeHead(answer.status ?? 200, { "content-type": "application/json" });
      res.end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const fake: FakeServer = {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hanging) res.destroy();
        hanging.clear();
        server.close(() => resolve());
        server.closeAllConnections?.();
      }),
  };
  servers.push(fake);
  return fake;
}

/** A vector for text `i` of a batch: [i + 1, 1, 0, …] over `dim` numbers (not normalised). */
const rawVector = (i: number, dim: number) => Array.from({ length: dim }, (_, d) => (d === 0 ? i + 1 : d === 1 ? 1 : 0));

/** OpenAI's answer for a request, rows in reverse order (the client must sort by index). */
function openAiReply(request: SeenRequest, dim = 3): Reply {
  const data = (request.body.input ?? []).map((_, index) => ({ object: "embedding", index, embedding: rawVector(index, dim) }));
  return { body: JSON.stringify({ object: "list", data: data.reverse(), model: request.body.model }) };
}

function ollamaReply(request: SeenRequest, dim = 3): Reply {
  return { body: JSON.stringify({ model: request.body.model, embeddings: (request.body.input ?? []).map((_, i) => rawVector(i, dim)) }) };
}

function settings(url: string, overrides: Partial<ServerEmbeddingSettings> = {}): ServerEmbeddingSettings {
  return { provider: "openai", url, model: "m", dimensions: null, timeoutMs: 5_000, apiKeyEnv: "TEST_EMBEDDING_KEY", ...overrides };
}

/** The error `embed` throws (the test fails when it resolves). */
async function embedError(embedder: SemanticEmbedder, texts: string[]): Promise<EmbeddingEndpointError> {
  try {
    await embedder.embed(texts);
  } catch (error) {
    assert.ok(error instanceof EmbeddingEndpointError, `expected an EmbeddingEndpointError, got ${error}`);
    return error;
  }
  throw new assert.AssertionError({ message: "embed resolved; expected an EmbeddingEndpointError" });
}

const closeTo = (actual: Float32Array, expected: number[]) => {
  assert.equal(actual.length, expected.length);
  for (let i = 0; i < expected.length; i++) assert.ok(Math.abs(actual[i] - expected[i]) < 1e-6, `[${i}] ${actual[i]} vs ${expected[i]}`);
};

describe("externalEmbedder, OpenAI-compatible", () => {
  test("posts {model, input, dimensions} to /v1/embeddings with the Bearer key, and returns normalised vectors in index order", async () => {
    const server = await fakeServer((request) => openAiReply(request, 4));
    const embedder = externalEmbedder(settings(server.url, { model: "text-embedding-3-small", dimensions: 4 }), { env: { TEST_EMBEDDING_KEY: "sk-test-123" } });
    assert.deepEqual(embedder.receipt, { id: "openai:text-embedding-3-small:4", weights_sha256: null, dim: 4, endpoint: `${server.url}/v1/embeddings` });
    const vectors = await embedder.embed(["first  fact\n", "", "third"]);
    assert.equal(server.requests.length, 1);
    const [request] = server.requests;
    assert.equal(request.method, "POST");
    assert.equal(request.url, "/v1/embeddings");
    assert.equal(request.authorization, "Bearer sk-test-123");
    // Canonicalised as for the bundled model: white space collapsed, an empty text as one space.
    assert.deepEqual(request.body, { model: "text-embedding-3-small", input: ["first fact", " ", "third"], dimensions: 4 });
    closeTo(vectors[0], [1 / Math.SQRT2, 1 / Math.SQRT2, 0, 0]);
    closeTo(vectors[1], [2 / Math.sqrt(5), 1 / Math.sqrt(5), 0, 0]);
    closeTo(vectors[2], [3 / Math.sqrt(10), 1 / Math.sqrt(10), 0, 0]);
    assert.ok(vectors.every((v) => v instanceof Float32Array));
  });

  test("sends no Authorization header when the key variable is unset or empty, and no dimensions when none is configured", async () => {
    const server = await fakeServer((request) => openAiReply(request));
    const unset = externalEmbedder(settings(server.url), { env: {} });
    const empty = externalEmbedder(settings(server.url), { env: { TEST_EMBEDDING_KEY: "" } });
    await unset.embed(["a"]);
    await empty.embed(["b"]);
    assert.deepEqual(server.requests.map((r) => r.authorization), [undefined, undefined]);
    assert.deepEqual(server.requests[0].body, { model: "m", input: ["a"] });
    assert.deepEqual(unset.receipt, { id: "openai:m", weights_sha256: null, dim: 3, endpoint: `${server.url}/v1/embeddings` });
  });

  test("a base URL ending in /v1 is not given a second /v1", async () => {
    const server = await fakeServer((request) => openAiReply(request));
    await externalEmbedder(settings(`${server.url}/v1`), { env: {} }).embed(["a"]);
    assert.equal(server.requests[0].url, "/v1/embeddings");
  });

  test("130 texts go in sequential requests of 64, 64 and 2, and come back in order", async () => {
    assert.equal(embeddingServerBatchTextsMax, 64);
    let inFlight = 0;
    let inFlightMax = 0;
    const server = await fakeServer(async (request) => {
      inFlight++;
      inFlightMax = Math.max(inFlightMax, inFlight);
      // Slow enough that a client sending batches at once would have two in flight.
      await new Promise((resolve) => setTimeout(resolve, 20));
      inFlight--;
      // Each text's vector encodes its own number, so order can be checked end to end.
      const data = (request.body.input ?? []).map((text, index) => ({ index, embedding: [Number(text.slice(1)), 1] }));
      return { body: JSON.stringify({ data }) };
    });
    const texts = Array.from({ length: 130 }, (_, i) => `t${i}`);
    const vectors = await externalEmbedder(settings(server.url), { env: {} }).embed(texts);
    assert.deepEqual(server.requests.map((r) => r.body.input?.length), [64, 64, 2]);
    assert.deepEqual(server.requests.flatMap((r) => r.body.input), texts);
    assert.equal(inFlightMax, 1);
    assert.equal(vectors.length, 130);
    for (const [i, v] of vectors.entries()) closeTo(v, [i / Math.hypot(i, 1), 1 / Math.hypot(i, 1)]);
  });

  test("an empty list embeds to an empty list without a request", async () => {
    const server = await fakeServer((request) => openAiReply(request));
    assert.deepEqual(await externalEmbedder(settings(server.url), { env: {} }).embed([]), []);
    assert.equal(server.requests.length, 0);
  });
});

describe("externalEmbedder, Ollama", () => {
  test("posts {model, input} to /api/embed and reads {embeddings}", async () => {
    const server = await fakeServer((request) => ollamaReply(request, 5));
    const embedder = externalEmbedder(settings(server.url, { provider: "ollama", model: "nomic-embed-text" }), { env: {} });
    assert.deepEqual(embedder.receipt, { id: "ollama:nomic-embed-text", weights_sha256: null, dim: 0, endpoint: `${server.url}/api/embed` });
    const vectors = await embedder.embed(["a", "b"]);
    assert.equal(server.requests[0].url, "/api/embed");
    assert.deepEqual(server.requests[0].body, { model: "nomic-embed-text", input: ["a", "b"] });
    assert.equal(server.requests[0].authorization, undefined);
    closeTo(vectors[1], [2 / Math.sqrt(5), 1 / Math.sqrt(5), 0, 0, 0]);
    assert.equal(embedder.receipt.dim, 5);
  });

  test("embedding.dimensions is not sent to Ollama but is checked against what it returns", async () => {
    const server = await fakeServer((request) => ollamaReply(request, 3));
    const error = await embedError(externalEmbedder(settings(server.url, { provider: "ollama", dimensions: 4 }), { env: {} }), ["a"]);
    assert.deepEqual(server.requests[0].body, { model: "m", input: ["a"] });
    assert.equal(error.failure, "wrong_dimension");
    assert.equal(error.message, `embedding endpoint ${server.url}/api/embed (model m): vector 0 has 3 dimensions, expected 4 (embedding.dimensions)`);
  });
});

describe("externalEmbedder failures", () => {
  test("connection refused names the endpoint and the model", async () => {
    const server = await fakeServer((request) => openAiReply(request));
    await server.close();
    const error = await embedError(externalEmbedder(settings(server.url), { env: {} }), ["a"]);
    assert.equal(error.failure, "connection_refused");
    assert.equal(error.message, `embedding endpoint ${server.url}/v1/embeddings (model m): connection refused`);
    assert.equal(error.code, "embedding_endpoint_failed");
    assert.equal(error.exitCode, 3);
  });

  test("a server that never answers times out within about embedding.timeout_ms", async () => {
    const server = await fakeServer(() => "hang");
    const started = Date.now();
    const error = await embedError(externalEmbedder(settings(server.url, { timeoutMs: 300 }), { env: {} }), ["a"]);
    const elapsedMs = Date.now() - started;
    assert.ok(elapsedMs >= 250 && elapsedMs < 3_000, `took ${elapsedMs} ms`);
    assert.equal(error.failure, "timed_out");
    assert.equal(error.message, `embedding endpoint ${server.url}/v1/embeddings (model m): timed out after 300 ms (embedding.timeout_ms)`);
  });

  test("a server that stalls in the middle of its body times out too", async () => {
    const server = await fakeServer(() => "stall");
    const started = Date.now();
    const error = await embedError(externalEmbedder(settings(server.url, { timeoutMs: 300 }), { env: {} }), ["a"]);
    assert.ok(Date.now() - started < 3_000);
    assert.equal(error.failure, "timed_out");
    assert.equal(error.message, `embedding endpoint ${server.url}/v1/embeddings (model m): timed out after 300 ms (embedding.timeout_ms)`);
  });

  test("a non-2xx answer gives its status and message, with the API key cut out", async () => {
    const key = "sk-live-SECRET-0123456789";
    const server = await fakeServer(() => ({ status: 401, body: JSON.stringify({ error: { message: `Incorrect API key provided: ${key}.` } }) }));
    const error = await embedError(externalEmbedder(settings(server.url), { env: { TEST_EMBEDDING_KEY: key } }), ["a"]);
    assert.equal(server.requests[0].authorization, `Bearer ${key}`);
    assert.equal(error.failure, "http_status");
    assert.equal(error.message, `embedding endpoint ${server.url}/v1/embeddings (model m): HTTP 401 Unauthorized: Incorrect API key provided: ***.`);
    assert.ok(!JSON.stringify({ message: error.message, hint: error.hint, reason: error.reason }).includes(key));
  });

  const badBodies: Array<[string, string, string, string]> = [
    ["not JSON", "<html>oops</html>", "malformed_response", "the response is not JSON (HTTP 200, 17 characters)"],
    ["JSON without data", "{}", "malformed_response", "the response has no \"data\" array"],
    ["too few rows", JSON.stringify({ data: [{ index: 0, embedding: [1, 0] }] }), "wrong_count", "asked for 2 vectors, got 1"],
    ["a repeated index", JSON.stringify({ data: [{ index: 0, embedding: [1, 0] }, { index: 0, embedding: [1, 0] }] }), "malformed_response", "each of \"data\" must be {index, embedding} with a distinct index from 0 to 1"],
    ["an empty vector", JSON.stringify({ data: [{ index: 0, embedding: [] }, { index: 1, embedding: [1] }] }), "malformed_response", "vector 0 is not a non-empty array of numbers"],
    ["a non-finite number", `{"data": [{"index": 0, "embedding": [1, 0]}, {"index": 1, "embedding": [1e999, 0]}]}`, "non_finite", "vector 1 holds a value that is not a finite number"],
    ["a string for a number", JSON.stringify({ data: [{ index: 0, embedding: [1, 0] }, { index: 1, embedding: ["1", 0] }] }), "non_finite", "vector 1 holds a value that is not a finite number"],
    ["vectors of two lengths", JSON.stringify({ data: [{ index: 0, embedding: [1, 0] }, { index: 1, embedding: [1, 0, 0] }] }), "wrong_dimension", "vector 1 has 3 dimensions, expected 2 (earlier vectors of this model)"],
  ];
  for (const [label, body, failure, reason] of badBodies) {
    test(`a response with ${label} is ${failure}`, async () => {
      const server = await fakeServer(() => ({ body }));
      const error = await embedError(externalEmbedder(settings(server.url), { env: {} }), ["a", "b"]);
      assert.equal(error.failure, failure);
      assert.equal(error.message, `embedding endpoint ${server.url}/v1/embeddings (model m): ${reason}`);
    });
  }

  test("a later call whose vectors differ in length from the first call's is wrong_dimension", async () => {
    let dim = 3;
    const server = await fakeServer((request) => openAiReply(request, dim));
    const embedder = externalEmbedder(settings(server.url), { env: {} });
    await embedder.embed(["a"]);
    dim = 4;
    const error = await embedError(embedder, ["b"]);
    assert.equal(error.failure, "wrong_dimension");
    assert.equal(embedder.receipt.dim, 3);
  });

  test("after a failure, calls fail fast without a request for 30 s, then ask the server again", async () => {
    let healthy = false;
    const server = await fakeServer((request) => (healthy ? openAiReply(request) : { status: 503, body: "busy" }));
    let nowMs = 1_000_000;
    const embedder = externalEmbedder(settings(server.url), { env: {}, nowMs: () => nowMs });
    const first = await embedError(embedder, ["a"]);
    assert.equal(first.failedFast, false);
    assert.equal(first.message, `embedding endpoint ${server.url}/v1/embeddings (model m): HTTP 503 Service Unavailable: busy`);
    healthy = true;
    nowMs += endpointRetryAfterMs - 1;
    const started = Date.now();
    const fast = await embedError(embedder, ["a"]);
    assert.ok(Date.now() - started < 100);
    assert.equal(fast.failedFast, true);
    assert.equal(fast.failure, "http_status");
    assert.equal(fast.message, `embedding endpoint ${server.url}/v1/embeddings (model m): HTTP 503 Service Unavailable: busy (not asked again for 1 s)`);
    assert.equal(server.requests.length, 1, "no second request reached the server");
    nowMs += 1;
    assert.equal((await embedder.embed(["a"])).length, 1);
    assert.equal(server.requests.length, 2);
    assert.equal(endpointRetryAfterMs, 30_000);
  });
});

describe("lazyBundledEmbedder", () => {
  test("loads the bundled model only on the first embed, and then reports its receipt", async () => {
    let loads = 0;
    const loaded: SemanticEmbedder = {
      receipt: { id: semanticModelId, weights_sha256: "ab".repeat(32), dim: 512 },
      embed: (texts) => Promise.resolve(texts.map(() => new Float32Array(512))),
    };
    const lazy = lazyBundledEmbedder(() => {
      loads++;
      return Promise.resolve(loaded);
    });
    assert.deepEqual(lazy.receipt, { id: semanticModelId, weights_sha256: null, dim: 512 });
    assert.equal(loads, 0);
    await Promise.all([lazy.embed(["a"]), lazy.embed(["b"])]);
    assert.equal(loads, 1);
    assert.deepEqual(lazy.receipt, loaded.receipt);
  });
});

describe("configuredSemanticEmbedders", () => {
  test("a server provider gives the server embedder, kept per root and settings, with a lazy bundled fallback", async () => {
    const root = makeTempDir("zaxy-embedder-choice");
    const write = (extra: Record<string, unknown>) =>
      fs.writeFileSync(path.join(root, "config.json"), JSON.stringify({ schema: "zaxy.config.v1", "embedding.url": "http://127.0.0.1:9", "embedding.model": "m", "embedding.provider": "openai", ...extra }));
    write({});
    const first = await configuredSemanticEmbedders(root);
    assert.deepEqual(first.primary.receipt, { id: "openai:m", weights_sha256: null, dim: 0, endpoint: "http://127.0.0.1:9/v1/embeddings" });
    assert.deepEqual(first.fallback?.receipt, { id: semanticModelId, weights_sha256: null, dim: 512 });
    assert.equal((await configuredSemanticEmbedders(root)).primary, first.primary, "the same embedder, so its fail-fast state persists");
    write({ "embedding.dimensions": 256 });
    const changed = await configuredSemanticEmbedders(root);
    assert.notEqual(changed.primary, first.primary);
    assert.equal(changed.primary.receipt.id, "openai:m:256");
    assert.equal(changed.primary.receipt.dim, 256);
  });

  test("the default is the bundled model with no fallback", slow, async () => {
    const root = makeTempDir("zaxy-embedder-default");
    const { primary, fallback } = await configuredSemanticEmbedders(root);
    assert.equal(primary.receipt.id, semanticModelId);
    assert.equal(typeof primary.receipt.weights_sha256, "string");
    assert.equal(fallback, null);
  });
});
