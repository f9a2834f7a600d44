/** `zaxy memory ...`: the memory commands. */
import { defineGroup } from "../../command.ts";
import { memoryAppendCommand } from "./append.ts";
import { memoryCausalGroup } from "./causal/group.ts";
import { memoryConsolidationGroup } from "./consolidation/group.ts";
import { memoryReasoningGroup } from "./reasoning/group.ts";
import { memoryIngestCommand } from "./ingest.ts";
import { memoryCheckoutCommand } from "./checkout.ts";
import { memoryEmbedCommand } from "./embed.ts";
import { memoryEvolutionGateCommand } from "./evolutionGate.ts";
import { memoryFeedbackCommand } from "./feedback.ts";
import { memoryCapabilitiesCommand } from "./capabilities.ts";
import { memoryInvalidateCommand } from "./invalidate.ts";
import { memoryGetCommand } from "./get.ts";
import { memoryEditCommand } from "./edit.ts";
import { memoryForgetCommand } from "./forget.ts";
import { memoryGraphCommand } from "./graph.ts";
import { memoryExportCommand, memoryVerifyExportCommand } from "./exportBundle.ts";
import { memorySessionsCommand } from "./sessions.ts";
import { memoryAfterTurnCommand, memoryBootstrapCommand, memoryVerbatimCommand } from "./sessionStart.ts";
import { memoryFeelingOfKnowingCommand } from "./feelingOfKnowing.ts";
import { memoryOutcomeCommand } from "./outcome.ts";
import { memoryLogCommand } from "./log.ts";
import { memoryQueryCommand } from "./query.ts";
import { memoryRollbackCommand } from "./rollback.ts";
import { memoryStatusCommand } from "./status.ts";

export const memoryGroup = defineGroup({
  name: "memory",
  summary: "Record and read memory: append, ingest, log, sessions, get, edit, forget, graph, export, verify-export, verbatim, bootstrap, after-turn, query, checkout, status, causal, reasoning, consolidation, rollback, evolution-gate, outcome, feedback, invalidate, capabilities, feeling-of-knowing",
  children: [
    memoryAppendCommand,
    memoryIngestCommand,
    memoryLogCommand,
    memorySessionsCommand,
    memoryGetCommand,
    memoryEditCommand,
    memoryForgetCommand,
    memoryGraphCommand,
    memoryExportCommand,
    memoryVerifyExportCommand,
    memoryVerbatimCommand,
    memoryBootstrapCommand,
    memoryAfterTurnCommand,
    memoryQueryCommand,
    memoryCheckoutCommand,
    memoryEmbedCommand,
    memoryStatusCommand,
    memoryRollbackCommand,
    memoryEvolutionGateCommand,
    memoryOutcomeCommand,
    memoryFeedbackCommand,
    memoryInvalidateCommand,
    memoryCapabilitiesCommand,
    memoryFeelingOfKnowingCommand,
    memoryCausalGroup,
    memoryReasoningGroup,
    memoryConsolidationGroup,
  ],
});
