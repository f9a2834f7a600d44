/**
 * `zaxy bench compaction-audit`: the audit end to end on a generated log. Each run is a fresh
 * `zaxy compact LOG --audit --json` process (what a git hook pays), timed wall-clock with the
 * child's peak RSS; the report's cluster figures come from the last run's JSON.
 *
 * The log is the synthetic agent session (syntheticLog.ts) with planted near-duplicate families
 * mixed in at seeded random positions, so clustering does real work and the figures say whether
 * the audit finds what it exists to find:
 * - unsafe families: documents identical but for their path and identity code (a medoid keeps
 *   one code and loses the others: the audit must report the family's cluster as losing
 *   identities);
 * - safe families: near-identical notes sharing one identity (one cluster, nothing lost).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { isJsonObject, type JsonObject, type JsonValue, JsonNumber, parseJsonBytes } from "../canonical/mod.ts";
import { sealV1 } from "../eventloom/envelope.ts";
import { readLogLines, recordFromLine } from "../eventloom/mod.ts";
import { formatTimestamp } from "../eventloom/timestamp.ts";
import { selfCommand, spawnMeasured } from "../platform/process.ts";
import { atMost, type BenchMachine, type BenchTarget, benchMachine, median, round, seededRandom } from "./measure.ts";
import { writeSyntheticLog } from "./syntheticLog.ts";

export const compactionAuditBenchDefaults = { events: 100_000, runs: 3 };
/** One planted family of each kind per this many events (at least one of each). */
export const eventsPerPlantedFamily = 2000;
/** Members per planted family: 3..6. */
const familySizeMin = 3;
const familySizeSpan = 4;
const familyWordCount = 24;

export interface PlantedFamily {
  kind: "unsafe" | "safe";
  /** Event seqs of the members, ascending. */
  seqs: number[];
}

export interface AuditBenchLog {
  events: number;
  bytes: number;
  families: PlantedFamily[];
}

/** A pseudo-word from the seeded stream: families get vocabularies of their own. */
function word(rand: () => number): string {
  const letters = "abcdefghijklmnopqrstuvwxyz";
  let out = "";
  const length = 4 + Math.floor(rand() * 6);
  for (let i = 0; i < length; i++) out += letters[Math.floor(rand() * letters.length)];
  return out;
}

interface PlantedEvent {
  type: string;
  payload: JsonObject;
}

function plantedEvents(rand: () => number, events: number, eventsPerFamily: number): { families: Array<{ kind: PlantedFamily["kind"]; members: PlantedEvent[] }> } {
  const perKind = Math.max(1, Math.floor(events / eventsPerFamily));
  const families: Array<{ kind: PlantedFamily["kind"]; members: PlantedEvent[] }> = [];
  let code = 1;
  for (let f = 0; f < perKind * 2; f++) {
    const kind = f % 2 === 0 ? "unsafe" : "safe";
    const size = familySizeMin + Math.floor(rand() * familySizeSpan);
    // Mixed case and a non-ASCII word: the audit's casefold and tokenising paths both run.
    const words = [...Array.from({ length: familyWordCount }, () => word(rand)), f % 3 === 0 ? "Straße" : "Cache"].join(" ");
    const topic = word(rand);
    const members: PlantedEvent[] = [];
    const sharedCode = `identity-code-${String(code++ % 10_000).padStart(4, "0")}`;
    for (let m = 0; m < size; m++) {
      if (kind === "unsafe") {
        const memberCode = `identity-code-${String(code++ % 10_000).padStart(4, "0")}`;
        members.push({
          type: "document.indexed",
          payload: new Map<string, JsonValue>([
            ["path", `docs/${topic}-${m + 1}.md`],
            ["start_line", JsonNumber.int(1)],
            ["end_line", JsonNumber.int(40)],
            ["content", `${words} ${memberCode}`],
          ]),
        });
      } else {
        members.push({ type: "note.added", payload: new Map<string, JsonValue>([["title", topic], ["content", `${words} ${sharedCode}`]]) });
      }
    }
    families.push({ kind, members });
  }
  return { families };
}

