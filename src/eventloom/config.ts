/**
 * Per-root settings written by `zaxy init`: `<root>/config.json`. Today it only says which
 * envelope new logs start with; a missing file means the defaults.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { inputError } from "../errors.ts";
import type { Envelope } from "./envelope.ts";

export interface EventloomConfig {
  /** Envelope for new (empty) logs. Default v1. */
  envelope: Envelope;
}

export const configSchema = "zaxy.config.v1";
export const defaultConfig: EventloomConfig = { envelope: "v1" };

export function configPath(root: string): string {
  return path.join(root, "config.json");
}

export function readConfig(root: string): EventloomConfig {
  let text: string;
  try {
    text = fs.readFileSync(configPath(root), "utf8");
  } catch {
    return { ...defaultConfig };
  }
  try {
    const parsed = JSON.parse(text) as { envelope?: unknown };
    const envelope = parsed.envelope === "legacy" ? "legacy" : "v1";
    return { envelope };
  } catch {
    throw inputError("invalid_config", `Cannot read ${configPath(root)}: it is not valid JSON`);
  }
}

export function writeConfig(root: string, config: EventloomConfig): string {
  fs.mkdirSync(root, { recursive: true });
  const file = configPath(root);
  const temp = `${file}.tmp-${process.pid}`;
  fs.writeFileSync(temp, JSON.stringify({ schema: configSchema, envelope: config.envelope }, null, 2) + "\n");
  fs.renameSync(temp, file);
  return file;
}
