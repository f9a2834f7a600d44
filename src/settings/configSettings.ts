/**
 * The keys of `<root>/config.json` a user may set (`zaxy config get|set|unset|list`), each with
 * what it does and its default. A new value is checked by the readers the engine itself uses:
 * every reader runs on the candidate object in memory (`withCandidateConfig`), so `config set`
 * refuses exactly what a later command would refuse (exit 2), and nothing is written then.
 */
import * as fs from "node:fs";
import { fileSystemReason, configPath, configSchema, readConfig, readConfigObject, readFleetEnabled, readForgettingEnabled, readLongHorizonConfig, withCandidateConfig } from "../eventloom/root.ts";
import { inputError, ioError } from "../errors.ts";
import { fleetDefaultTrustTierKey, fleetEnabledKey, readFleetDefaultTrustTier } from "../fleet/fleetConfig.ts";
import { autonomyTiers, defaultEvolutionPolicy, evolutionOps } from "../governance/evolutionGate.ts";
import { evolutionConfigKeys, resolveEvolutionPolicy } from "../governance/policySettings.ts";
import { redactStoreUrl, resolveStoreUrl, urlPassword } from "../store/storeUrl.ts";
import { readHookPolicy } from "../hooks/hookPolicy.ts";
import { allowedHostsConfigKey, allowedOriginsConfigKey, readAllowedHostsConfig } from "../mcp/httpHostPolicy.ts";
import { embeddingApiKeyEnvDefault, embeddingConfigKeys, embeddingTimeoutMsDefault, isEmbeddingSecretKey, readEmbeddingSettings } from "../semantic/embeddingSettings.ts";

export interface ConfigSetting {
  key: string;
  description: string;
  /** The value when config.json does not set it. */
  defaultValue: unknown;
  /** Runs the engine's reader of this key on a root (throws its invalid_config error). */
  check(root: string): void;
  /** The value as `config get` shows it (the store URL without its password). */
  display?(value: unknown, root: string): unknown;
  /** Refuses a value `config set` must not write though the reader takes it (a password in the store URL). */
  refuseOnSet?(value: unknown): void;
}

const evolution = (root: string) => void resolveEvolutionPolicy(root, { env: {} });
const embedding = (root: string) => void readEmbeddingSettings(root);

export const configSettings: readonly ConfigSetting[] = [
  { key: "envelope", description: "Line format new logs start with: v1 (eventloom.v1) or legacy (Python's zaxy.legacy)", defaultValue: "v1", check: (root) => void readConfig(root) },
  { key: fleetEnabledKey, description: "The fleet plane is on (zaxy help --topic fleet; docs/fleet.md)", defaultValue: false, check: (root) => void readFleetEnabled(root) },
  { key: fleetDefaultTrustTierKey, description: "Trust tier of a newly enrolled agent: untrusted, member, trusted or steward", defaultValue: "member", check: (root) => void readFleetDefaultTrustTier(root) },
  { key: "forgetting_enabled", description: "Appended memory events are sealed erasable (zaxy help forgetting; docs/forgetting.md)", defaultValue: false, check: (root) => void readForgettingEnabled(root) },
  { key: "long_horizon_enabled", description: "Checkouts use the two-tier long-horizon plan by default (zaxy help long-horizon; docs/long-horizon.md)", defaultValue: false, check: (root) => void readLongHorizonConfig(root) },
  { key: "long_horizon_recent_window", description: "Events the long-horizon plan keeps at full detail (integer >= 1)", defaultValue: 50, check: (root) => void readLongHorizonConfig(root) },
  { key: evolutionConfigKeys.defaultTier, description: `Gate tier for memory evolution ops without their own: ${autonomyTiers.join(", ")} (zaxy help governance; docs/governance.md)`, defaultValue: defaultEvolutionPolicy.defaultTier, check: evolution },
  { key: evolutionConfigKeys.confidenceThreshold, description: "Confidence an op needs to be applied without review (0..1)", defaultValue: defaultEvolutionPolicy.confidenceThreshold, check: evolution },
  { key: evolutionConfigKeys.rollbackWindowSeconds, description: "How long an applied op may be rolled back, in seconds", defaultValue: defaultEvolutionPolicy.rollbackWindowSeconds, check: evolution },
  { key: evolutionConfigKeys.opTiers, description: `Gate tier per op (${evolutionOps.join(", ")}): {"op": tier} or "op=tier,op=tier"`, defaultValue: {}, check: evolution },
  { key: evolutionConfigKeys.opThresholds, description: "Confidence threshold per op: {\"op\": 0.9} or \"op=0.9,op=0.8\"", defaultValue: {}, check: evolution },
  {
    key: "store",
    description: "Shared PostgreSQL store URL, postgres://... (zaxy help --topic store; docs/store.md); --store and ZAXY_STORE win",
    defaultValue: null,
    check: (root) => void resolveStoreUrl(undefined, {}, root),
    display: (value, root) => (typeof value === "string" && value !== "" ? resolveStoreUrl(undefined, {}, root)?.redacted ?? value : value),
    // config.json is a plain file that other users may read and tools copy around: no password in it.
    refuseOnSet: (value) => {
      if (typeof value !== "string" || (urlPassword(value) === undefined && !/[?&]password=/i.test(value))) return;
      throw inputError("password_in_config", `Refusing to write the store URL ${JSON.stringify(redactStoreUrl(value))} to config.json: it carries a password, and config.json is a plain file. Nothing was written.`, {
        field: "VALUE",
        hint: "set the URL without the password, and put the password in PGPASSFILE (~/.pgpass, mode 0600) or PGPASSWORD; or pass the whole URL in ZAXY_STORE",
      });
    },
  },
  {
    key: allowedHostsConfigKey,
    description: "zaxy serve --http also answers these Host names (NAME or NAME:PORT), besides its address and localhost (zaxy help mcp; docs/mcp.md#security)",
    defaultValue: [],
    check: (root) => void readAllowedHostsConfig(root),
  },
  {
    key: allowedOriginsConfigKey,
    description: "zaxy serve --http also answers browser requests from these origins (http(s)://NAME[:PORT]) (zaxy help mcp; docs/mcp.md#security)",
    defaultValue: [],
    check: (root) => void readAllowedHostsConfig(root),
  },
  { key: "hook_strictness", description: "What the pre-commit hook refuses: integrity (a log that does not verify or was replaced by a lossy compaction) or audit (also an unsafe compaction audit) (zaxy help --topic hooks; docs/hooks.md)", defaultValue: "integrity", check: (root) => void readHookPolicy(root) },
  { key: "hook_recall_threshold", description: "With hook_strictness audit: the identity recall below which a staged log is refused (0..1)", defaultValue: 1, check: (root) => void readHookPolicy(root) },
  { key: embeddingConfigKeys.provider, description: "Model of the semantic lane: bundled (offline, in the binary), openai (an OpenAI-compatible server) or ollama; a server needs embedding.url and embedding.model set first (zaxy help retrieval; docs/retrieval.md)", defaultValue: "bundled", check: embedding },
  { key: embeddingConfigKeys.url, description: "Base URL of the embedding server, http(s)://HOST[:PORT][/PATH], e.g. http://127.0.0.1:11434 or https://api.openai.com", defaultValue: null, check: embedding },
  { key: embeddingConfigKeys.model, description: "Model name the embedding server knows, e.g. text-embedding-3-small or nomic-embed-text", defaultValue: null, check: embedding },
  { key: embeddingConfigKeys.dimensions, description: "Vector length to ask for (sent to OpenAI as dimensions) and to expect (integer >= 1); unset: the model's own", defaultValue: null, check: embedding },
  { key: embeddingConfigKeys.timeoutMs, description: "How long one request to the embedding server may take, in milliseconds (integer >= 1)", defaultValue: embeddingTimeoutMsDefault, check: embedding },
  {
    key: embeddingConfigKeys.apiKeyEnv,
    description: "NAME of the environment variable holding the embedding server's API key (the key is never stored in config.json)",
    defaultValue: embeddingApiKeyEnvDefault,
    check: embedding,
  },
];

