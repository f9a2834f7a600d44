/** The command tree. Parents only register children; each command lives in its own file. */
import { defineGroup } from "./command.ts";
import { benchGroup } from "./commands/bench/group.ts";
import { benchmarkCompareCommand } from "./commands/benchmarkCompare.ts";
import { benchmarkGuardrailCommand } from "./commands/benchmarkGuardrail.ts";
import { compactCommand } from "./commands/compact.ts";
import { configGroup } from "./commands/config.ts";
import { completionCommand } from "./commands/completion.ts";
import { demoCommand } from "./commands/demo.ts";
import { doctorCommand } from "./commands/doctor/doctor.ts";
import { fleetGroup } from "./commands/fleet/group.ts";
import { graphGroup } from "./commands/graph.ts";
import { helpCommand } from "./commands/help.ts";
import { hooksGroup } from "./commands/hooks.ts";
import { initCommand } from "./commands/init.ts";
import { memoryGroup } from "./commands/memory/group.ts";
import { repairCommand } from "./commands/repair.ts";
import { replayCommand } from "./commands/replay.ts";
import { reprojectCommand } from "./commands/reproject.ts";
import { serveCommand } from "./commands/serve.ts";
import { storeGroup } from "./commands/store/group.ts";
import { verifyCommand } from "./commands/verify.ts";

export const rootGroup = defineGroup({
  name: "zaxy",
  summary: "Zaxy: hash-chained, cited memory for AI agents",
  description:
    "Zaxy records what agents did in an append-only, SHA-256 hash-chained event log (Eventloom)\n" +
    "and gives cited memory back. The log is the only source of truth.",
  children: [initCommand, configGroup, verifyCommand, replayCommand, memoryGroup, fleetGroup, repairCommand, reprojectCommand, graphGroup, compactCommand, hooksGroup, serveCommand, storeGroup, benchGroup, benchmarkCompareCommand, benchmarkGuardrailCommand, completionCommand, helpCommand, demoCommand, doctorCommand],
});
