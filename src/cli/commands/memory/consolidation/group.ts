/** `zaxy memory consolidation ...`: review-gated consolidation candidates (DESIGN §8). */
import { defineGroup } from "../../../command.ts";
import { memoryConsolidationProposeCommand } from "./propose.ts";
import { memoryConsolidationProposeFromLogCommand } from "./proposeFromLog.ts";
import { memoryConsolidationReviewCommand } from "./review.ts";
import { memoryConsolidationStatusCommand } from "./status.ts";
import { memoryConsolidationTriggerCommand } from "./trigger.ts";
import { memoryConsolidationMergeCommand } from "./merge.ts";

export const memoryConsolidationGroup = defineGroup({
  name: "consolidation",
  summary: "Consolidation candidates: propose, propose-from-log, review, status, trigger, merge",
  children: [
    memoryConsolidationProposeCommand,
    memoryConsolidationProposeFromLogCommand,
    memoryConsolidationReviewCommand,
    memoryConsolidationStatusCommand,
    memoryConsolidationTriggerCommand,
    memoryConsolidationMergeCommand,
  ],
});
