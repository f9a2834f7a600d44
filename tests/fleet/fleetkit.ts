/**
 * Shared setup for the fleet tests (not a test file itself): a root with an origin session of
 * sealed events and a fleet `alpha` with one agent per trust tier.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { fromJs } from "../../src/canonical/mod.ts";
import { type SourceEventRef } from "../../src/eventloom/mod.ts";
import { appendEvents } from "../../src/events/append.ts";
import { defaultEvolutionPolicy, type EvolutionPolicy } from "../../src/governance/evolutionGate.ts";
import { assignTrust, createFleet, enrollAgent } from "../../src/fleet/mod.ts";
import { makeTempDir } from "../eventloom/testkit.ts";

export const steward = "coordinator";
/** Agent id per tier in fleet `alpha`. */
export const agentOfTier = { untrusted: "agent-untrusted", member: "agent-member", trusted: "agent-trusted", steward } as const;

export const autoPolicy: EvolutionPolicy = defaultEvolutionPolicy;
export const reviewPolicy: EvolutionPolicy = { ...defaultEvolutionPolicy, opTiers: { promote: "require_review" } };

export interface FleetFixture {
  root: string;
  dir: string;
  /** Sealed events of session `origin` (seq i+1). */
  sources: SourceEventRef[];
  fleetLog: string;
}

/** A root with session `origin` holding `sourceCount` sealed events and fleet `alpha` with every tier enrolled. */
export async function makeFleet(sourceCount = 12): Promise<FleetFixture> {
  const dir = makeTempDir("zaxy-fleet");
  const root = path.join(dir, ".eventloom");
  const items = Array.from({ length: sourceCount }, (_, i) => ({ type: "task.completed", actor: "origin-agent", payload: fromJs({ title: `task ${i + 1}` }) }));
  const { events } = await appendEvents(root, "origin", items);
  // The plane is off unless config.json enables it; the CLI and MCP front doors check it.
  fs.writeFileSync(path.join(root, "config.json"), JSON.stringify({ fleet_enabled: true }));
  await createFleet(root, { fleetId: "alpha", summary: "Auth workers" });
  for (const tier of ["untrusted", "member", "trusted"] as const) {
    await enrollAgent(root, { fleetId: "alpha", agentId: agentOfTier[tier], actor: steward, trustTier: tier });
  }
  return { root, dir, sources: events.map((e) => ({ seq: e.seq, hash: e.hash })), fleetLog: path.join(root, "fleet.alpha.jsonl") };
}

export { assignTrust };

export function fileBytes(file: string): Buffer {
  return fs.readFileSync(file);
}
