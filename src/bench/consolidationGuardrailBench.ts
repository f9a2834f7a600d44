/**
 * The consolidation guardrail lane (reference §2.11, alpha.2): copy the fixture session to a
 * temporary root, run `propose-from-log` on it (twice: the second run must create nothing),
 * read the candidates back from the log bytes, and score each case against the produced
 * candidate that fits it best (type match, source-event fidelity, authority boundary, review
 * gate). The fixture's log is never written.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { toJs } from "../canonical/mod.ts";
import { candidateCreatedType } from "../events/consolidationEvents.ts";
import { evaluateGuardrail, type GuardrailCase, type GuardrailRow, type GuardrailSummary, summarizeGuardrail, validateGuardrailCase } from "./consolidationGuardrailScore.ts";
import { proposeFromLog, sessionEvents } from "../consolidation/operations.ts";
import { inputError } from "../errors.ts";
import { type BenchMachine, benchMachine, round } from "./measure.ts";

export const defaultGuardrailFixtureDir = path.join("fixtures", "consolidation");

export interface GuardrailBenchOptions {
  /** Holds `cases.json` and `<session>.jsonl`. */
  fixtureDir: string;
}

export interface GuardrailBenchResult {
  machine: BenchMachine;
  fixture: { dir: string; session_id: string; events: number; window_size: number; case_count: number };
  propose: {
    segment_count: number;
    candidate_count: number;
    rerun_candidate_count: number;
    rerun_skipped_existing_count: number;
    elapsed_ms: number;
  };
  rows: GuardrailRow[];
  summary: GuardrailSummary;
}

interface CasesFile {
  session_id: string;
  window_size: number;
  cases: GuardrailCase[];
}

function readCases(fixtureDir: string): CasesFile {
  const file = path.join(fixtureDir, "cases.json");
  if (!fs.existsSync(file)) {
    throw inputError("missing_fixture", `No guardrail fixture at ${file}`, {
      field: "--fixture",
      hint: "run from the repository root, or pass --fixture DIR (a directory with cases.json and the session log)",
    });
  }
  const doc = JSON.parse(fs.readFileSync(file, "utf8")) as Partial<CasesFile>;
  if (typeof doc.session_id !== "string" || typeof doc.window_size !== "number" || !Array.isArray(doc.cases)) {
    throw inputError("invalid_guardrail_case", `${file} must hold {session_id, window_size, cases[]}`, { field: "--fixture" });
  }
  return { session_id: doc.session_id, window_size: doc.window_size, cases: doc.cases.map(validateGuardrailCase) };
}

/** The best-scoring row for a case over every produced candidate (a row of zeros when none). */
function bestRow(guardrailCase: GuardrailCase, candidates: { [key: string]: unknown }[]): GuardrailRow {
  let best = evaluateGuardrail(guardrailCase, {});
  for (const candidate of candidates) {
    const row = evaluateGuardrail(guardrailCase, candidate);
    if (row.score > best.score) best = row;
  }
  return best;
}

export async function runConsolidationGuardrailBench(options: GuardrailBenchOptions): Promise<GuardrailBenchResult> {
  const fixture = readCases(options.fixtureDir);
  const source = path.join(options.fixtureDir, `${fixture.session_id}.jsonl`);
  if (!fs.existsSync(source)) throw inputError("missing_fixture", `No fixture log at ${source}`, { field: "--fixture" });
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "zaxy-guardrail-"));
  try {
    fs.copyFileSync(source, path.join(root, `${fixture.session_id}.jsonl`));
    const fixtureEvents = (await sessionEvents(root, fixture.session_id)).length;
    const started = performance.now();
    const first = await proposeFromLog(root, fixture.session_id, { windowSize: fixture.window_size });
    const elapsedMs = performance.now() - started;
    const rerun = await proposeFromLog(root, fixture.session_id, { windowSize: fixture.window_size });
    // Score what the log holds, payloads exactly as written.
    const candidates = (await sessionEvents(root, fixture.session_id))
      .filter((event) => event.type === candidateCreatedType)
      .map((event) => toJs(event.payload) as { [key: string]: unknown });
    const rows = fixture.cases.map((guardrailCase) => bestRow(guardrailCase, candidates));
    return {
      machine: benchMachine(),
      fixture: { dir: options.fixtureDir, session_id: fixture.session_id, events: fixtureEvents, window_size: fixture.window_size, case_count: fixture.cases.length },
      propose: {
        segment_count: first.segment_count as number,
        candidate_count: first.candidate_count as number,
        rerun_candidate_count: rerun.candidate_count as number,
        rerun_skipped_existing_count: rerun.skipped_existing_count as number,
        elapsed_ms: round(elapsedMs),
      },
      rows,
      summary: summarizeGuardrail(rows),
    };
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}
