/**
 * What reinforcement does to a ranking: the net feedback of an entity (folds/reinforcement.ts,
 * replayed from the log at read time) scales the fused score of every version of that entity:
 * `factor = clamp(1 + reinforcementStep × net, reinforcementFactorMin, reinforcementFactorMax)`.
 * The bounds keep feedback a nudge among near-equal answers: a memory the query does not match
 * cannot be lifted over one it matches well, and no memory is ever hidden by feedback alone.
 *
 * What must never change without a note in docs/checkout.md: these rules and constants (and the
 * counting rules of folds/reinforcement.ts), since agents learn to give feedback by what it does
 * to the next ranking.
 *
 * @example
 * reinforcementFactor(2) // 1.2
 * reinforcementFactor(-9) // 0.5
 */

/** Score change per net feedback event. */
export const reinforcementStep = 0.1;
/** Lowest factor: five or more net `irrelevant` halve the score, never more. */
export const reinforcementFactorMin = 0.5;
/** Highest factor: five or more net `used`/`helpful` raise the score by half, never more. */
export const reinforcementFactorMax = 1.5;

export function reinforcementFactor(net: number): number {
  return Math.min(reinforcementFactorMax, Math.max(reinforcementFactorMin, 1 + reinforcementStep * net));
}
