/**
 * Every MCP tool, in the order the `full` profile lists them. Adding a tool: write
 * `tools/<toolName>.ts` exporting a `defineTool(...)`, then add it here (and, if it is a
 * front-door tool, it is already named in `profiles.ts`).
 */
import type { AnyToolDefinition } from "./tool.ts";
import { memoryAppendTool } from "./tools/memoryAppend.ts";
import { memoryIngestTool } from "./tools/memoryIngest.ts";
import { memoryReplayTool } from "./tools/memoryReplay.ts";
import { memoryVerifyTool } from "./tools/memoryVerify.ts";

export const toolRegistry: readonly AnyToolDefinition[] = [memoryAppendTool, memoryIngestTool, memoryReplayTool, memoryVerifyTool];
