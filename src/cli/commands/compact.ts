/**
 * `zaxy compact LOG [--audit | --projection-output PATH | rewrite]`: geometry-aware compaction
 * (DESIGN §9). This file parses and validates every flag (bad input exits 2 naming the flag,
 * before anything is read or written) and dispatches to one mode:
 *   --audit                non-destructive audit (src/compaction/audit.ts); exit 0 safe, 1 unsafe
 *   --projection-output    writes a *.compaction.json artifact; the log is untouched
 *   (neither)              rewrite mode, the only history-changing operation
 * Kuzu is never loaded here: the audit runs in git hooks, where cold start matters.
 */
import { defaultClusterThreshold } from "../../compaction/clusterThreshold.ts";
import { defineCommand } from "../command.ts";

export const compactCommand = defineCommand({
  name: "compact",
  summary: "Compaction: audit a log (--audit), write a projection artifact, or rewrite it",
  description:
    "--audit: verifies LOG, clusters its events by cosine distance of their hash embeddings\n" +
    "(deterministic leader clustering, --cluster-threshold, default " + defaultClusterThreshold + "; --whole-log = one\n" +
    "cluster) and checks that one representative per cluster (--strategy medoid) or up to\n" +
    "--max-records exemplars (--strategy exemplar) still carry every durable identity, and that\n" +
    "every document/transcript event cites its source. Exit 0 safe, 1 unsafe, 2 bad input.\n" +
    "Never writes anything. See 'zaxy help compaction' (docs/compaction.md).\n" +
    "Neither --audit nor --projection-output: rewrite mode. Verifies LOG (a broken chain exits 1,\n" +
    "untouched), rewrites it losslessly to LOG.compact.tmp under the append lock, fsyncs and\n" +
    "renames it over LOG (or to --output), snapshots the last --snapshot-every events when the log\n" +
    "has at least that many, then appends compaction.completed.\n" +
    "--projection-output PATH: PATH must end in .compaction.json and its directory must exist; it is\n" +
    "never the log, another *.jsonl log or config.json (symlinks and hard links included); an\n" +
    "existing file there must be an artifact of LOG, or --force. See 'zaxy help compaction-projections'.",
  options: {
    audit: { type: "boolean", description: "Audit only: report whether compaction would lose identities (exit 1 when unsafe)" },
    ndjson: { type: "boolean", description: "With --audit: one line per cluster ({kind: cluster}), then the report ({kind: report})" },
    "cluster-threshold": { type: "string", valueName: "T", description: `Cosine distance a cluster member may be from its leader, in (0, 1) (default ${defaultClusterThreshold})` },
    "whole-log": { type: "boolean", description: "Treat the whole log as one cluster (as the Python audit does)" },
    "projection-output": {
      type: "string",
      valueName: "PATH",
      description: "Write a *.compaction.json projection artifact (existing directory; never a log or config.json); the log is untouched",
    },
    force: { type: "boolean", description: "With --projection-output: replace an existing file that is not an artifact of LOG" },
    strategy: { type: "string", valueName: "medoid|exemplar", description: "Representatives: one medoid per cluster, or farthest-point exemplars (default medoid)" },
    "max-records": { type: "string", valueName: "N", description: "Exemplars kept per cluster / records in a projection, >= 1 (default 5)" },
    purpose: { type: "string", valueName: "PROFILE", description: "Purpose profile for a projection (general, coding, security, coordinate, ...)" },
    output: { type: "string", valueName: "PATH", description: "Rewrite mode: write the compacted log here instead of in place" },
    "snapshot-every": { type: "string", valueName: "N", description: "Rewrite mode: snapshot the last N events when the log has at least N (default 10000)" },
  },
  positionals: [{ name: "LOG", description: "Eventloom JSONL log (default: the session's log)" }],
  examples: [
    "zaxy compact .eventloom/default.jsonl --audit",
    "zaxy compact .eventloom/default.jsonl --snapshot-every 5000 --json",
    "zaxy compact .eventloom/default.jsonl --audit --json --strategy exemplar --max-records 8",
    "zaxy compact .eventloom/default.jsonl --audit --whole-log",
    "zaxy compact .eventloom/default.jsonl --projection-output .eventloom/projections/default.compaction.json --strategy exemplar --max-records 8",
  ],
  async run(ctx) {
    const { runCompact } = await import("./compactRun.ts");
    return await runCompact(ctx);
  },
});
