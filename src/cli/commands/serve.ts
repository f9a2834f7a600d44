/**
 * `zaxy serve [--profile core|full] [--transport stdio]`: the MCP server on stdio (DESIGN §11).
 * stdout carries protocol messages only. The server module (and with it the MCP SDK) is
 * imported only when this command runs, so no other command pays for it at start-up.
 */
import { inputError } from "../../errors.ts";
import { parseCitationUri } from "../../eventloom/citation.ts";
import { readFleetEnabled } from "../../eventloom/config.ts";
import { validateSessionId } from "../../eventloom/session.ts";
import { defaultToolProfile, isToolProfile, type ToolProfile, toolProfiles } from "../../mcp/profiles.ts";
import { choiceOption } from "../args.ts";
import { defineCommand } from "../command.ts";

const transports = ["stdio"] as const;

function profileFrom(flag: ToolProfile | undefined, env: Record<string, string | undefined>): ToolProfile {
  if (flag !== undefined) return flag;
  const fromEnv = env.MCP_TOOL_PROFILE;
  if (fromEnv === undefined || fromEnv === "") return defaultToolProfile;
  if (!isToolProfile(fromEnv)) {
    throw inputError("invalid_option", `MCP_TOOL_PROFILE must be one of ${toolProfiles.join(", ")}, got ${JSON.stringify(fromEnv)}`, {
      field: "MCP_TOOL_PROFILE",
      hint: "Unset MCP_TOOL_PROFILE or pass --profile.",
    });
  }
  return fromEnv;
}

export const serveCommand = defineCommand({
  name: "serve",
  summary: "Serve the memory tools over MCP on stdio",
  description:
    "Runs an MCP server on stdin/stdout until stdin closes. Tools act on the Eventloom root\n" +
    "(--eventloom-path) and default to the session --session-id. The core profile lists the\n" +
    "front-door tools, full lists all; every tool is callable by name under either profile.\n" +
    "stdout carries MCP messages only; diagnostics go to stderr.",
  options: {
    profile: {
      type: "string",
      valueName: "core|full",
      description: `Tools listed by tools/list (env MCP_TOOL_PROFILE, default ${defaultToolProfile})`,
    },
    transport: { type: "string", valueName: "stdio", description: "Transport (only stdio)" },
  },
  positionals: [],
  examples: ["zaxy serve", "zaxy serve --profile full --eventloom-path /data/.eventloom --session-id agent-1"],
  async run(ctx) {
    const profile = profileFrom(choiceOption(ctx, "profile", toolProfiles), ctx.io.env);
    choiceOption(ctx, "transport", transports);
    validateSessionId(ctx.global.sessionId, "serve");
    const { runMcpServer } = await import("../../mcp/server.ts");
    const store = ctx.global.store;
    const fleetEnabled = store !== undefined && readFleetEnabled(ctx.global.localRoot);
    // With a store, every call first catches the mirror up: events other hosts appended
    // (fleet promotions included) are seen at the next call, without a restart.
    const beforeCall = store === undefined ? undefined : async (name: string, args: Record<string, unknown>) => {
      const sessionId = typeof args.session_id === "string" ? args.session_id : typeof args.thread === "string" ? args.thread : ctx.global.sessionId;
      const fleet = name.startsWith("fleet");
      // memory_get may name another session's event: that thread is read (and checked) too.
      const cited = name === "memory_get" && typeof args.citation === "string" ? parseCitationUri(args.citation.trim())?.thread : undefined;
      await store.sync(cited === undefined ? [sessionId] : [sessionId, cited], {
        auditPrefix: fleet ? "fleet." : undefined,
        everyThread: fleet || fleetEnabled || name === "memory_sessions",
      });
    };
    await runMcpServer({ eventloomPath: ctx.global.eventloomPath, sessionId: ctx.global.sessionId, profile, beforeCall });
    return 0;
  },
});