export function configSetting(key: string): ConfigSetting {
  const setting = configSettings.find((s) => s.key === key);
  if (setting === undefined) {
    throw inputError("unknown_config_key", `Unknown config key ${JSON.stringify(key)}`, {
      field: "KEY",
      expected: configSettings.map((s) => s.key).join("|"),
      hint: isEmbeddingSecretKey(key)
        ? `config.json never holds an API key: export it in the environment variable ${embeddingConfigKeys.apiKeyEnv} names (default ${embeddingApiKeyEnvDefault})`
        : "`zaxy config list` shows every key with its value and what it does",
    });
  }
  return setting;
}

/**
 * A value as typed on the command line: JSON when it parses (`true`, `50`, `{"a": 1}`, `"x"`),
 * otherwise the text itself (`legacy`, `postgres://...`).
 */
export function parseConfigValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Checks `object` as `<root>/config.json` with every reader (in memory); throws the first reader's error. */
export function checkConfigObject(root: string, object: { [key: string]: unknown }): void {
  withCandidateConfig(root, object, () => {
    for (const setting of configSettings) setting.check(root);
  });
}

/** Writes `object` as `<root>/config.json` atomically (a temporary file renamed into place). */
export function writeConfigObject(root: string, object: { [key: string]: unknown }): string {
  const file = configPath(root);
  const temp = `${file}.tmp-${process.pid}`;
  try {
    fs.mkdirSync(root, { recursive: true });
    // Exclusive: a leftover temp file or a link planted at its name is removed, never written through.
    fs.rmSync(temp, { force: true });
    fs.writeFileSync(temp, JSON.stringify({ ...object, schema: configSchema }, null, 2) + "\n", { flag: "wx" });
    // Renamed into place: a crash or a full disk leaves the old file whole, never half a new one.
    fs.renameSync(temp, file);
  } catch (error) {
    fs.rmSync(temp, { force: true });
    throw ioError("write_failed", `Cannot write ${file}: ${fileSystemReason(error)}; it is unchanged`, { field: "config.json" });
  }
  return file;
}

/** config.json as it is now ({} when missing); an unreadable file is the reader's error. */
export function currentConfigObject(root: string): { [key: string]: unknown } {
  return { ...(readConfigObject(root) ?? {}) };
}
