/**
 * `zaxy memory consolidation propose`: append one manual, review-pending candidate citing
 * events of the session (`--source-event SEQ:HASH` or a citation, repeatable).
 */
import { defineCommand } from "../../../command.ts";
import { proposeActorDefault } from "../../../../consolidation/actors.ts";

/** The design's defaults (seed 001, `memory consolidation propose`): both flags are optional. */
export const confidenceDefault = 0.7;
export const methodDefault = "manual_cli_v1";

export const memoryConsolidationProposeCommand = defineCommand({
  name: "propose",
  writesRoot: true,
  summary: "Append a manual consolidation candidate (review-pending, non-authoritative, cited)",
  description:
    "Appends consolidation.candidate.created with review_status pending and authority_status\n" +
    "non_authoritative. The candidate id is consolidation:<type>:<16 hex of sha256 over the\n" +
    "canonical {candidate_type, title, source_events}>. Every --source-event must be an event\n" +
    "of this session: SEQ:HASH (full 64-hex hash), SEQ:PREFIX (a unique prefix of 12+ hex) or its\n" +
    "citation eventloom://<session>/events/<seq>#<hash prefix>; the full hash is recorded.\n" +
    "--json prints {session_id, event_type, seq, hash, citation, candidate_id, candidate_type,\n" +
    "review_status, authority_status, payload}.",
  options: {
    "candidate-type": { type: "string", valueName: "TYPE", description: "episode, claim or procedure (required)" },
    title: { type: "string", valueName: "TEXT", description: "Title (required; part of the candidate id)" },
    summary: { type: "string", valueName: "TEXT", description: "Summary (required)" },
    "source-event": { type: "string", multiple: true, valueName: "SEQ:HASH", description: "A source event: SEQ:HASH, SEQ:PREFIX (12+ hex) or its citation (required)" },
    confidence: { type: "string", valueName: "X", description: `Confidence 0..1 (default ${confidenceDefault})` },
    method: { type: "string", valueName: "NAME", description: `How the candidate was derived (default ${methodDefault})` },
    purpose: { type: "string", valueName: "TEXT", description: "What the candidate is for" },
    actor: { type: "string", valueName: "A", description: `Who proposes it (default ${proposeActorDefault})` },
  },
  positionals: [],
  examples: [
    "zaxy memory consolidation propose --candidate-type claim --title 'Tests pass after the fix' \\\n" +
    "    --summary 'pytest passed after editing app.py' --source-event 3:<hash> --source-event 4:<hash> \\\n" +
    "    --json",
  ],
  async run(ctx) {
    const { runMemoryConsolidationPropose } = await import("./proposeRun.ts");
    return await runMemoryConsolidationPropose(ctx);
  },
});
