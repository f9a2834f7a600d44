/**
 * What long library operations report their progress to. The CLI's implementation
 * (`src/cli/progress.ts`) draws it on a terminal; a library caller may pass nothing.
 */
export interface ProgressSink {
  /** Starts a phase (its rate and ETA start over); `total` in `unit`s draws a bar and an ETA. */
  phase(label: string, total?: number, unit?: ProgressUnit): void;
  /** Work done in the current phase, in its unit; `total` may be given (or corrected) here. */
  update(done: number, total?: number): void;
}

/** `bytes` are shown as kB/MB/GB; any other unit as a count followed by the unit's name. */
export type ProgressUnit = "bytes" | "events" | "rows" | "vectors" | "memories" | "records" | "runs" | "steps";
