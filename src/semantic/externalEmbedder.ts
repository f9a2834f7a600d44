/**
 * A `SemanticEmbedder` backed by a model server the user runs: an OpenAI-compatible one or Ollama
 * (embeddingProtocols.ts), chosen by `embedding.*` in config.json (embeddingSettings.ts).
 *
 * - Input and output follow the bundled model's rules (semanticText.ts): canonicalised texts in,
 *   L2-normalised Float32Arrays out, one per text, in order.
 * - Texts go in sequential requests of at most `embeddingServerBatchTextsMax`, each bounded by
 *   `embedding.timeout_ms` (response body included) and `embeddingResponseBytesMax`.
 * - Every vector must hold finite numbers and have one length: `embedding.dimensions` when set,
 *   otherwise the length of the first vector the server returned.
 * - Any failure is an `EmbeddingEndpointError` naming the endpoint (never a credential: the URL
 *   has none, and the API key is cut out of anything the server said), the model and what went
 *   wrong. For `endpointRetryAfterMs` after a failure, calls fail the same way without asking the
 *   server, so a long-running server does not wait out the timeout on every read.
 *
 * The API key is read from the environment variable `embedding.api_key_env` names at each request
 * and sent as `Authorization: Bearer <key>` only when that variable is set.
 *
 * @example
 * const embedder = externalEmbedder({ provider: "ollama", url: "http://127.0.0.1:11434", model: "nomic-embed-text",
 *   dimensions: null, timeoutMs: 10_000, apiKeyEnv: "ZAXY_EMBEDDING_API_KEY" });
 * const [vector] = await embedder.embed(["Migrated the database to PostgreSQL 16"]);
 * embedder.receipt // {id: "ollama:nomic-embed-text", weights_sha256: null, dim: 768, endpoint: "http://127.0.0.1:11434/api/embed"}
 */
import { ExitCode, ZaxyError } from "../errors.ts";
import { embeddingResponseBytesMax, embeddingServerBatchTextsMax, endpointRetryAfterMs } from "../limits.ts";
import { embeddingEndpoint, embeddingRequestBody, embeddingResponseRows } from "./embeddingProtocols.ts";
import { embeddingModelId, type ServerEmbeddingSettings } from "./embeddingSettings.ts";
import type { SemanticEmbedder, SemanticModelReceipt } from "./semanticEmbedder.ts";
import { canonicalSemanticText, l2Normalised } from "./semanticText.ts";

/** What went wrong with a request, as a fixed code (the message says it in words). */
export type EmbeddingEndpointFailure =
  | "connection_refused"
  | "unreachable"
  | "timed_out"
  | "http_status"
  | "response_too_large"
  | "malformed_response"
  | "wrong_count"
  | "wrong_dimension"
  | "non_finite";

/**
 * A model server did not give usable vectors. Exit 3 (I/O) if it reaches the CLI; the semantic
 * lane catches it and falls back to the bundled model.
 */
export class EmbeddingEndpointError extends ZaxyError {
  /** The URL asked, without credentials. */
  readonly endpoint: string;
  readonly model: string;
  readonly failure: EmbeddingEndpointFailure;
  /** What went wrong, in words (the message without the endpoint and model). */
  readonly reason: string;
  /** True when no request was made: the endpoint failed less than `endpointRetryAfterMs` ago. */
  readonly failedFast: boolean;

  constructor(endpoint: string, model: string, failure: EmbeddingEndpointFailure, reason: string, failedFast = false) {
    super("embedding_endpoint_failed", `embedding endpoint ${endpoint} (model ${model}): ${reason}`, ExitCode.ioError, {
      field: "embedding.url",
      hint: "check that the server runs and serves the model; with embedding.provider unset, reads use the bundled model",
    });
    this.name = "EmbeddingEndpointError";
    this.endpoint = endpoint;
    this.model = model;
    this.failure = failure;
    this.reason = reason;
    this.failedFast = failedFast;
  }
}

/** What the embedder reads from its surroundings; tests replace them. */
export interface ExternalEmbedderOptions {
  /** Where the API key variable is looked up (default `process.env`, read at each request). */
  env?: Readonly<Record<string, string | undefined>>;
  fetch?: typeof fetch;
  /** Clock for the fail-fast window. */
  nowMs?: () => number;
}

/** A failure inside one request, before it becomes an `EmbeddingEndpointError`. */
class RequestFailure {
  constructor(readonly failure: EmbeddingEndpointFailure, readonly reason: string) {}
}

const refusedPattern = /ECONNREFUSED|ConnectionRefused|connection refused/i;

/** Words for a fetch that threw before any response (runtimes word and code this differently). */
function connectFailure(error: unknown): RequestFailure {
  const parts: unknown[] = [];
  for (let e: unknown = error, depth = 0; e !== null && typeof e === "object" && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    parts.push((e as { code?: unknown }).code, (e as { message?: unknown }).message);
  }
  const text = parts.filter((part) => typeof part === "string").join(" ");
  if (refusedPattern.test(text)) return new RequestFailure("connection_refused", "connection refused");
  const first = (error instanceof Error ? error.message : String(error)).split("\n")[0].slice(0, 200);
  return new RequestFailure("unreachable", `cannot connect (${first})`);
}

/** The body as text, at most `embeddingResponseBytesMax` bytes. */
async function boundedText(response: Response): Promise<string> {
  if (response.body === null) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > embeddingResponseBytesMax) {
      await reader.cancel().catch(() => undefined);
      throw new RequestFailure("response_too_large", `the response is larger than ${embeddingResponseBytesMax} bytes`);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes);
}

