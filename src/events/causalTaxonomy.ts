/**
 * The causal vocabulary (DESIGN §7; reference §3.1). A causal relation is one of seven bare
 * types; the projected graph stores it as the label `causal_<type>`. Only these labels are causal
 * memory: any other `causal_*` label in a graph is ignored by every causal read and diagnostic.
 * Review statuses record a disposition; the only authority status is `non_authoritative`, so no
 * causal edge ever becomes authoritative state.
 */
import { inputError } from "../errors.ts";

/** The taxonomy, in the order the design lists it. */
export const causalRelationTypeList = ["caused", "enabled", "blocked", "prevented", "regressed", "fixed", "explained"] as const;
export type CausalRelationType = (typeof causalRelationTypeList)[number];

export const causalRelationTypes: ReadonlySet<string> = new Set(causalRelationTypeList);

export const causalReviewStatusList = ["proposed", "accepted", "rejected", "deferred", "conflicted"] as const;
export const causalReviewStatuses: ReadonlySet<string> = new Set(causalReviewStatusList);
/** What a new causal edge is until someone reviews it. */
export const defaultCausalReviewStatus = "proposed";

export const nonAuthoritative = "non_authoritative";
export const causalAuthorityStatuses: ReadonlySet<string> = new Set([nonAuthoritative]);

/** Prefix of the graph label of every causal relation. */
export const causalLabelPrefix = "causal_";

/** Sorted by code point, as Python's `", ".join(sorted(...))` lists them in its messages. */
export function sortedChoices(values: Iterable<string>): string {
  return [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).join(", ");
}

/** Whether `value` is one of the seven bare causal relation types. */
export function isCausalRelationType(value: unknown): value is CausalRelationType {
  return typeof value === "string" && causalRelationTypes.has(value);
}

/**
 * The graph label of a bare relation type; anything else (`causal_caused`, `CAUSES`) is refused.
 *
 * @example
 * causalGraphLabel("fixed"); // "causal_fixed"
 */
export function causalGraphLabel(relationType: string, field = "relation_type"): string {
  if (!isCausalRelationType(relationType)) {
    throw inputError(
      "invalid_causal_relation",
      `${field} must be one of: ${sortedChoices(causalRelationTypes)}; got ${JSON.stringify(relationType)}`,
      { field, expected: `one of ${sortedChoices(causalRelationTypes)}`, actual: String(relationType) },
    );
  }
  return causalLabelPrefix + relationType;
}

/** The bare type of a registered causal label (`causal_fixed` → `fixed`), else undefined. */
export function causalRelationOfLabel(label: string): CausalRelationType | undefined {
  if (!label.startsWith(causalLabelPrefix)) return undefined;
  const bare = label.slice(causalLabelPrefix.length);
  return isCausalRelationType(bare) ? bare : undefined;
}
