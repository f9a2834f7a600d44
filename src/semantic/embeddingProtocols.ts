/**
 * The two wire formats an embedding server speaks, as requests to send and responses to read:
 * - OpenAI-compatible: POST `<url>/v1/embeddings` `{model, input: [text…], dimensions?}` →
 *   `{data: [{index, embedding: [number…]}…]}`, rows in any order (sorted here by `index`);
 * - Ollama: POST `<url>/api/embed` `{model, input: [text…]}` → `{embeddings: [[number…]…]}`.
 * Reading a response checks its shape and count only; the numbers and their dimension are checked
 * by the caller (externalEmbedder.ts), the same for both.
 *
 * @example
 * embeddingEndpoint({ provider: "ollama", url: "http://127.0.0.1:11434", ... }) // "http://127.0.0.1:11434/api/embed"
 * embeddingResponseRows("ollama", { embeddings: [[0.1, 0.2]] }, 1)               // { rows: [[0.1, 0.2]] }
 */
import type { ServerEmbeddingProvider, ServerEmbeddingSettings } from "./embeddingSettings.ts";

/**
 * The URL a request goes to. An OpenAI base URL already ending in `/v1` (as many servers document
 * it: `http://localhost:8000/v1`) gets only `/embeddings`, not a second `/v1`.
 */
export function embeddingEndpoint(settings: Pick<ServerEmbeddingSettings, "provider" | "url">): string {
  if (settings.provider === "ollama") return `${settings.url}/api/embed`;
  return settings.url.endsWith("/v1") ? `${settings.url}/embeddings` : `${settings.url}/v1/embeddings`;
}

/** The JSON body asking for the vectors of `texts` (already canonicalised). */
export function embeddingRequestBody(settings: Pick<ServerEmbeddingSettings, "provider" | "model" | "dimensions">, texts: readonly string[]): object {
  if (settings.provider === "openai" && settings.dimensions !== null) return { model: settings.model, input: texts, dimensions: settings.dimensions };
  return { model: settings.model, input: texts };
}

/** The rows of a response, in input order, or what is wrong with it. */
export type EmbeddingResponseRows =
  | { rows: readonly unknown[] }
  | { failure: "malformed_response" | "wrong_count"; reason: string };

const isObject = (value: unknown): value is { [key: string]: unknown } => value !== null && typeof value === "object" && !Array.isArray(value);

/** Reads the vectors out of a parsed response body for `count` texts. */
export function embeddingResponseRows(provider: ServerEmbeddingProvider, body: unknown, count: number): EmbeddingResponseRows {
  if (provider === "ollama") {
    if (!isObject(body) || !Array.isArray(body.embeddings)) return { failure: "malformed_response", reason: "the response has no \"embeddings\" array" };
    if (body.embeddings.length !== count) return { failure: "wrong_count", reason: `asked for ${count} vectors, got ${body.embeddings.length}` };
    return { rows: body.embeddings };
  }
  if (!isObject(body) || !Array.isArray(body.data)) return { failure: "malformed_response", reason: "the response has no \"data\" array" };
  if (body.data.length !== count) return { failure: "wrong_count", reason: `asked for ${count} vectors, got ${body.data.length}` };
  const rows: unknown[] = new Array(count);
  const seen = new Set<number>();
  for (const item of body.data) {
    const index = isObject(item) ? item.index : undefined;
    if (!isObject(item) || typeof index !== "number" || !Number.isInteger(index) || index < 0 || index >= count || seen.has(index)) {
      return { failure: "malformed_response", reason: `each of "data" must be {index, embedding} with a distinct index from 0 to ${count - 1}` };
    }
    seen.add(index);
    rows[index] = item.embedding;
  }
  return { rows };
}
