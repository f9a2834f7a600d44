/**
 * What a command or an MCP call brings up to date from the store before it runs, when a store
 * is configured (docs/store.md): the sessions it names, with the full tamper check; for a fleet
 * operation, every fleet thread's check too; and every thread when it reads other sessions
 * (fleet operations, a fleet-enabled root whose checkout's fleet lane reads member sessions,
 * commands and tools that list or read every session). The CLI (cli/dispatch.ts) and
 * `zaxy serve` (cli/commands/serveRun.ts) both sync through this one rule.
 */
import type { ActiveStore } from "./activeStore.ts";

export interface StoreCall {
  /** The sessions the call reads or appends to. */
  sessionIds: readonly string[];
  /** A fleet operation: fleet threads get the full tamper check and every thread is synced. */
  fleet: boolean;
  /** The call reads other sessions (`--all`, `memory sessions`): every thread is synced. */
  readsEveryThread: boolean;
  /** Whether the root turned the fleet lane on; asked only when the answer matters. */
  fleetEnabled: () => boolean;
}

/**
 * Brings the store's local mirror up to date for `call`.
 *
 * @example
 * await syncForCall(store, { sessionIds: ["default"], fleet: false, readsEveryThread: false, fleetEnabled: () => false });
 */
export async function syncForCall(store: ActiveStore, call: StoreCall): Promise<void> {
  await store.sync(call.sessionIds, {
    auditPrefix: call.fleet ? "fleet." : undefined,
    everyThread: call.fleet || call.readsEveryThread || call.fleetEnabled(),
  });
}
