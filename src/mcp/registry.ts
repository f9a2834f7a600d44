/**
 * Every MCP tool, in the order the `full` profile lists them. Adding a tool: write
 * `tools/<toolName>.ts` exporting a `defineTool(...)`, then add it here (and, if it is a
 * front-door tool, it is already named in `profiles.ts`).
 */
import * as z from "zod";
import { inputError } from "../errors.ts";
import { requireFleetEnabled } from "../fleet/fleetConfig.ts";
import type { AnyToolDefinition } from "./tool.ts";
import { outputSchemas } from "./outputSchemas.ts";
import { sameToken } from "./tokens.ts";
import { contextAssembleTool } from "./tools/contextAssemble.ts";
import { fleetAssignTrustTool } from "./tools/fleetAssignTrust.ts";
import { fleetAuditTool } from "./tools/fleetAudit.ts";
import { fleetCreateTool } from "./tools/fleetCreate.ts";
import { fleetEnrollTool } from "./tools/fleetEnroll.ts";
import { fleetPromoteTool } from "./tools/fleetPromote.ts";
import { fleetReviewTool } from "./tools/fleetReview.ts";
import { fleetRollbackTool } from "./tools/fleetRollback.ts";
import { fleetStatusTool } from "./tools/fleetStatus.ts";
import { memoryAppendTool } from "./tools/memoryAppend.ts";
import { memoryCapabilitiesTool } from "./tools/memoryCapabilities.ts";
import { memoryCheckoutTool } from "./tools/memoryCheckout.ts";
import { memoryCausalPredecessorsTool } from "./tools/memoryCausalPredecessors.ts";
import { memoryCausalSuccessorsTool } from "./tools/memoryCausalSuccessors.ts";
import { memoryConsolidationCandidateTool } from "./tools/memoryConsolidationCandidate.ts";
import { memoryConsolidationProposeFromLogTool } from "./tools/memoryConsolidationProposeFromLog.ts";
import { memoryConsolidationReviewTool } from "./tools/memoryConsolidationReview.ts";
import { memoryConsolidationStatusTool } from "./tools/memoryConsolidationStatus.ts";
import { memoryEvolutionGateTool } from "./tools/memoryEvolutionGate.ts";
import { memoryExplainOutcomeTool } from "./tools/memoryExplainOutcome.ts";
import { memoryEditTool } from "./tools/memoryEdit.ts";
import { memoryExportTool } from "./tools/memoryExport.ts";
import { memoryFeedbackTool } from "./tools/memoryFeedback.ts";
import { memoryForgetTool } from "./tools/memoryForget.ts";
import { memoryFeelingOfKnowingTool } from "./tools/memoryFeelingOfKnowing.ts";
import { memoryGetTool } from "./tools/memoryGet.ts";
import { memoryGraphQueryTool } from "./tools/memoryGraphQuery.ts";
import { memoryIngestTool } from "./tools/memoryIngest.ts";
import { memorySessionsTool } from "./tools/memorySessions.ts";
import { contextAfterTurnTool, memoryBootstrapTool, memoryVerbatimTool } from "./tools/sessionStartTools.ts";
import { memoryInvalidateTool } from "./tools/memoryInvalidate.ts";
import { memoryOutcomeTool } from "./tools/memoryOutcome.ts";
import { memoryQueryTool } from "./tools/memoryQuery.ts";
import { memoryReplayTool } from "./tools/memoryReplay.ts";
import { memoryRollbackTool } from "./tools/memoryRollback.ts";
import { memoryVerifyTool } from "./tools/memoryVerify.ts";
import { mergeConceptsTool } from "./tools/mergeConcepts.ts";
import { triggerConsolidationTool } from "./tools/triggerConsolidation.ts";

/**
 * Tools that read or change more than one agent's memory, or membership: when the server has an
 * admin token (`--admin-token-file`, env `MCP_ADMIN_TOKEN`), a call needs `admin_token` equal to
 * it (reference §6). Without one configured they behave as any tool.
 */
export const adminGatedToolNames: readonly string[] = ["memory_replay", "memory_invalidate", "memory_export", "fleet_create", "fleet_enroll", "fleet_assign_trust"];

/** The tool with an optional `admin_token` argument, checked against the server's before it runs. */
function gatedByAdminToken(tool: AnyToolDefinition): AnyToolDefinition {
  return {
    ...tool,
    description: `${tool.description} Admin-gated: when the server has an admin token, pass it as admin_token.`,
    inputSchema: tool.inputSchema.extend({ admin_token: z.string().optional().describe("The server's admin token, when it has one") }),
    async run(args, ctx) {
      const { admin_token: given, ...rest } = args as { admin_token?: string };
      if (ctx.adminToken !== undefined && (typeof given !== "string" || !sameToken(given, ctx.adminToken))) {
        throw inputError("admin_token_required", `${tool.name} is admin-gated on this server: pass the server's admin_token`, { field: "admin_token" });
      }
      return await tool.run(rest, ctx);
    },
  };
}

export const toolRegistry: readonly AnyToolDefinition[] = [
  memoryCheckoutTool,
  memoryAppendTool,
  memoryQueryTool,
  contextAssembleTool,
  memoryFeedbackTool,
  memoryInvalidateTool,
  memoryCapabilitiesTool,
  memoryFeelingOfKnowingTool,
  memoryIngestTool,
  memorySessionsTool,
  memoryGetTool,
  memoryEditTool,
  memoryForgetTool,
  memoryGraphQueryTool,
  memoryExportTool,
  memoryVerbatimTool,
  memoryBootstrapTool,
  contextAfterTurnTool,
  memoryReplayTool,
  memoryVerifyTool,
  memoryCausalSuccessorsTool,
  memoryCausalPredecessorsTool,
  memoryExplainOutcomeTool,
  memoryConsolidationCandidateTool,
  memoryConsolidationProposeFromLogTool,
  memoryConsolidationReviewTool,
  memoryConsolidationStatusTool,
  memoryRollbackTool,
  memoryEvolutionGateTool,
  memoryOutcomeTool,
  triggerConsolidationTool,
  mergeConceptsTool,
  ...[
    fleetCreateTool,
    fleetEnrollTool,
    fleetAssignTrustTool,
    fleetPromoteTool,
    fleetReviewTool,
    fleetRollbackTool,
    fleetStatusTool,
    fleetAuditTool,
  ].map(gatedByFleetEnabled),
].map((tool) => (adminGatedToolNames.includes(tool.name) ? gatedByAdminToken(tool) : tool)).map(withOutputSchema);

/** Every registered tool declares its output (outputSchemas.ts); a tool without one is a build error at start-up. */
function withOutputSchema(tool: AnyToolDefinition): AnyToolDefinition {
  const outputSchema = outputSchemas[tool.name];
  if (outputSchema === undefined) throw new Error(`tool ${tool.name} has no output schema in src/mcp/outputSchemas.ts`);
  return { ...tool, outputSchema };
}

/**
 * A fleet tool that refuses first (`invalid_request`, naming config.json fleet_enabled) when the
 * server's root does not enable the fleet plane: the plane is opt-in (design I7 invariant 6).
 */
function gatedByFleetEnabled(tool: AnyToolDefinition): AnyToolDefinition {
  return {
    ...tool,
    description: `${tool.description} Needs "fleet_enabled": true in config.json (the fleet plane is off by default).`,
    async run(args, ctx) {
      requireFleetEnabled(ctx.eventloomPath, `call ${tool.name}`);
      return await tool.run(args, ctx);
    },
  };
}
