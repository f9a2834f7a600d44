/**
 * Eventloom: the append-only, SHA-256 hash-chained JSONL event log that is Zaxy's only source
 * of truth. Reads both line envelopes (legacy and eventloom.v1, mixed in one file), verifies
 * them as Python's reference verifier does, and appends in either envelope under a flock shared
 * with the Python implementation, through an appender that fixes the event rules every append
 * keeps (`eventAppender`; the library's is src/events/append.ts).
 *
 * @example
 * import { verifyLog } from "./mod.ts";
 * import { appendEvents } from "../events/append.ts"; // the appender with zaxy's event rules
 * import { fromJs } from "../canonical/mod.ts";
 * await appendEvents(".eventloom", "default", [{ type: "goal.created", actor: "agent", payload: fromJs({ title: "Ship" }) }]);
 * (await verifyLog(".eventloom/default.jsonl")).ok; // true
 */
export * from "./append.ts";
export * from "./root.ts";
export * from "./envelope.ts";
export * from "./lines.ts";
export * from "./redact.ts";
export * from "./repair.ts";
export * from "./replay.ts";
export * from "./tail.ts";
export * from "./timestamp.ts";
export * from "./verifiedCheckpoint.ts";
export * from "./verify.ts";
export * from "./eventView.ts";
export * from "./threadStore.ts";
export * from "./rootHandle.ts";
