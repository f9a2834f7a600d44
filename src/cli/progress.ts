/**
 * The one progress display every long operation uses (verify, reproject, compact, the
 * consolidation trigger, store import/export, bench): a line on stderr redrawn in place, with a
 * bar, the share done, the rate and an ETA when the phase's total is known.
 *
 * It draws only when stderr is a terminal and neither `--json` nor `--quiet` was given, so pipes,
 * log files and machine readers never see a carriage return. The line is cleared when the work
 * ends (or fails), so what follows starts on a clean line.
 */
import { inputError, type ZaxyError } from "../errors.ts";
import type { ProgressSink, ProgressUnit } from "../progress.ts";
import type { CommandContext, CommandIo } from "./command.ts";

export type { ProgressSink, ProgressUnit };

export interface Progress extends ProgressSink {
  /** Clears the line; the display can be started again with `phase`. */
  done(): void;
}

/** Redraws are at most this often (except the first draw of a phase and its completion). */
export const progressRedrawMs = 100;
/** Nothing is drawn in an operation's first this-many ms, so quick work never flashes a line. */
export const progressQuietStartMs = 250;
/** The largest `ZAXY_PROGRESS_DELAY_MS` taken (an hour). */
const progressDelayMaxMs = 3_600_000;

/**
 * `ZAXY_PROGRESS_DELAY_MS` as an error when it is not a whole number of milliseconds up to an
 * hour (checked before any command runs, so a bad value writes nothing), else undefined.
 */
export function progressDelayError(env: Record<string, string | undefined>): ZaxyError | undefined {
  const raw = env.ZAXY_PROGRESS_DELAY_MS;
  if (raw === undefined || raw === "" || (/^[0-9]{1,7}$/.test(raw) && Number(raw) <= progressDelayMaxMs)) return undefined;
  return inputError("invalid_option", `ZAXY_PROGRESS_DELAY_MS must be a whole number of milliseconds from 0 to ${progressDelayMaxMs}, got ${JSON.stringify(raw)}`, {
    field: "ZAXY_PROGRESS_DELAY_MS",
  });
}

/** Milliseconds before a progress line first appears: `ZAXY_PROGRESS_DELAY_MS`, else `progressQuietStartMs`. */
export function progressDelayMs(env: Record<string, string | undefined>): number {
  const raw = env.ZAXY_PROGRESS_DELAY_MS;
  return raw === undefined || raw === "" || progressDelayError(env) !== undefined ? progressQuietStartMs : Number(raw);
}

/** No ETA before this much of the phase has passed: early rates are noise. */
const etaAfterMs = 500;
const barWidth = 20;

const silent: Progress = { phase() {}, update() {}, done() {} };

/** Whether a command's progress is drawn: stderr is a terminal, not `--json`, not `--quiet`. */
export function progressEnabled(io: Pick<CommandIo, "stderrIsTTY">, flags: { json: boolean; quiet?: boolean }): boolean {
  return io.stderrIsTTY && !flags.json && flags.quiet !== true;
}

export interface ProgressState {
  title: string;
  label: string;
  done: number;
  total?: number;
  unit?: ProgressUnit;
  phaseStartedMs: number;
}

function formatAmount(value: number, unit: ProgressUnit | undefined): string {
  if (unit === "bytes") {
    if (value >= 1e9) return `${(value / 1e9).toFixed(2)} GB`;
    if (value >= 1e6) return `${(value / 1e6).toFixed(1)} MB`;
    return `${(value / 1e3).toFixed(0)} kB`;
  }
  return Math.round(value).toLocaleString("en-US");
}

function formatRate(perSecond: number, unit: ProgressUnit | undefined): string {
  if (unit === "bytes") return `${formatAmount(perSecond, unit)}/s`;
  const name = unit ?? "items";
  if (perSecond >= 1e6) return `${(perSecond / 1e6).toFixed(1)}M ${name}/s`;
  if (perSecond >= 1e4) return `${(perSecond / 1e3).toFixed(0)}k ${name}/s`;
  return `${perSecond.toFixed(perSecond >= 100 ? 0 : 1)} ${name}/s`;
}

