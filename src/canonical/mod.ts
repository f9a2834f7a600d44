/**
 * Canonical JSON compatible with Python's `json.dumps(obj, sort_keys=True, separators=(",", ":"))`,
 * over a lossless value model, plus a WebAssembly kernel that canonicalises whole JSONL buffers.
 *
 * @example
 * import { canonicalJson, parseJson } from "./mod.ts";
 * canonicalJson(parseJson('{"b":"café","a":1e-7}')); // '{"a":1e-07,"b":"caf\\u00e9"}'
 */
export * from "./json.ts";
export * from "./displayJson.ts";
export * from "./pythonRound.ts";
export * from "./nonFinite.ts";
export * from "./pythonText.ts";
export * from "./pythonIndentedJson.ts";
export * from "./plainJson.ts";
export * from "./detachedString.ts";
