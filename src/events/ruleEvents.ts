/**
 * The event types of a preventive rule. Their own module so that the rule status replay in folds/
 * reads them without importing governance/'s outcome learning.
 */
export const ruleProposedEventType = "memory.rule.proposed";
export const ruleGeneratedEventType = "memory.rule.generated";
