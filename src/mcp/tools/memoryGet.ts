/** `memory_get`: the event an Eventloom citation names, from its verified log (src/memory/getByCitation.ts). */
import * as z from "zod";
import { getByCitation } from "../../memory/getByCitation.ts";
import { defineTool } from "../tool.ts";

export const memoryGetTool = defineTool({
  name: "memory_get",
  description:
    "Get the event a citation names (eventloom://<session>/events/<seq>#<hash prefix>, as memory_checkout and memory_query " +
    "give them): the session's chain is verified first, and a citation whose hash no longer matches is refused, never " +
    "answered with another event.",
  inputSchema: z.strictObject({
    citation: z.string().min(1).describe("An Eventloom citation, e.g. eventloom://default/events/3#0ab1c2d3e4f5"),
  }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(args, ctx) {
    return await getByCitation(ctx.eventloomPath, args.citation);
  },
});
