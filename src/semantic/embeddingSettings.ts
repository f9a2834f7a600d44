/**
 * Which model embeds text for the semantic lane, from `<root>/config.json` (`zaxy config set`):
 * - `embedding.provider`: `bundled` (default, the offline model in the binary), `openai` (any
 *   OpenAI-compatible server: POST `<url>/v1/embeddings`) or `ollama` (POST `<url>/api/embed`);
 * - `embedding.url`: the server's base URL, http(s), without credentials, query or fragment;
 * - `embedding.model`: the model name the server knows;
 * - `embedding.dimensions`: optional vector length (sent to OpenAI as `dimensions`, checked for both);
 * - `embedding.timeout_ms`: how long one request may take (default 10000);
 * - `embedding.api_key_env`: the NAME of the environment variable holding the API key (default
 *   `ZAXY_EMBEDDING_API_KEY`). The key itself is never in config.json, which is a plain file that
 *   tools copy around; a value that is not an environment variable name is refused unshown.
 *
 * A server provider needs `embedding.url` and `embedding.model`, so set them before the provider.
 * Every bad value is `invalid_config` naming the key (exit 2). This module reads no model: the
 * config commands import it.
 *
 * @example
 * readEmbeddingSettings(root)
 * // {provider: "ollama", url: "http://127.0.0.1:11434", model: "nomic-embed-text", dimensions: null, timeoutMs: 10000, apiKeyEnv: "ZAXY_EMBEDDING_API_KEY"}
 */
import { configPath, readConfigObject } from "../eventloom/root.ts";
import { inputError } from "../errors.ts";
import { semanticModelId } from "./semanticModel.ts";

export const embeddingConfigKeys = {
  provider: "embedding.provider",
  url: "embedding.url",
  model: "embedding.model",
  dimensions: "embedding.dimensions",
  timeoutMs: "embedding.timeout_ms",
  apiKeyEnv: "embedding.api_key_env",
} as const;

export const embeddingProviders = ["bundled", "openai", "ollama"] as const;
export type EmbeddingProvider = (typeof embeddingProviders)[number];
export type ServerEmbeddingProvider = Exclude<EmbeddingProvider, "bundled">;

export const embeddingTimeoutMsDefault = 10_000;
export const embeddingApiKeyEnvDefault = "ZAXY_EMBEDDING_API_KEY";

/** What an environment variable name looks like; an API key (`sk-…`, lowercase, dashes) does not. */
const envNamePattern = /^[A-Z_][A-Z0-9_]*$/;

export interface BundledEmbeddingSettings {
  provider: "bundled";
}

export interface ServerEmbeddingSettings {
  provider: ServerEmbeddingProvider;
  /** Base URL, without a trailing slash. */
  url: string;
  model: string;
  /** Requested and expected vector length; null: whatever the model returns (the same every time). */
  dimensions: number | null;
  timeoutMs: number;
  /** Name of the environment variable holding the API key (read at request time). */
  apiKeyEnv: string;
}

export type EmbeddingSettings = BundledEmbeddingSettings | ServerEmbeddingSettings;

function invalid(root: string, key: string, expected: string, message: string, hint?: string): never {
  throw inputError("invalid_config", `${configPath(root)}: ${message}`, { field: `config.json ${key}`, expected, ...(hint === undefined ? {} : { hint }) });
}

function positiveInteger(root: string, key: string, value: unknown): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1) {
    invalid(root, key, "integer >= 1", `${key} must be an integer >= 1, got ${JSON.stringify(value)}`);
  }
  return value;
}

