/**
 * Tool listing profiles. `core` (the default) lists only the front-door tools an agent needs
 * first; `full` lists every tool. A profile changes what `tools/list` shows, never what
 * `tools/call` accepts: every tool stays callable by name under every profile.
 *
 * This module imports nothing heavy: `zaxy serve` validates `--profile` with it before the MCP
 * SDK is loaded.
 */

export const toolProfiles = ["core", "full"] as const;
export type ToolProfile = (typeof toolProfiles)[number];

/** Default when neither `--profile` nor `MCP_TOOL_PROFILE` is given (Python's default since 2.1). */
export const defaultToolProfile: ToolProfile = "core";

/**
 * The front-door tools, in the order `core` lists them. Names not yet implemented are skipped
 * when listing, so adding a tool module makes it appear here without touching this list.
 */
export const coreToolNames: readonly string[] = [
  "memory_checkout",
  "memory_append",
  "memory_query",
  "context_assemble",
  "memory_feedback",
  "memory_invalidate",
  "memory_capabilities",
  "memory_feeling_of_knowing",
];

export function isToolProfile(value: string): value is ToolProfile {
  return (toolProfiles as readonly string[]).includes(value);
}

/**
 * The tools a profile lists, in listing order: `core` in front-door order, `full` in registry order.
 *
 * @example
 * listedTools("core", [{ name: "memory_replay" }, { name: "memory_append" }]) // [{ name: "memory_append" }]
 */
export function listedTools<Tool extends { name: string }>(profile: ToolProfile, tools: readonly Tool[]): Tool[] {
  if (profile === "full") return [...tools];
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  return coreToolNames.flatMap((name) => {
    const tool = byName.get(name);
    return tool === undefined ? [] : [tool];
  });
}
