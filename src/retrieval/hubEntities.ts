/**
 * Entity types that connect many unrelated facts: every decision of a session hangs off its
 * actor, every tool call off its session. A path through one says only "same author" or "same
 * session", so graph traversal does not expand them unless the query itself matched them, and
 * checkout never takes a fact reached only through one as relevant.
 */
export const hubEntityTypes: ReadonlySet<string> = new Set([
  "actor",
  "agent",
  "fleet",
  "fleet_agent",
  "mission",
  "session",
  "tool",
  "user",
  "worker",
  "workspace",
]);