/** `url` checked as a base URL; returns it without trailing slashes. */
function baseUrl(root: string, value: unknown): string {
  const key = embeddingConfigKeys.url;
  const expected = "http(s)://HOST[:PORT][/PATH]";
  if (typeof value !== "string") invalid(root, key, expected, `${key} must be a URL such as "http://127.0.0.1:11434", got ${JSON.stringify(value)}`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return invalid(root, key, expected, `${key} must be a URL such as "http://127.0.0.1:11434", got ${JSON.stringify(value)}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    invalid(root, key, expected, `${key} must be an http:// or https:// URL, got one with ${JSON.stringify(url.protocol)}`);
  }
  // Credentials belong in the environment (embedding.api_key_env), not in a plain file; the value is
  // not quoted back, since quoting it would print them.
  if (url.username !== "" || url.password !== "" || url.search !== "" || url.hash !== "") {
    invalid(root, key, expected, `${key} must be a base URL without user name, password, query or fragment (the value is not shown, in case it holds a credential)`,
      `put the API key in the environment variable embedding.api_key_env names (default ${embeddingApiKeyEnvDefault})`);
  }
  return `${url.origin}${url.pathname}`.replace(/\/+$/, "");
}

/**
 * The root's embedding settings (see the module comment). Every key is checked whatever the
 * provider, so `config set` refuses a bad value at once rather than when the provider changes.
 */
export function readEmbeddingSettings(root: string): EmbeddingSettings {
  const object = readConfigObject(root) ?? {};
  const keys = embeddingConfigKeys;
  const provider = object[keys.provider] ?? "bundled";
  if (typeof provider !== "string" || !(embeddingProviders as readonly string[]).includes(provider)) {
    invalid(root, keys.provider, embeddingProviders.join("|"), `${keys.provider} must be one of ${embeddingProviders.join(", ")}, got ${JSON.stringify(provider)}`);
  }
  const url = object[keys.url] === undefined ? null : baseUrl(root, object[keys.url]);
  const model = object[keys.model] ?? null;
  if (model !== null && (typeof model !== "string" || model.trim() === "")) {
    invalid(root, keys.model, "a model name", `${keys.model} must be a non-empty model name such as "nomic-embed-text", got ${JSON.stringify(model)}`);
  }
  const dimensions = object[keys.dimensions] === undefined ? null : positiveInteger(root, keys.dimensions, object[keys.dimensions]);
  const timeoutMs = positiveInteger(root, keys.timeoutMs, object[keys.timeoutMs] ?? embeddingTimeoutMsDefault);
  const apiKeyEnv = object[keys.apiKeyEnv] ?? embeddingApiKeyEnvDefault;
  if (typeof apiKeyEnv !== "string" || !envNamePattern.test(apiKeyEnv)) {
    invalid(root, keys.apiKeyEnv, "an environment variable name, A-Z 0-9 _",
      `${keys.apiKeyEnv} must be the name of an environment variable (A-Z, 0-9 and _, such as ${embeddingApiKeyEnvDefault}), not the key itself (the value is not shown, in case it is one)`,
      "export the key in that variable where zaxy runs; config.json names only the variable");
  }
  if (provider === "bundled") return { provider };
  const missing = [url === null ? keys.url : null, model === null ? keys.model : null].filter((key) => key !== null);
  if (url === null || model === null) {
    invalid(root, keys.provider, `${keys.url} and ${keys.model} set`,
      `${keys.provider} ${JSON.stringify(provider)} needs ${missing.join(" and ")}, which ${missing.length === 1 ? "is" : "are"} not set`,
      `set ${missing.join(" and ")} first (zaxy config set ${missing[0]} ...), then ${keys.provider}`);
  }
  return { provider: provider as ServerEmbeddingProvider, url, model: model as string, dimensions, timeoutMs, apiKeyEnv: apiKeyEnv as string };
}

/** Whether `key` looks like a place for a secret (`embedding.api_key`), so an error can say where keys go. */
export function isEmbeddingSecretKey(key: string): boolean {
  return key.startsWith("embedding.") && /key|token|secret|password/i.test(key) && key !== embeddingConfigKeys.apiKeyEnv;
}

/**
 * The id a receipt names for `settings`' model: the bundled model's, or `<provider>:<model>` with
 * `:<dimensions>` when set (a server's model has no weights zaxy can hash).
 */
export function embeddingModelId(settings: EmbeddingSettings): string {
  if (settings.provider === "bundled") return semanticModelId;
  return `${settings.provider}:${settings.model}${settings.dimensions === null ? "" : `:${settings.dimensions}`}`;
}
