/** `zaxy memory causal ...`: cited cause-and-effect chains (DESIGN §7). */
import { defineGroup } from "../../../command.ts";
import { memoryCausalPredecessorsCommand } from "./predecessors.ts";
import { memoryCausalSuccessorsCommand } from "./successors.ts";

export const memoryCausalGroup = defineGroup({
  name: "causal",
  summary: "Causal chains: successors and predecessors of an entity, with citations",
  children: [memoryCausalSuccessorsCommand, memoryCausalPredecessorsCommand],
});
