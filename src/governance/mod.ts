/**
 * Governance: the evolution gate (which evolutions may auto-apply, recorded as
 * `evolution.gate.evaluated`), its policy settings, and outcome learning (outcomes that
 * propose rules through the gate). DESIGN §10, reference §5.1–5.2.
 *
 * @example
 * import { evaluateEvolutionGate, resolveEvolutionPolicy } from "./mod.ts";
 * const decision = evaluateEvolutionGate("promote", 0.9, resolveEvolutionPolicy(".eventloom"));
 */
export * from "./evolutionGate.ts";
export * from "./policySettings.ts";
export * from "./outcomeLearning.ts";
export * from "../events/ruleEvents.ts";
export * from "../folds/ruleStatus.ts";
