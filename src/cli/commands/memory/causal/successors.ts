/** `zaxy memory causal successors ENTITY`: what an entity caused, enabled, blocked, ... (effects). */
import { causalCommand } from "./causalCommand.ts";

export const memoryCausalSuccessorsCommand = causalCommand(
  "successors",
  "Causal effects of an entity: follows causal_* edges source -> target, shortest path first",
  "Verifies the session's log, brings its projection up to the head, and walks the current\n" +
    "causal edges forward from every current version of ENTITY, up to --depth hops. Each result\n" +
    "is the edge that reached a node, with its citation, path_length and the path's relation\n" +
    "types and citations (evidence.path_relation_types, evidence.path_citations). Causal edges\n" +
    "are proposed, non-authoritative memory. Contract: 'zaxy help causal' (docs/causal.md).",
);
