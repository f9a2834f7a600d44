/**
 * Progress for long operations on stderr, only when stderr is a terminal (so logs and pipes
 * stay clean). Redraws at most every 100 ms.
 */
import type { CommandIo } from "./command.ts";

export interface ProgressReporter {
  update(done: number, total: number): void;
  done(): void;
}

const redrawMs = 100;

export function progressReporter(io: CommandIo, label: string): ProgressReporter {
  if (!io.stderrIsTTY) return { update() {}, done() {} };
  let lastDrawMs = 0;
  let drawn = false;
  return {
    update(done, total) {
      const now = Date.now();
      if (now - lastDrawMs < redrawMs || total === 0) return;
      lastDrawMs = now;
      drawn = true;
      const percent = Math.min(100, (done / total) * 100).toFixed(1);
      io.stderr(`\r${label}: ${percent}% (${(done / 1e6).toFixed(0)} / ${(total / 1e6).toFixed(0)} MB)`);
    },
    done() {
      if (drawn) io.stderr("\r\x1b[K");
    },
  };
}