/** `m:ss`, or `h:mm:ss` from an hour. */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = String(s % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${rest}` : `${m}:${rest}`;
}

/**
 * The line for a state at `nowMs`, without the carriage return, e.g.
 * `reproject s1: vectors [#########-----------] 45.0% 45,000/100,000 vectors 12k vectors/s ETA 0:05`.
 */
export function renderProgressLine(state: ProgressState, nowMs: number): string {
  const parts = [`${state.title}: ${state.label}`];
  const elapsedMs = nowMs - state.phaseStartedMs;
  const rate = elapsedMs > 0 ? (state.done / elapsedMs) * 1000 : 0;
  if (state.total !== undefined && state.total > 0) {
    const share = Math.min(1, Math.max(0, state.done / state.total));
    const filled = Math.round(share * barWidth);
    parts.push(`[${"#".repeat(filled)}${"-".repeat(barWidth - filled)}]`, `${(share * 100).toFixed(1)}%`);
    if (state.unit !== undefined) {
      const suffix = state.unit === "bytes" ? "" : ` ${state.unit}`;
      parts.push(`${formatAmount(state.done, state.unit)}/${formatAmount(state.total, state.unit)}${suffix}`);
    }
    if (state.unit !== undefined && rate > 0) parts.push(formatRate(rate, state.unit));
    if (elapsedMs >= etaAfterMs && rate > 0 && share < 1) parts.push(`ETA ${formatDuration((state.total - state.done) / rate)}`);
  } else {
    if (state.done > 0 && state.unit !== undefined) {
      parts.push(`${formatAmount(state.done, state.unit)}${state.unit === "bytes" ? "" : ` ${state.unit}`}`);
      if (rate > 0) parts.push(formatRate(rate, state.unit));
    }
    parts.push(formatDuration(elapsedMs / 1000));
  }
  return parts.join(" ");
}

/**
 * A progress display titled `title` (e.g. `verify big.jsonl`), or one that draws nothing when
 * the command's output must stay clean (see `progressEnabled`).
 */
export function startProgress(io: CommandIo, flags: { json: boolean; quiet?: boolean }, title: string, now: () => number = Date.now): Progress {
  if (!progressEnabled(io, flags)) return silent;
  let state: ProgressState | null = null;
  const startedMs = now();
  const quietStartMs = progressDelayMs(io.env);
  let lastDrawMs = 0;
  let drawn = false;
  const draw = (force: boolean) => {
    if (state === null) return;
    const at = now();
    if (at - startedMs < quietStartMs) return;
    if (!force && at - lastDrawMs < progressRedrawMs) return;
    lastDrawMs = at;
    drawn = true;
    io.stderr(`\r\x1b[K${renderProgressLine(state, at)}`);
  };
  const display: Progress = {
    phase(label, total, unit) {
      state = { title, label, done: 0, total, unit, phaseStartedMs: now() };
      draw(true);
    },
    update(done, total) {
      if (state === null) state = { title, label: "working", done: 0, phaseStartedMs: now() };
      state.done = done;
      if (total !== undefined) state.total = total;
      draw(state.total !== undefined && done >= state.total);
    },
    done() {
      if (drawn) io.stderr("\r\x1b[K");
      drawn = false;
      state = null;
    },
  };
  liveDisplays.set(io, display);
  return display;
}

/** The display last started on each stderr, so an error report can clear its line first. */
const liveDisplays = new WeakMap<CommandIo, Progress>();

/** Clears a progress line left on `io`'s stderr (a command failed mid-way); nothing otherwise. */
export function clearProgress(io: CommandIo): void {
  liveDisplays.get(io)?.done();
}

/** `startProgress` for a command: its stderr, its `--json` and `--quiet`. */
export function commandProgress(ctx: Pick<CommandContext, "io" | "global">, title: string): Progress {
  return startProgress(ctx.io, ctx.global, title);
}

/**
 * A bench's `progress(message)` callback on the display: each message starts a phase, except
 * `warning: ...` and `note: ...` (a kept work directory), which are lines a reader needs whether
 * or not stderr is a terminal.
 */
export function benchMessages(ctx: Pick<CommandContext, "io" | "global">, bench: string): { message(text: string): void; done(): void } {
  const progress = commandProgress(ctx, `bench ${bench}`);
  return {
    message(text) {
      if (text.startsWith("warning: ") || text.startsWith("note: ")) {
        progress.done();
        ctx.io.stderr(`bench ${bench}: ${text}\n`);
      } else {
        progress.phase(text);
      }
    },
    done: () => progress.done(),
  };
}

/**
 * A `(phase, done, total)` callback on the display: a new phase name starts a new phase (its rate
 * and ETA start over); `labels` and `units` name the phases for a reader.
 */
export function phaseCallback(
  progress: ProgressSink,
  labels: Record<string, string> = {},
  units: Record<string, ProgressUnit> = {},
): (phase: string, done?: number, total?: number) => void {
  let current: string | null = null;
  return (phase, done, total) => {
    const known = total !== undefined && total > 0 ? total : undefined;
    if (phase !== current) {
      current = phase;
      progress.phase(labels[phase] ?? phase, known, units[phase]);
    }
    if (done !== undefined) progress.update(done, known);
  };
}
