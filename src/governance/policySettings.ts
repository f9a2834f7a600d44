/**
 * Where the evolution policy comes from, in increasing precedence: built-in defaults
 * (auto_with_rollback, 0.85, 86400 s), `<root>/config.json`, environment variables, explicit
 * overrides (CLI flags, MCP arguments). Each setting is resolved on its own, as Python's
 * `Settings` does: an env `ZAXY_EVOLUTION_OP_AUTONOMY` replaces the config's whole op map, while
 * explicit per-op overrides are merged over the resolved map one op at a time (a flag is about
 * one op). A per-op tier from any layer still beats the default tier, because the gate asks
 * `opTiers[op] ?? defaultTier`.
 *
 * | setting        | config.json key                     | env                                     |
 * |----------------|-------------------------------------|-----------------------------------------|
 * | default tier   | evolution_autonomy_default          | ZAXY_EVOLUTION_AUTONOMY_DEFAULT         |
 * | threshold      | evolution_confidence_threshold      | ZAXY_EVOLUTION_CONFIDENCE_THRESHOLD     |
 * | rollback window| evolution_rollback_window_seconds   | ZAXY_EVOLUTION_ROLLBACK_WINDOW_SECONDS  |
 * | per-op tiers   | evolution_op_autonomy "op=tier,…"   | ZAXY_EVOLUTION_OP_AUTONOMY              |
 * | per-op thresh. | evolution_op_thresholds "op=0.9,…"  | ZAXY_EVOLUTION_OP_THRESHOLDS            |
 *
 * Every bad value is bad input (exit 2) naming the setting where it came from.
 */
import { inputError } from "../errors.ts";
import { configPath, readConfigObject } from "../eventloom/root.ts";
import {
  type AutonomyTier,
  defaultEvolutionPolicy,
  type EvolutionOp,
  type EvolutionPolicy,
  parseAutonomyTier,
  parseEvolutionOp,
  parseRollbackWindowSeconds,
  parseUnitInterval,
} from "./evolutionGate.ts";

export const evolutionConfigKeys = {
  defaultTier: "evolution_autonomy_default",
  confidenceThreshold: "evolution_confidence_threshold",
  rollbackWindowSeconds: "evolution_rollback_window_seconds",
  opTiers: "evolution_op_autonomy",
  opThresholds: "evolution_op_thresholds",
} as const;

export const evolutionEnvNames = {
  defaultTier: "ZAXY_EVOLUTION_AUTONOMY_DEFAULT",
  confidenceThreshold: "ZAXY_EVOLUTION_CONFIDENCE_THRESHOLD",
  rollbackWindowSeconds: "ZAXY_EVOLUTION_ROLLBACK_WINDOW_SECONDS",
  opTiers: "ZAXY_EVOLUTION_OP_AUTONOMY",
  opThresholds: "ZAXY_EVOLUTION_OP_THRESHOLDS",
} as const;

type Setting = keyof typeof evolutionConfigKeys;

/**
 * Explicit overrides (highest precedence). Values may be typed or raw strings from flags; they
 * are validated. `fieldNames` says how an error should name each one (e.g. `{opTiers: "--tier"}`).
 */
export interface EvolutionPolicyOverrides {
  defaultTier?: string;
  confidenceThreshold?: number | string;
  rollbackWindowSeconds?: number | string;
  opTiers?: Partial<Record<string, string>>;
  opThresholds?: Partial<Record<string, number | string>>;
  fieldNames?: Partial<Record<Setting, string>>;
  /** Environment to read; default `process.env`. Tests pass their own. */
  env?: Record<string, string | undefined>;
}

/**
 * The effective policy for an Eventloom root.
 *
 * @example
 * resolveEvolutionPolicy(".eventloom", { opTiers: { rule_generate: "require_review" }, fieldNames: { opTiers: "--tier" } });
 */