/**
 * Writes the bench log: `events` events, of which the planted families' members sit at seeded
 * random positions and the rest are the synthetic session's, re-sealed in order.
 */
export function writeAuditBenchLog(options: { path: string; events: number; seed?: number; eventsPerFamily?: number }): AuditBenchLog {
  const rand = seededRandom(options.seed ?? 4242);
  const { families } = plantedEvents(rand, options.events, options.eventsPerFamily ?? eventsPerPlantedFamily);
  const plantedCount = families.reduce((n, f) => n + f.members.length, 0);
  if (plantedCount >= options.events) throw new RangeError(`--events must exceed the ${plantedCount} planted events`);
  // Position (0-based) → planted event; collisions move to the next free position.
  const plantedAt = new Map<number, { family: number; member: number }>();
  families.forEach((family, f) => family.members.forEach((_, m) => {
    let at = Math.floor(rand() * options.events);
    while (plantedAt.has(at)) at = (at + 1) % options.events;
    plantedAt.set(at, { family: f, member: m });
  }));
  const basePath = `${options.path}.base`;
  writeSyntheticLog({ path: basePath, events: options.events - plantedCount, style: "zaxy-v1" });
  const seqsOf: number[][] = families.map(() => []);
  const fd = fs.openSync(options.path, "w");
  const encoder = new TextEncoder();
  const baseMicros = Date.UTC(2026, 6, 1) * 1000;
  let prevHash: string | null = null;
  let bytes = 0;
  let pending: string[] = [];
  const writeEvent = (seq: number, type: string, actor: string, payload: JsonObject): void => {
    const sealed = sealV1({
      seq, timestamp: formatTimestamp(baseMicros + seq * 1_000_003), type, actor, thread: "bench", payload,
      security: { sensitivity: "public", redacted_paths: [] }, prevHash,
    });
    prevHash = sealed.hash;
    pending.push(sealed.line, "\n");
    if (pending.length >= 8192) {
      const chunk = encoder.encode(pending.join(""));
      fs.writeSync(fd, chunk);
      bytes += chunk.length;
      pending = [];
    }
  };
  try {
    let seq = 0;
    const plantUpTo = (): void => {
      for (let planted = plantedAt.get(seq); planted !== undefined; planted = plantedAt.get(seq)) {
        seq++;
        const member = families[planted.family].members[planted.member];
        writeEvent(seq, member.type, "agent-docs", member.payload);
        seqsOf[planted.family].push(seq);
      }
    };
    for (const { bytes: line, position } of readLogLines(basePath)) {
      plantUpTo();
      const parsed = parseJsonBytes(line);
      if (!isJsonObject(parsed)) continue;
      const record = recordFromLine(parsed, position);
      seq++;
      writeEvent(seq, record.type, record.actor, record.payload);
    }
    plantUpTo();
    const chunk = encoder.encode(pending.join(""));
    fs.writeSync(fd, chunk);
    bytes += chunk.length;
  } finally {
    fs.closeSync(fd);
    fs.rmSync(basePath, { force: true });
  }
  return {
    events: options.events,
    bytes,
    families: families.map((family, f) => ({ kind: family.kind, seqs: seqsOf[f].sort((a, b) => a - b) })),
  };
}

interface AuditJson {
  cluster_count: number;
  singleton_cluster_count: number;
  identity_recall: number;
  nearest_neighbour_preservation: number;
  clusters: Array<{ cluster_id: number; event_seqs: number[]; missing_identities: string[] }>;
}

