/**
 * Default `--cluster-threshold` (cosine distance); see docs/compaction.md for how it was chosen.
 * A module of its own so `zaxy compact --help` reads it without loading the clustering code.
 */
export const defaultClusterThreshold = 0.2;
