/** `fleet_audit`: which agent taught the fleet each promotion, from which sealed event. */
import * as z from "zod";
import { fleetAudit } from "../../fleet/audit.ts";
import { defineTool } from "../tool.ts";
import { fleetIdField } from "./fleetSchemas.ts";

export const fleetAuditTool = defineTool({
  name: "fleet_audit",
  description:
    "Audit a fleet: for every promotion, the proposing actor, the origin actor and session, and each source event as an " +
    "eventloom:// citation checked against the origin session's verified log, plus its gate event, and every fleet event whose actor lacked the authority the fleet commands require (unauthorised_governance_events, not applied). ok is true only when every ref resolves and there is no such event.",
  inputSchema: z.strictObject({ fleet_id: fleetIdField }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(args, ctx) {
    return await fleetAudit(ctx.eventloomPath, args.fleet_id);
  },
});
