/**
 * A key given twice in one object of a tool call. `JSON.parse` keeps the last value silently, so
 * the transports ask the strict parser before a call reaches its tool: a receipts log must not
 * guess which of two payload values the agent meant (the CLI and ingest refuse the same input).
 */
import { JsonSyntaxError, parseJson } from "../canonical/json.ts";
import { jsonDepthMax } from "../limits.ts";

/** The first key repeated within one object of `text` (valid JSON), or null. */
export function repeatedKey(text: string): string | null {
  try {
    parseJson(text, jsonDepthMax, { duplicateKeys: "reject" });
    return null;
  } catch (error) {
    return error instanceof JsonSyntaxError && error.code === "duplicate_key" ? error.key ?? "" : null;
  }
}

/** The JSON-RPC error message for a call with a repeated key. */
export function repeatedKeyMessage(method: string, key: string): string {
  return `Invalid params for ${JSON.stringify(method)}: key ${JSON.stringify(key)} appears twice in one object; each key may appear once`;
}
