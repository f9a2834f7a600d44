/**
 * Payload redaction before sealing (Python `security.secure_payload`). Secrets never reach the
 * log: values under secret-looking keys, and string values that look like API keys or JWTs,
 * are replaced by "[REDACTED]" and their paths recorded in `security.redacted_paths`.
 */
import type { JsonObject, JsonValue } from "../canonical/mod.ts";

export const redactedValue = "[REDACTED]";

export interface SecurityBlock {
  sensitivity: "public" | "restricted";
  redacted_paths: string[];
}

// Python's (?i) folds case the Unicode way (the Kelvin sign matches "k", long s matches "s"):
// the `u` flag makes JS do the same.
const secretKeyPattern = /(api[_-]?key|authorization|bearer|cookie|credential|password|private[_-]?key|secret|token)/iu;

/** Metric keys that contain "token" but carry counts, not secrets. */
const tokenMetricKeys = new Set([
  "answer_at_5_per_1k_injected_tokens",
  "answer_at_5_per_1k_returned_tokens",
  "completion_tokens",
  "facts_per_1k_prompt_tokens",
  "mean_injected_tokens",
  "mean_returned_tokens",
  "prompt_tokens",
  "quality_per_1k_injected_tokens",
  "quality_per_1k_returned_tokens",
  "token_efficiency",
  "total_tokens",
]);

// Python's \b on str patterns is Unicode-aware (é and 日 are word characters); JS's \b is
// ASCII-only even with the `u` flag, so \b is spelled out over Unicode word characters.
const word = String.raw`[\p{L}\p{N}_]`;
const b = `(?:(?<=${word})(?!${word})|(?<!${word})(?=${word}))`;
const secretValuePatterns = [
  String.raw`sk-[A-Za-z0-9_-]{8,}`,
  String.raw`pypi-[A-Za-z0-9_-]{20,}`,
  String.raw`AKIA[0-9A-Z]{16}`,
  String.raw`[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}`,
].map((body) => new RegExp(`${b}${body}${b}`, "u"));

function isSecretKey(key: string): boolean {
  return secretKeyPattern.test(key) && !tokenMetricKeys.has(key.toLowerCase());
}

function isSecretValue(value: string): boolean {
  return secretValuePatterns.some((pattern) => pattern.test(value));
}

function childPath(parent: string, key: string): string {
  return parent === "" ? key : `${parent}.${key}`;
}

function redactValue(value: JsonValue, at: string, paths: string[]): JsonValue {
  if (typeof value === "string") {
    if (isSecretValue(value)) {
      paths.push(at === "" ? "$" : at);
      return redactedValue;
    }
    return value;
  }
  if (Array.isArray(value)) return value.map((item, index) => redactValue(item, `${at === "" ? "$" : at}[${index}]`, paths));
  if (value instanceof Map) return redactObject(value, at, paths);
  return value;
}

function redactObject(object: JsonObject, at: string, paths: string[]): JsonObject {
  const out: JsonObject = new Map();
  for (const [key, value] of object) {
    const keyPath = childPath(at, key);
    if (isSecretKey(key)) {
      paths.push(keyPath);
      out.set(key, redactedValue);
    } else {
      out.set(key, redactValue(value, keyPath, paths));
    }
  }
  return out;
}

/**
 * Returns a redacted copy of `payload` and its security block; the input is not changed.
 *
 * @example
 * securePayload(new Map([["api_key", "x"]])).security // {sensitivity: "restricted", redacted_paths: ["api_key"]}
 */
export function securePayload(payload: JsonObject): { payload: JsonObject; security: SecurityBlock } {
  const paths: string[] = [];
  const redacted = redactObject(payload, "", paths);
  return { payload: redacted, security: { sensitivity: paths.length > 0 ? "restricted" : "public", redacted_paths: paths } };
}
