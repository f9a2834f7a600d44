/** `zaxy memory consolidation ...`: review-gated consolidation candidates (DESIGN §8). */
import { defineGroup } from "../../../command.ts";

export const memoryConsolidationGroup = defineGroup({
  name: "consolidation",
  summary: "Consolidation candidates: propose, propose-from-log, review, status, trigger, merge",
  children: [],
});
