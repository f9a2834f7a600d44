/**
 * SIGINT and SIGTERM around a write that must not stop half-way.
 *
 * Outside such a section the runtime's default applies: the process ends at once. Inside one,
 * the first signal is recorded and the section's body asks `stopRequested()` at its safe points
 * (after yielding to the event loop: a synchronous call, such as a Kuzu statement, delays signal
 * handlers until it returns), stops there and cleans up. When the section ends, however it ends,
 * the recorded signal is raised again with the default action restored, so the process still
 * dies of it (a shell sees status 130 for SIGINT, 143 for SIGTERM). A second signal during the
 * section ends the process at once, with that status.
 */
const terminationSignals = ["SIGINT", "SIGTERM"] as const;
type TerminationSignal = (typeof terminationSignals)[number];

const signalNumbers: Record<TerminationSignal, number> = { SIGINT: 2, SIGTERM: 15 };

export interface InterruptibleSection {
  /** True once SIGINT or SIGTERM arrived during the section. */
  stopRequested(): boolean;
  /** The signal that arrived, e.g. "SIGTERM", or null. */
  readonly signal: TerminationSignal | null;
}

function raiseAgain(signal: TerminationSignal): never {
  // With no listener left the runtime's default disposition applies; if it does not end the
  // process (a runtime that keeps its handler installed), exit with the shell's status for it.
  try {
    process.kill(process.pid, signal);
  } catch {
    // fall through to exit
  }
  process.exit(128 + signalNumbers[signal]);
}

/**
 * Runs `body` with SIGINT/SIGTERM deferred to its safe points.
 *
 * @example
 * await runInterruptible(async (section) => {
 *   for (const step of steps) {
 *     await step();
 *     if (section.stopRequested()) throw new Error("stopped");
 *   }
 * });
 */
export async function runInterruptible<T>(body: (section: InterruptibleSection) => Promise<T>): Promise<T> {
  let received: TerminationSignal | null = null;
  const listeners = terminationSignals.map((signal) => {
    const listener = () => {
      if (received !== null) {
        process.exit(128 + signalNumbers[signal]);
      }
      received = signal;
    };
    process.on(signal, listener);
    return [signal, listener] as const;
  });
  const section: InterruptibleSection = {
    stopRequested: () => received !== null,
    get signal() {
      return received;
    },
  };
  try {
    return await body(section);
  } finally {
    for (const [signal, listener] of listeners) process.off(signal, listener);
    if (received !== null) raiseAgain(received);
  }
}
