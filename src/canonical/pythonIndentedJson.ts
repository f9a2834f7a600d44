/**
 * Python's `json.dumps(obj, indent=2, sort_keys=True) + "\n"`, the text of a compaction
 * projection artifact (retrieval/projectionArtifact.ts): ensure_ascii, `", "`-free item separator
 * `","` at line ends, `": "` between key and value, Python float repr, `[]`/`{}` when empty.
 * Python writes and reads the same files, so these bytes must never change.
 */
import { compareCodePoints, JsonNumber, type JsonValue, writeJsonNumber, writeJsonString } from "./json.ts";
import { jsonDepthMax } from "../limits.ts";

function write(value: JsonValue, depth: number, parts: string[]): void {
  if (value === null) parts.push("null");
  else if (value === true) parts.push("true");
  else if (value === false) parts.push("false");
  else if (typeof value === "string") parts.push(writeJsonString(value, true));
  else if (value instanceof JsonNumber) parts.push(writeJsonNumber(value));
  else {
    if (depth >= jsonDepthMax) throw new RangeError(`JSON nests deeper than ${jsonDepthMax} levels`);
    const inner = "\n" + "  ".repeat(depth + 1);
    const outer = "\n" + "  ".repeat(depth);
    if (Array.isArray(value)) {
      if (value.length === 0) {
        parts.push("[]");
        return;
      }
      parts.push("[");
      value.forEach((item, i) => {
        parts.push(i === 0 ? inner : "," + inner);
        write(item, depth + 1, parts);
      });
      parts.push(outer, "]");
    } else {
      if (value.size === 0) {
        parts.push("{}");
        return;
      }
      parts.push("{");
      [...value.keys()].sort(compareCodePoints).forEach((key, i) => {
        parts.push(i === 0 ? inner : "," + inner, writeJsonString(key, true), ": ");
        write(value.get(key) as JsonValue, depth + 1, parts);
      });
      parts.push(outer, "}");
    }
  }
}

/**
 * @example
 * pythonIndentedJson(parseJson('{"b":[1,2.50],"a":{}}'))
 * // '{\n  "a": {},\n  "b": [\n    1,\n    2.5\n  ]\n}\n'
 */
export function pythonIndentedJson(value: JsonValue): string {
  const parts: string[] = [];
  write(value, 0, parts);
  return parts.join("") + "\n";
}
