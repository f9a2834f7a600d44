/** `zaxy memory capabilities [--current-task T] [--profile core|full]`: the server's capabilities manifest. */
import { isToolProfile, toolProfiles } from "../../../mcp/profiles.ts";
import { inputError } from "../../../errors.ts";
import { defineCommand, stringOption } from "../../command.ts";
import { emit } from "../../output.ts";

export const memoryCapabilitiesCommand = defineCommand({
  name: "capabilities",
  summary: "What this zaxy can do: tools, fields, profiles, features (as MCP memory_capabilities)",
  description:
    "Prints the manifest MCP memory_capabilities returns, generated from the tool registry: every\n" +
    "tool with its description, fields and required fields, which --profile lists it (default\n" +
    "core), which of Python Zaxy's eight core tools are served, and the root's features.\n" +
    "--json prints zaxy.capabilities.v1 ('zaxy help mcp').",
  options: {
    "current-task": { type: "string", valueName: "TEXT", description: "What you are about to do (echoed back)" },
    profile: { type: "string", valueName: "core|full", description: "The profile whose listing to report (default core)" },
  },
  positionals: [],
  examples: ["zaxy memory capabilities --json", "zaxy memory capabilities --profile full --current-task 'fix the flaky test'"],
  async run(ctx) {
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
  },
});