/** How many planted families of each kind the audit found as one cluster, unsafe or safe as planted. */
export function plantedFamiliesFound(report: AuditJson, families: PlantedFamily[]): { unsafe: number; safe: number } {
  const clusterOfSeq = new Map<number, AuditJson["clusters"][number]>();
  for (const cluster of report.clusters) for (const seq of cluster.event_seqs) clusterOfSeq.set(seq, cluster);
  const found = { unsafe: 0, safe: 0 };
  for (const family of families) {
    const cluster = clusterOfSeq.get(family.seqs[0]);
    if (cluster === undefined || !family.seqs.every((seq) => clusterOfSeq.get(seq) === cluster)) continue;
    if (family.kind === "unsafe" && cluster.missing_identities.length > 0) found.unsafe++;
    if (family.kind === "safe" && cluster.missing_identities.length === 0) found.safe++;
  }
  return found;
}

export interface CompactionAuditBenchResult {
  machine: BenchMachine;
  /** 1-minute load average after the last run. */
  load_average_1m_after: number;
  command: string[];
  events: number;
  log_bytes: number;
  runs_s: number[];
  median_s: number;
  events_per_s: number;
  peak_rss_mib: number | null;
  exit_code: number;
  cluster_count: number;
  singleton_cluster_count: number;
  multi_event_cluster_count: number;
  unsafe_cluster_count: number;
  planted_unsafe_families: number;
  planted_unsafe_families_found: number;
  planted_safe_families: number;
  planted_safe_families_found: number;
  identity_recall: number;
  nearest_neighbour_preservation: number;
  targets: Record<string, BenchTarget>;
}

export interface CompactionAuditBenchOptions {
  events: number;
  runs: number;
  progress?: (message: string) => void;
}

export function runCompactionAuditBench(options: CompactionAuditBenchOptions): CompactionAuditBenchResult {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "zaxy-bench-compaction-audit-"));
  try {
    const log = path.join(dir, "bench.jsonl");
    options.progress?.(`writing ${options.events} events`);
    const written = writeAuditBenchLog({ path: log, events: options.events });
    const machine = benchMachine();
    const command = [...selfCommand(), "compact", log, "--audit", "--json"];
    const runs: number[] = [];
    let peak: number | null = null;
    let last = { exitCode: -1, stdout: "" };
    for (let i = 0; i < options.runs; i++) {
      options.progress?.(`audit run ${i + 1}/${options.runs}`);
      const run = spawnMeasured(command);
      if (run.exitCode !== 0 && run.exitCode !== 1) throw new Error(`zaxy compact --audit exited ${run.exitCode}: ${run.stderr.trim()}`);
      runs.push(run.wallMs / 1000);
      if (run.maxRssBytes !== null) peak = Math.max(peak ?? 0, run.maxRssBytes);
      last = run;
    }
    const loadAfter = round(os.loadavg()[0], 2);
    const report = JSON.parse(last.stdout) as AuditJson;
    const found = plantedFamiliesFound(report, written.families);
    const medianS = median(runs);
    const peakMib = peak === null ? null : round(peak / 2 ** 20, 0);
    return {
      machine,
      load_average_1m_after: loadAfter,
      command: ["zaxy", "compact", "LOG", "--audit", "--json"],
      events: options.events,
      log_bytes: written.bytes,
      runs_s: runs.map((s) => round(s, 2)),
      median_s: round(medianS, 2),
      events_per_s: Math.round(options.events / medianS),
      peak_rss_mib: peakMib,
      exit_code: last.exitCode,
      cluster_count: report.cluster_count,
      singleton_cluster_count: report.singleton_cluster_count,
      multi_event_cluster_count: report.clusters.length,
      unsafe_cluster_count: report.clusters.filter((c) => c.missing_identities.length > 0).length,
      planted_unsafe_families: written.families.filter((f) => f.kind === "unsafe").length,
      planted_unsafe_families_found: found.unsafe,
      planted_safe_families: written.families.filter((f) => f.kind === "safe").length,
      planted_safe_families_found: found.safe,
      identity_recall: report.identity_recall,
      nearest_neighbour_preservation: report.nearest_neighbour_preservation,
      targets: {
        median_s: atMost(20, round(medianS, 2), "<= 20 s"),
        peak_rss_mib: atMost(512, peakMib, "<= 512 MiB"),
      },
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
