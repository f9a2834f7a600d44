/**
 * `memory_capabilities` (reference §6 row 7): what this server can do, generated from the tool
 * registry and the root's settings, never written by hand, so it cannot drift from what
 * `tools/call` accepts. The CLI (`zaxy memory capabilities`) and the MCP tool both call
 * `capabilitiesManifest`.
 *
 * @example
 * const manifest = await capabilitiesManifest(".eventloom", "default", { profile: "core" });
 * manifest.profile.listed // ["memory_checkout", "memory_append", ...]
 */
import * as fs from "node:fs";
import * as z from "zod";
import { readFleetEnabled, readLongHorizonConfig, readConfig, sessionLogPath } from "../eventloom/root.ts";
import { Root } from "../eventloom/rootHandle.ts";
import { zaxyVersion } from "../version.ts";
import { coreToolNames, listedTools, type ToolProfile, toolProfiles } from "./profiles.ts";
import type { AnyToolDefinition } from "./tool.ts";

export const capabilitiesSchema = "zaxy.capabilities.v1";

export interface ToolCapability {
  name: string;
  description: string;
  /** Listed by `tools/list` under the server's profile (every tool is callable by name). */
  listed: boolean;
  read_only: boolean;
  required: string[];
  fields: string[];
}

export interface CapabilitiesManifest {
  schema: typeof capabilitiesSchema;
  server: { name: "zaxy"; version: string };
  session_id: string;
  current_task: string | null;
  profile: { name: ToolProfile; profiles: readonly ToolProfile[]; listed: string[]; callable_by_name: true };
  tools: ToolCapability[];
  /** Python's core profile, and which of its tools this server serves. */
  python_core_profile: { tools: readonly string[]; served: string[]; not_served: string[] };
  features: {
    envelope: string;
    fleet_enabled: boolean;
    long_horizon_enabled: boolean;
    /** "files", or "store" when the root is a shared store's mirror (docs/store.md). */
    log_backend: "files" | "store";
  };
  session: { log_exists: boolean };
}

function fieldsOf(tool: AnyToolDefinition): { required: string[]; fields: string[] } {
  const schema = z.toJSONSchema(tool.inputSchema, { io: "input" }) as { properties?: Record<string, unknown>; required?: string[] };
  return { fields: Object.keys(schema.properties ?? {}), required: [...(schema.required ?? [])] };
}

export async function capabilitiesManifest(
  root: string,
  sessionId: string,
  options: { profile?: ToolProfile; currentTask?: string } = {},
): Promise<CapabilitiesManifest> {
  // The registry imports this module's tool: loaded here, when the manifest is built.
  const { toolRegistry } = await import("./registry.ts");
  const profile = options.profile ?? "core";
  const listed = new Set(listedTools(profile, toolRegistry).map((tool) => tool.name));
  const registered = new Set(toolRegistry.map((tool) => tool.name));
  let logExists = false;
  try {
    logExists = fs.statSync(sessionLogPath(root, sessionId, "read"), { throwIfNoEntry: false })?.isFile() === true;
  } catch {
    logExists = false;
  }
  return {
    schema: capabilitiesSchema,
    server: { name: "zaxy", version: zaxyVersion },
    session_id: sessionId,
    current_task: options.currentTask ?? null,
    profile: { name: profile, profiles: toolProfiles, listed: toolRegistry.filter((tool) => listed.has(tool.name)).map((tool) => tool.name), callable_by_name: true },
    tools: toolRegistry.map((tool) => ({
      name: tool.name,
      description: tool.description,
      listed: listed.has(tool.name),
      read_only: tool.annotations?.readOnlyHint === true,
      ...fieldsOf(tool),
    })),
    python_core_profile: {
      tools: coreToolNames,
      served: coreToolNames.filter((name) => registered.has(name)),
      not_served: coreToolNames.filter((name) => !registered.has(name)),
    },
    features: {
      envelope: readConfig(root).envelope,
      fleet_enabled: readFleetEnabled(root),
      long_horizon_enabled: readLongHorizonConfig(root).enabled,
      log_backend: Root.of(root).threadStore === undefined ? "files" : "store",
    },
    session: { log_exists: logExists },
  };
}
