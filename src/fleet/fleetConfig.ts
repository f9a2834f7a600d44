/**
 * The fleet plane's settings in `<root>/config.json` (design I7 §6, "config.py Settings"):
 *
 * - `fleet_enabled` (default false): the whole plane is opt-in. With it off every `zaxy fleet`
 *   command and every MCP fleet tool refuses (`fleet_disabled`, exit 2) before reading or
 *   writing anything, and checkout ignores `--fleet-id`.
 * - `fleet_default_trust_tier` (default `member`): the tier of an enrolment that names none.
 *
 * A value of the wrong type is bad input naming the key (`invalid_config`, exit 2), like every
 * other config.json key: a typo must not silently open (or close) the plane.
 *
 * @example
 * requireFleetEnabled(".eventloom", "fleet create"); // throws fleet_disabled unless enabled
 * readFleetDefaultTrustTier(".eventloom");           // "member"
 */
import { inputError } from "../errors.ts";
import { configPath, readConfigObject, readFleetEnabled } from "../eventloom/root.ts";
import { defaultTrustTier, type TrustTier, trustTiers } from "./vocabulary.ts";

export { readFleetEnabled };

/** The config.json key that gates the plane, as error messages name it. */
export const fleetEnabledKey = "fleet_enabled";
export const fleetDefaultTrustTierKey = "fleet_default_trust_tier";

/**
 * Refuses (exit 2, `fleet_disabled`) an operation of the fleet plane when the root's
 * config.json does not set `fleet_enabled: true`. `action` names what was attempted.
 */
export function requireFleetEnabled(root: string, action: string): void {
  if (readFleetEnabled(root)) return;
  throw inputError("fleet_disabled", `Cannot ${action}: the fleet plane is off (config.json ${fleetEnabledKey} is not true in ${configPath(root)})`, {
    field: `config.json ${fleetEnabledKey}`,
    expected: "true",
    hint: `enable it with \`zaxy init --fleet\` (adds "${fleetEnabledKey}": true to config.json)`,
  });
}

/** `fleet_default_trust_tier`: one of untrusted, member (default), trusted, steward. */
export function readFleetDefaultTrustTier(root: string): TrustTier {
  const value = readConfigObject(root)?.[fleetDefaultTrustTierKey] ?? defaultTrustTier;
  if (typeof value !== "string" || !(trustTiers as readonly string[]).includes(value)) {
    throw inputError("invalid_config", `${configPath(root)}: ${fleetDefaultTrustTierKey} must be one of ${trustTiers.join(", ")}, got ${JSON.stringify(value)}`, {
      field: `config.json ${fleetDefaultTrustTierKey}`,
      expected: trustTiers.join("|"),
    });
  }
  return value as TrustTier;
}
