/** `zaxy init`: create the Eventloom root and choose the envelope for new logs. */
import * as path from "node:path";
import { defineCommand } from "../command.ts";

export const initCommand = defineCommand({
  name: "init",
  store: "self",
  summary: "Create the Eventloom root and choose the envelope for new logs",
  description:
    "Creates the Eventloom root directory (--eventloom-path, default .eventloom) and writes\n" +
    "config.json. --envelope chooses the line format new logs start with: v1 (eventloom.v1,\n" +
    "default) or legacy (the Python zaxy.legacy line). Existing logs keep their format.\n" +
    "--forgetting turns verified forgetting on (\"forgetting_enabled\": true; 'zaxy help forgetting').\n" +
    "--fleet turns the fleet plane on (\"fleet_enabled\": true in config.json; it is off by\n" +
    "default, 'zaxy help --topic fleet'); it updates an existing config.json without --force.\n" +
    "Inside a git work tree, a root without a .gitignore gets one that leaves out projections/\n" +
    "(derived, rebuilt from the logs), keys/ (the export signing key) and *.lock.",
  options: {
    envelope: { type: "string", valueName: "legacy|v1", description: "Envelope for new logs (default v1)" },
    force: { type: "boolean", description: "Overwrite an existing config.json" },
    fleet: { type: "boolean", description: "Enable the fleet plane (config.json fleet_enabled: true)" },
    forgetting: { type: "boolean", description: "Enable verified forgetting (config.json forgetting_enabled: true; zaxy help forgetting)" },
  },
  positionals: [],
  examples: ["zaxy init", "zaxy init --envelope legacy --eventloom-path ./memory", "zaxy init --fleet"],
  writesRoot: true,
  async run(ctx) {
    const { runInit } = await import("./initRun.ts");
    return await runInit(ctx);
  },
});
