/** What capabilities.ts's command does: imported when the command runs, so start-up loads only the command tree. */
import type { CommandContext } from "../../command.ts";
import { isToolProfile, toolProfiles } from "../../../mcp/profiles.ts";
import { inputError } from "../../../errors.ts";
import { stringOption } from "../../command.ts";
import { emit } from "../../output.ts";

export async function runMemoryCapabilities(ctx: CommandContext): Promise<number> {
  const profile = stringOption(ctx, "profile") ?? "core";
  if (!isToolProfile(profile)) {
    throw inputError("invalid_option", `--profile must be one of ${toolProfiles.join(", ")}, got ${JSON.stringify(profile)}`, { field: "--profile", expected: toolProfiles.join("|") });
  }
  const { capabilitiesManifest } = await import("../../../mcp/capabilities.ts");
  const manifest = await capabilitiesManifest(ctx.global.eventloomPath, ctx.global.sessionId, { profile, currentTask: stringOption(ctx, "current-task") });
  const { schema: _schema, ...doc } = manifest;
  emit(ctx, "zaxy.capabilities.v1", doc, () => {
    const lines = [
      `zaxy ${manifest.server.version}: ${manifest.tools.length} tools, profile ${manifest.profile.name} lists ${manifest.profile.listed.length}`,
      `python core profile: ${manifest.python_core_profile.served.length}/${manifest.python_core_profile.tools.length} served${manifest.python_core_profile.not_served.length > 0 ? ` (not: ${manifest.python_core_profile.not_served.join(", ")})` : ""}`,
      `features: envelope ${manifest.features.envelope}, fleet ${manifest.features.fleet_enabled ? "on" : "off"}, long-horizon ${manifest.features.long_horizon_enabled ? "on" : "off"}, logs in ${manifest.features.log_backend}`,
    ];
    const width = Math.max(...manifest.tools.map((tool) => tool.name.length));
    for (const tool of manifest.tools) lines.push(`  ${tool.listed ? "*" : " "} ${tool.name.padEnd(width)}  ${tool.required.length > 0 ? `(${tool.required.join(", ")})` : ""}`);
    return lines.join("\n");
  });
  return 0;
}
