/**
 * "Did you mean" for command words and long options: the one known name a mistyped word most
 * likely meant, or none. A suggestion is only worth printing when it is almost surely right, so
 * it must be close (a couple of edits, or the start of exactly one name) and unambiguous.
 *
 * @example
 * closestName("memroy", ["memory", "serve", "verify"]); // "memory"
 * closestName("lim", ["limit", "json"]); // "limit" (the start of one name)
 * closestName("frob", ["memory", "serve"]); // undefined
 */
import { editDistance } from "../editDistance.ts";

/** Edits that still read as a typo: 2, but 1 for words of 3 characters or fewer, which 2 edits turn into almost anything. */
function typoEditsMax(word: string): number {
  return word.length <= 3 ? 1 : 2;
}

/** A prefix shorter than this is too little to guess from (`-l` could be anything). */
const prefixCharsMin = 2;

/** The one name in `names` that `word` most likely meant, compared ignoring case; undefined when none is close or two tie. */
export function closestName(word: string, names: readonly string[]): string | undefined {
  const lowered = word.toLowerCase();
  if (lowered.length === 0 || names.includes(word)) return undefined;
  const editsMax = typoEditsMax(lowered);
  let best: string[] = [];
  let bestDistance = Infinity;
  for (const name of names) {
    // Lengths further apart than a typo's edits cannot be one (and the distance is O(n·m)).
    if (Math.abs(name.length - lowered.length) > editsMax) continue;
    const distance = editDistance(lowered, name.toLowerCase());
    if (distance < bestDistance) [best, bestDistance] = [[name], distance];
    else if (distance === bestDistance) best.push(name);
  }
  if (bestDistance <= editsMax && best.length === 1) return best[0];
  if (lowered.length < prefixCharsMin) return undefined;
  const extending = names.filter((name) => name.toLowerCase().startsWith(lowered));
  return extending.length === 1 ? extending[0] : undefined;
}

/**
 * The long option `flag` (`--limt`, `--limt=3`) most likely meant, as `--name`, among `options`
 * (their names and aliases); undefined for a short flag or when none is close.
 *
 * @example
 * closestOption("--limt", { limit: { type: "string", description: "" } }); // "--limit"
 */
export function closestOption(flag: string, options: Record<string, { aliases?: string[] }>): string | undefined {
  const long = /^--([^=]+)/.exec(flag);
  if (long === null) return undefined;
  // An older spelling that is close suggests the option's name, the one --help shows first.
  const canonical = new Map(Object.entries(options).flatMap(([name, spec]) => [[name, name], ...(spec.aliases ?? []).map((alias) => [alias, name] as [string, string])]));
  const closest = closestName(long[1], [...canonical.keys()]);
  return closest === undefined ? undefined : `--${canonical.get(closest)}`;
}
