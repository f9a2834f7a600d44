/**
 * `zaxy config list|get|set|unset`: the root's config.json without hand-editing. Every key is one
 * the engine reads (src/settings/configSettings.ts); a new value is checked by the same readers
 * the commands use before anything is written.
 */
import { inputError } from "../../errors.ts";
import { configPath } from "../../eventloom/root.ts";
import type * as Settings from "../../settings/configSettings.ts";
import { type CommandContext, defineCommand, defineGroup } from "../command.ts";
import { emit } from "../output.ts";

interface ConfigEntry {
  key: string;
  value: unknown;
  /** `config.json` when the file sets it, else `default`. */
  source: "config.json" | "default";
  description: string;
}

/** The settings registry, loaded only when a config command runs (it reads every reader's module). */
const loadSettings = (): Promise<typeof Settings> => import("../../settings/configSettings.ts");

function entryOf(settings: typeof Settings, ctx: CommandContext, key: string, object: { [key: string]: unknown }): ConfigEntry {
  const setting = settings.configSetting(key);
  const set = object[key] !== undefined;
  const raw = set ? object[key] : setting.defaultValue;
  const value = set && setting.display !== undefined ? setting.display(raw, ctx.global.eventloomPath) : raw;
  return { key, value, source: set ? "config.json" : "default", description: setting.description };
}

const show = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value));

const configListCommand = defineCommand({
  name: "list",
  store: "self",
  summary: "Every config key with its value, where it comes from, and what it does",
  description:
    "Lists every key zaxy reads from <root>/config.json: its value (the default when the file does\n" +
    "not set it), its source (config.json or default) and what it does. Keys in the file that zaxy\n" +
    "does not read are listed under unknown_keys. --json prints {config_path, settings[{key, value,\n" +
    "source, description}], unknown_keys}.",
  options: {},
  positionals: [],
  examples: ["zaxy config list", "zaxy config list --json"],
  async run(ctx) {
    const registry = await loadSettings();
    const object = registry.currentConfigObject(ctx.global.eventloomPath);
    const settings = registry.configSettings.map((s) => entryOf(registry, ctx, s.key, object));
    const unknown = Object.keys(object).filter((key) => key !== "schema" && !registry.configSettings.some((s) => s.key === key));
    const width = Math.max(...settings.map((s) => s.key.length));
    emit(ctx, "zaxy.config.list.v1", { config_path: configPath(ctx.global.eventloomPath), settings, unknown_keys: unknown }, () =>
      [
        ...settings.map((s) => `${s.key.padEnd(width)}  ${show(s.value)}${s.source === "default" ? "  (default)" : ""}`),
        ...(unknown.length > 0 ? [`not read by zaxy: ${unknown.join(", ")}`] : []),
      ].join("\n"));
    return 0;
  },
});

const configGetCommand = defineCommand({
  name: "get",
  store: "self",
  summary: "Print one config key's value (its default when config.json does not set it)",
  description: "Prints KEY's value: text as is, anything else as JSON. An unknown key is exit 2 naming the\nknown ones. --json prints {key, value, source, description}.",
  options: {},
  positionals: [{ name: "KEY", description: "A key `zaxy config list` shows", required: true }],
  examples: ["zaxy config get fleet_enabled", "zaxy config get long_horizon_recent_window --json"],
  async run(ctx) {
    const registry = await loadSettings();
    const entry = entryOf(registry, ctx, ctx.positionals[0], registry.currentConfigObject(ctx.global.eventloomPath));
    emit(ctx, "zaxy.config.get.v1", { ...entry }, () => show(entry.value));
    return 0;
  },
});

const configSetCommand = defineCommand({
  name: "set",
  writesRoot: true,
  store: "self",
  summary: "Set one config key, checked by the readers the engine uses",
  description:
    "Sets KEY to VALUE in <root>/config.json (created when missing), keeping every other key. VALUE\n" +
    "is JSON when it parses (true, 50, 0.9, {\"op\": \"require_review\"}, \"text\"), else the text\n" +
    "itself (legacy, postgres://...). The new file is checked with the engine's own readers first:\n" +
    "a value they would refuse is exit 2 naming the key and what it expects, and nothing is written.\n" +
    "--json prints {key, value, previous, config_path}.",
  options: {},
  positionals: [
    { name: "KEY", description: "A key `zaxy config list` shows", required: true },
    { name: "VALUE", description: "The new value (JSON, or text)", required: true },
  ],
  examples: ["zaxy config set fleet_enabled true", "zaxy config set long_horizon_recent_window 80", "zaxy config set hook_strictness audit"],
  async run(ctx) {
    const [key, text] = ctx.positionals;
    const { checkConfigObject, configSetting, currentConfigObject, parseConfigValue, writeConfigObject } = await loadSettings();
    const setting = configSetting(key);
    const root = ctx.global.eventloomPath;
    const object = currentConfigObject(root);
    const value = parseConfigValue(text);
    if (value === null) throw inputError("usage", `zaxy config set: use \`zaxy config unset ${key}\` to remove a key`, { field: "VALUE" });
    setting.refuseOnSet?.(value);
    const previous = object[key] ?? null;
    const next = { ...object, [key]: value };
    checkConfigObject(root, next);
    const file = writeConfigObject(root, next);
    const shown = setting.display?.(value, root) ?? value;
    emit(ctx, "zaxy.config.set.v1", { key, value: shown, previous: previous === null ? null : setting.display?.(previous, root) ?? previous, config_path: file }, () => `${key} = ${show(shown)} (${file})`);
    return 0;
  },
});

const configUnsetCommand = defineCommand({
  name: "unset",
  writesRoot: true,
  store: "self",
  summary: "Remove one config key (its default applies again)",
  description: "Removes KEY from <root>/config.json; its default applies again. A key the file does not set is\nnot an error (removed false). --json prints {key, removed, default, config_path}.",
  options: {},
  positionals: [{ name: "KEY", description: "A key `zaxy config list` shows", required: true }],
  examples: ["zaxy config unset store"],
  async run(ctx) {
    const key = ctx.positionals[0];
    const { checkConfigObject, configSetting, currentConfigObject, writeConfigObject } = await loadSettings();
    const setting = configSetting(key);
    const root = ctx.global.eventloomPath;
    const object = currentConfigObject(root);
    const removed = object[key] !== undefined;
    let file = configPath(root);
    if (removed) {
      const { [key]: _dropped, ...rest } = object;
      checkConfigObject(root, rest);
      file = writeConfigObject(root, rest);
    }
    emit(ctx, "zaxy.config.unset.v1", { key, removed, default: setting.defaultValue, config_path: file }, () =>
      removed ? `${key} removed; the default ${show(setting.defaultValue)} applies` : `${key} was not set`);
    return 0;
  },
});

export const configGroup = defineGroup({
  name: "config",
  summary: "Read and change the root's config.json: list, get, set, unset",
  description:
    "The settings zaxy reads from <root>/config.json (envelope, fleet plane, forgetting, long\n" +
    "horizon, evolution gate tiers, store URL, pre-commit hook strictness), without hand-editing:\n" +
    "every value is checked by the engine's own readers before it is written.",
  children: [configListCommand, configGetCommand, configSetCommand, configUnsetCommand],
});
