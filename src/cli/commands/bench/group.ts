/** `zaxy bench ...`: benchmarks that print measured figures and the machine. */
import { defineGroup } from "../../command.ts";
import { benchCausalCommand } from "./causal.ts";
import { benchCheckoutCommand } from "./checkout.ts";
import { benchCheckoutQualityCommand } from "./checkoutQuality.ts";
import { benchCompactionAuditCommand } from "./compactionAudit.ts";
import { benchConsolidationCommand } from "./consolidation.ts";
import { benchConsolidationGuardrailCommand } from "./consolidationGuardrail.ts";
import { benchFleetCommand } from "./fleet.ts";
import { benchLongMemEvalCommand } from "./longmemeval.ts";
import { benchMcpHttpCommand } from "./mcpHttp.ts";
import { benchMedoidCommand } from "./medoid.ts";
import { benchReprojectCommand } from "./reproject.ts";
import { benchRetrievalCommand } from "./retrieval.ts";
import { benchStartupCommand } from "./startup.ts";
import { benchStoreCommand, benchStoreWriterCommand } from "./store.ts";
import { benchTriggerCommand } from "./trigger.ts";
import { benchVerifyCommand } from "./verify.ts";

export const benchGroup = defineGroup({
  name: "bench",
  summary: "Benchmarks: measured figures, ratios from one run, and the machine",
  children: [benchVerifyCommand, benchRetrievalCommand, benchReprojectCommand, benchCheckoutCommand, benchCheckoutQualityCommand, benchConsolidationGuardrailCommand, benchConsolidationCommand, benchCausalCommand, benchTriggerCommand, benchMedoidCommand, benchCompactionAuditCommand, benchFleetCommand, benchLongMemEvalCommand, benchStoreCommand, benchStoreWriterCommand, benchMcpHttpCommand, benchStartupCommand],
});
