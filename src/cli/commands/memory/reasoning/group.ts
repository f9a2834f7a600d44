/** `zaxy memory reasoning ...`: reasoning primitives over cited memory. */
import { defineGroup } from "../../../command.ts";
import { memoryReasoningExplainOutcomeCommand } from "./explainOutcome.ts";

export const memoryReasoningGroup = defineGroup({
  name: "reasoning",
  summary: "Reasoning primitives: explain-outcome",
  children: [memoryReasoningExplainOutcomeCommand],
});
