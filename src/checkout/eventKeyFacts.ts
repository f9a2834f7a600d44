/**
 * One line of an event's key facts, for the `# Recent Events` section when its payload has none
 * of the text fields Python's assembly shows (title, summary, content, text, decision, task):
 * `command.completed` shows the command and its outcome or exit code, `tool.call.completed` the
 * tool and its status, `file.edit.applied` the operation and the path, any other event of a known
 * type its first scalar payload fields, and an event of an unknown type its `message`. Only when
 * the payload has nothing to show is it `TYPE by ACTOR`.
 */
import { type JsonValue, JsonNumber, pythonNumberRepr } from "../canonical/mod.ts";
import type { EventRecord } from "../eventloom/envelope.ts";
import { extractorFor } from "../projection/extract/mod.ts";

/** The payload fields Python's `# Recent Events` line shows (promptAssembly.ts `eventTextKeys`). */
const pythonTextKeys = new Set(["title", "summary", "content", "text", "decision", "task"]);

/** Fields shown at most, and characters, for an event without a dedicated line. */
const genericFieldsMax = 4;
const genericCharsMax = 200;

function scalar(value: JsonValue | undefined): string | undefined {
  if (typeof value === "string") return value === "" ? undefined : value;
  if (typeof value === "boolean") return String(value);
  if (value instanceof JsonNumber) return pythonNumberRepr(value);
  return undefined;
}

const dedicated: Record<string, (get: (key: string) => string | undefined) => string | undefined> = {
  "command.completed": (get) => {
    const command = get("command");
    if (command === undefined) return undefined;
    const outcome = get("outcome");
    const exit = get("exit_code");
    const result = outcome !== undefined && exit !== undefined ? `${outcome} (exit ${exit})` : outcome ?? (exit !== undefined ? `exit ${exit}` : undefined);
    return result === undefined ? command : `${command} → ${result}`;
  },
  "tool.call.completed": (get) => {
    const tool = get("tool_name");
    if (tool === undefined) return undefined;
    const status = get("status");
    const summary = get("result_summary");
    return `${tool}${status === undefined ? "" : ` ${status}`}${summary === undefined ? "" : `: ${summary}`}`;
  },
  "file.edit.applied": (get) => {
    const file = get("path");
    if (file === undefined) return undefined;
    const summary = get("summary");
    return `${get("operation") ?? "modified"} ${file}${summary === undefined ? "" : `: ${summary}`}`;
  },
};

/** The key facts of `event`, or undefined when its payload has no scalar to show. */
export function eventKeyFacts(event: EventRecord): string | undefined {
  const get = (key: string) => scalar(event.payload.get(key));
  const line = dedicated[event.type]?.(get);
  if (line !== undefined) return line;
  // An unknown type is described by its message alone (else Python's `TYPE by ACTOR` line): its
  // other fields are nobody's vocabulary, and may hold what should not be repeated.
  if (extractorFor(event.type) === undefined) {
    return get("message");
  }
  const fields: string[] = [];
  for (const [key, value] of event.payload) {
    // Python's text fields, when falsy, show nothing there; they are not repeated here.
    if (pythonTextKeys.has(key)) continue;
    const text = scalar(value);
    if (text === undefined) continue;
    fields.push(`${key}=${text}`);
    if (fields.length === genericFieldsMax) break;
  }
  if (fields.length === 0) return undefined;
  const joined = fields.join(", ");
  return joined.length > genericCharsMax ? `${joined.slice(0, genericCharsMax - 1)}…` : joined;
}
