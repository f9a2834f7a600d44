/**
 * JSON text for output documents that mix plain JS data with lossless values (`Map` objects in
 * insertion order, `JsonNumber`s as Python would print them). Non-ASCII stays raw UTF-8.
 */
import { JsonNumber, writeJsonNumber, writeJsonString } from "./json.ts";

function write(value: unknown, parts: string[], depth: number): void {
  if (depth > 1100) throw new RangeError("output nests too deeply");
  if (value === null || value === undefined) {
    parts.push("null");
  } else if (typeof value === "string") {
    parts.push(writeJsonString(value, false));
  } else if (typeof value === "number") {
    parts.push(Number.isFinite(value) ? String(value) : "null");
  } else if (typeof value === "boolean") {
    parts.push(value ? "true" : "false");
  } else if (typeof value === "bigint") {
    parts.push(value.toString());
  } else if (value instanceof JsonNumber) {
    parts.push(writeJsonNumber(value));
  } else if (Array.isArray(value)) {
    parts.push("[");
    value.forEach((item, i) => {
      if (i > 0) parts.push(",");
      write(item, parts, depth + 1);
    });
    parts.push("]");
  } else if (value instanceof Map) {
    parts.push("{");
    let first = true;
    for (const [k, v] of value) {
      if (!first) parts.push(",");
      first = false;
      parts.push(writeJsonString(String(k), false), ":");
      write(v, parts, depth + 1);
    }
    parts.push("}");
  } else if (typeof value === "object") {
    parts.push("{");
    let first = true;
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      if (v === undefined) continue;
      if (!first) parts.push(",");
      first = false;
      parts.push(writeJsonString(k, false), ":");
      write(v, parts, depth + 1);
    }
    parts.push("}");
  } else {
    parts.push("null");
  }
}

/**
 * @example
 * displayJson({ payload: new Map([["n", new JsonNumber("5.0", true)]]) }) // '{"payload":{"n":5.0}}'
 */
export function displayJson(value: unknown): string {
  const parts: string[] = [];
  write(value, parts, 0);
  return parts.join("");
}
