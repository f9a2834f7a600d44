/**
 * Synthetic Eventloom logs for benchmarks: realistic agent events (tool calls, commands, file
 * edits, findings) of about 700 bytes each, sealed by the same code `zaxy memory append` uses.
 * `python-legacy` is the line shape the Python implementation writes (legacy envelope, raw
 * UTF-8, payload keys in insertion order); `zaxy-v1` is what zaxy writes to a new log.
 */
import * as fs from "node:fs";
import { type JsonObject, type JsonValue, JsonNumber } from "../canonical/mod.ts";
import { type SealedLine, sealLegacy, sealV1, type UnsealedEvent } from "../eventloom/envelope.ts";
import { formatTimestamp } from "../eventloom/timestamp.ts";
import { seededRandom } from "./measure.ts";

export type SyntheticStyle = "python-legacy" | "zaxy-v1";

const words = [
  "auth", "cache", "deploy", "retry", "token-bucket", "schema", "migration", "index", "latency", "queue",
  "worker", "release", "rollback", "fixture", "snapshot", "parser", "handler", "session", "résumé", "naïve",
  "timeout", "gateway", "replica", "checksum", "ledger", "backoff", "cursor", "shard", "vector", "graph",
];
const tools = ["read_file", "run_tests", "search_code", "apply_patch", "list_dir", "http_get"];
const types = ["tool.call.completed", "command.completed", "file.edit.applied", "coordination.finding.reported", "task.updated"];

function sentence(rand: () => number, count: number): string {
  const out: string[] = [];
  for (let i = 0; i < count; i++) out.push(words[Math.floor(rand() * words.length)]);
  return out.join(" ");
}

function payloadFor(rand: () => number, seq: number, type: string): JsonObject {
  const entries: Array<[string, JsonValue]> = [
    ["task_id", `task-${Math.floor(seq / 10)}`],
    ["summary", `${sentence(rand, 12)}.`],
  ];
  if (type === "tool.call.completed") {
    entries.push(["tool_name", tools[seq % tools.length]]);
    entries.push(["arguments", new Map<string, JsonValue>([["path", `src/${sentence(rand, 2).replace(/ /g, "/")}.ts`], ["limit", JsonNumber.int(50 + (seq % 50))]])]);
    entries.push(["result_summary", sentence(rand, 18)]);
  } else if (type === "command.completed") {
    entries.push(["command", `npm test -- --grep "${sentence(rand, 2)}"`]);
    entries.push(["exit_code", JsonNumber.int(seq % 7 === 0 ? 1 : 0)]);
    entries.push(["stdout_tail", sentence(rand, 20)]);
  } else if (type === "file.edit.applied") {
    entries.push(["path", `src/${sentence(rand, 1)}/${sentence(rand, 1)}.ts`]);
    entries.push(["operation", "replace"]);
    entries.push(["line_count", JsonNumber.int(1 + (seq % 40))]);
    entries.push(["diff_summary", sentence(rand, 16)]);
  } else {
    entries.push(["claim_key", `claim.${sentence(rand, 1)}`]);
    entries.push(["status", seq % 3 === 0 ? "accepted" : "pending"]);
    entries.push(["rationale", null]);
  }
  entries.push(["duration_ms", JsonNumber.int(Math.floor(rand() * 5000))]);
  entries.push(["confidence", JsonNumber.float(Math.round(rand() * 1000) / 1000)]);
  entries.push([
    "evidence",
    [
      new Map<string, JsonValue>([
        ["kind", "command"],
        ["reference", `pytest tests/test_${sentence(rand, 1).replace(/[^a-z]/g, "")}.py -q`],
        ["summary", null],
        ["stale", false],
        ["score", JsonNumber.float(0.5 + Math.round(rand() * 500) / 1000)],
      ]),
    ],
  ]);
  return new Map(entries);
}

export interface SyntheticLogOptions {
  path: string;
  events: number;
  style: SyntheticStyle;
  seed?: number;
  onProgress?: (done: number, total: number) => void;
}

/** Writes a sealed synthetic log; returns its size in bytes. */
export function writeSyntheticLog(options: SyntheticLogOptions): number {
  const rand = seededRandom(options.seed ?? 1234);
  const fd = fs.openSync(options.path, "w");
  const encoder = new TextEncoder();
  let prevHash: string | null = null;
  let pending: string[] = [];
  let pendingChars = 0;
  let bytes = 0;
  const baseMicros = Date.UTC(2026, 6, 1) * 1000;
  const flush = (): void => {
    const chunk = encoder.encode(pending.join(""));
    fs.writeSync(fd, chunk);
    bytes += chunk.length;
    pending = [];
    pendingChars = 0;
  };
  try {
    for (let seq = 1; seq <= options.events; seq++) {
      const type = types[seq % types.length];
      const event: UnsealedEvent = {
        seq,
        timestamp: formatTimestamp(baseMicros + seq * 1_000_003),
        type,
        actor: `agent-${seq % 4}`,
        thread: "bench",
        payload: payloadFor(rand, seq, type),
        security: { sensitivity: "public" as const, redacted_paths: [] },
        prevHash,
      };
      const sealed: SealedLine = options.style === "zaxy-v1" ? sealV1(event) : sealLegacy(event);
      prevHash = sealed.hash;
      pending.push(sealed.line, "\n");
      pendingChars += sealed.line.length + 1;
      if (pendingChars > 4 << 20) {
        flush();
        options.onProgress?.(seq, options.events);
      }
    }
    flush();
  } finally {
    fs.closeSync(fd);
  }
  return bytes;
}