export function resolveEvolutionPolicy(root: string, overrides: EvolutionPolicyOverrides = {}): EvolutionPolicy {
  const config = readEvolutionConfig(root);
  const env = overrides.env ?? process.env;
  const policy: EvolutionPolicy = {
    defaultTier: defaultEvolutionPolicy.defaultTier,
    confidenceThreshold: defaultEvolutionPolicy.confidenceThreshold,
    rollbackWindowSeconds: defaultEvolutionPolicy.rollbackWindowSeconds,
    opTiers: {},
    opThresholds: {},
  };
  const layers: { values: Partial<Record<Setting, unknown>>; name: (setting: Setting) => string }[] = [
    { values: config.values, name: (s) => `${config.file} ${evolutionConfigKeys[s]}` },
    {
      values: Object.fromEntries(
        (Object.keys(evolutionEnvNames) as Setting[])
          .map((s) => [s, env[evolutionEnvNames[s]]] as const)
          .filter(([, v]) => v !== undefined && v.trim() !== ""),
      ),
      name: (s) => `environment variable ${evolutionEnvNames[s]}`,
    },
  ];
  for (const { values, name } of layers) {
    if (values.defaultTier !== undefined) policy.defaultTier = parseAutonomyTier(values.defaultTier, name("defaultTier"));
    if (values.confidenceThreshold !== undefined) {
      policy.confidenceThreshold = parseUnitInterval(values.confidenceThreshold, name("confidenceThreshold"));
    }
    if (values.rollbackWindowSeconds !== undefined) {
      policy.rollbackWindowSeconds = parseRollbackWindowSeconds(values.rollbackWindowSeconds, name("rollbackWindowSeconds"));
    }
    if (values.opTiers !== undefined) {
      policy.opTiers = parseOpMap(values.opTiers, name("opTiers"), (v, f) => parseAutonomyTier(v, f)) as Partial<Record<EvolutionOp, AutonomyTier>>;
    }
    if (values.opThresholds !== undefined) {
      policy.opThresholds = parseOpMap(values.opThresholds, name("opThresholds"), (v, f) => parseUnitInterval(v, f));
    }
  }
  const flag = (s: Setting) => overrides.fieldNames?.[s] ?? s;
  if (overrides.defaultTier !== undefined) policy.defaultTier = parseAutonomyTier(overrides.defaultTier, flag("defaultTier"));
  if (overrides.confidenceThreshold !== undefined) {
    policy.confidenceThreshold = parseUnitInterval(overrides.confidenceThreshold, flag("confidenceThreshold"));
  }
  if (overrides.rollbackWindowSeconds !== undefined) {
    policy.rollbackWindowSeconds = parseRollbackWindowSeconds(overrides.rollbackWindowSeconds, flag("rollbackWindowSeconds"));
  }
  for (const [op, tier] of Object.entries(overrides.opTiers ?? {})) {
    if (tier === undefined) continue;
    policy.opTiers[parseEvolutionOp(op, flag("opTiers"))] = parseAutonomyTier(tier, flag("opTiers"));
  }
  for (const [op, threshold] of Object.entries(overrides.opThresholds ?? {})) {
    if (threshold === undefined) continue;
    policy.opThresholds[parseEvolutionOp(op, flag("opThresholds"))] = parseUnitInterval(threshold, flag("opThresholds"));
  }
  return policy;
}

/**
 * `"op=value,op=value"` (blank entries ignored), or in config.json also an object
 * `{"op": value}`. Unknown ops, missing `=` and bad values are refused naming `field`.
 */
export function parseOpMap<T>(raw: unknown, field: string, parseValue: (value: unknown, field: string) => T): Partial<Record<EvolutionOp, T>> {
  const out: Partial<Record<EvolutionOp, T>> = {};
  let entries: [string, unknown][];
  if (typeof raw === "string") {
    entries = [];
    for (const part of raw.split(",")) {
      const item = part.trim();
      if (item === "") continue;
      const eq = item.indexOf("=");
      if (eq <= 0) {
        throw inputError("invalid_evolution_setting", `${field}: entry ${JSON.stringify(item)} must have the form op=value`, {
          field,
          expected: "op=value,op=value",
        });
      }
      entries.push([item.slice(0, eq).trim(), item.slice(eq + 1).trim()]);
    }
  } else if (raw !== null && typeof raw === "object" && !Array.isArray(raw)) {
    entries = Object.entries(raw as Record<string, unknown>);
  } else {
    throw inputError("invalid_evolution_setting", `${field} must be a string of the form op=value,op=value (got ${JSON.stringify(raw)})`, {
      field,
      expected: "op=value,op=value",
    });
  }
  for (const [op, value] of entries) out[parseEvolutionOp(op, `${field} (op)`)] = parseValue(value, `${field} [${op}]`);
  return out;
}

interface EvolutionConfig {
  file: string;
  values: Partial<Record<Setting, unknown>>;
}

/** The evolution keys of `<root>/config.json`; a missing file means none. */
function readEvolutionConfig(root: string): EvolutionConfig {
  const file = configPath(root);
  const object = readConfigObject(root);
  if (object === undefined) return { file, values: {} };
  const values: Partial<Record<Setting, unknown>> = {};
  for (const setting of Object.keys(evolutionConfigKeys) as Setting[]) {
    const value = object[evolutionConfigKeys[setting]];
    if (value !== undefined && value !== null) values[setting] = value;
  }
  return { file, values };
}