/** What a non-2xx response says, in one short line: its JSON `error.message` or its text. */
function statusReason(response: Response, text: string): string {
  let said = text;
  try {
    const body = JSON.parse(text) as { error?: unknown };
    const error = body?.error;
    if (typeof error === "string") said = error;
    else if (error !== null && typeof error === "object" && typeof (error as { message?: unknown }).message === "string") said = (error as { message: string }).message;
  } catch {
    // Not JSON: the text itself.
  }
  said = said.replace(/\s+/g, " ").trim().slice(0, 200);
  return `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ""}${said ? `: ${said}` : ""}`;
}

/** Builds the embedder; no request is made until `embed` is called. */
export function externalEmbedder(settings: ServerEmbeddingSettings, options: ExternalEmbedderOptions = {}): SemanticEmbedder {
  const endpoint = embeddingEndpoint(settings);
  const id = embeddingModelId(settings);
  const doFetch = options.fetch ?? fetch;
  const nowMs = options.nowMs ?? Date.now;
  /** Vector length every response must have: configured, or learnt from the first response. */
  let dim = settings.dimensions ?? 0;
  let lastFailure: { atMs: number; error: EmbeddingEndpointError } | null = null;

  const apiKey = (): string | undefined => {
    const value = (options.env ?? process.env)[settings.apiKeyEnv];
    return value === undefined || value === "" ? undefined : value;
  };

  /** `text` with the API key cut out: a server may quote back what it was sent. */
  const scrubbed = (text: string, key: string | undefined): string => (key === undefined ? text : text.split(key).join("***"));

  async function request(texts: readonly string[], key: string | undefined): Promise<unknown> {
    const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json" };
    if (key !== undefined) headers.authorization = `Bearer ${key}`;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), settings.timeoutMs);
    const timedOut = () => new RequestFailure("timed_out", `timed out after ${settings.timeoutMs} ms (embedding.timeout_ms)`);
    try {
      let response: Response;
      try {
        response = await doFetch(endpoint, { method: "POST", headers, body: JSON.stringify(embeddingRequestBody(settings, texts)), signal: controller.signal });
      } catch (error) {
        throw controller.signal.aborted ? timedOut() : connectFailure(error);
      }
      let text: string;
      try {
        text = await boundedText(response);
      } catch (error) {
        if (error instanceof RequestFailure) throw error;
        throw controller.signal.aborted ? timedOut() : new RequestFailure("unreachable", "the connection broke while reading the response");
      }
      if (!response.ok) throw new RequestFailure("http_status", statusReason(response, text));
      try {
        return JSON.parse(text);
      } catch {
        throw new RequestFailure("malformed_response", `the response is not JSON (HTTP ${response.status}, ${text.length} characters)`);
      }
    } finally {
      clearTimeout(timer);
    }
  }

  /** The vectors of one batch, checked and normalised. */
  async function embedBatch(texts: readonly string[], key: string | undefined): Promise<Float32Array[]> {
    const read = embeddingResponseRows(settings.provider, await request(texts, key), texts.length);
    if ("failure" in read) throw new RequestFailure(read.failure, read.reason);
    const out: Float32Array[] = [];
    for (const [i, row] of read.rows.entries()) {
      if (!Array.isArray(row) || row.length === 0) throw new RequestFailure("malformed_response", `vector ${i} is not a non-empty array of numbers`);
      if (!row.every((x) => typeof x === "number" && Number.isFinite(x))) throw new RequestFailure("non_finite", `vector ${i} holds a value that is not a finite number`);
      const expected = dim === 0 ? row.length : dim;
      if (row.length !== expected) {
        const source = settings.dimensions === null ? "earlier vectors of this model" : "embedding.dimensions";
        throw new RequestFailure("wrong_dimension", `vector ${i} has ${row.length} dimensions, expected ${expected} (${source})`);
      }
      dim = expected;
      out.push(l2Normalised(row as number[]));
    }
    return out;
  }

  return {
    get receipt(): SemanticModelReceipt {
      return { id, weights_sha256: null, dim, endpoint };
    },
    async embed(texts) {
      if (lastFailure !== null) {
        const sinceMs = nowMs() - lastFailure.atMs;
        if (sinceMs >= 0 && sinceMs < endpointRetryAfterMs) {
          const seconds = Math.ceil((endpointRetryAfterMs - sinceMs) / 1000);
          const { error } = lastFailure;
          throw new EmbeddingEndpointError(endpoint, settings.model, error.failure, `${error.reason} (not asked again for ${seconds} s)`, true);
        }
      }
      if (texts.length === 0) return [];
      const canonical = texts.map(canonicalSemanticText);
      const key = apiKey();
      const out: Float32Array[] = [];
      try {
        for (let i = 0; i < canonical.length; i += embeddingServerBatchTextsMax) {
          out.push(...await embedBatch(canonical.slice(i, i + embeddingServerBatchTextsMax), key));
        }
      } catch (error) {
        const failure = error instanceof RequestFailure ? error : connectFailure(error);
        const endpointError = new EmbeddingEndpointError(endpoint, settings.model, failure.failure, scrubbed(failure.reason, key));
        lastFailure = { atMs: nowMs(), error: endpointError };
        throw endpointError;
      }
      lastFailure = null;
      return out;
    },
  };
}
