/** `zaxy memory causal predecessors ENTITY`: what caused, enabled, blocked, ... an entity (causes). */
import { causalCommand } from "./causalCommand.ts";

export const memoryCausalPredecessorsCommand = causalCommand(
  "predecessors",
  "Causal causes of an entity: follows causal_* edges in reverse (target -> source), shortest path first",
  "Verifies the session's log, brings its projection up to the head, and walks the current\n" +
    "causal edges backwards from every current version of ENTITY, up to --depth hops: the\n" +
    "results are its causes, never its effects. Each result is the stored edge source -> target\n" +
    "that reached a node, with its citation, path_length and the path's relation types and\n" +
    "citations. Causal edges are proposed, non-authoritative memory. Contract: 'zaxy help causal' (docs/causal.md).",
);
