/**
 * Inflections of one word, for the keyword lanes and checkout's query match: a light suffix
 * stemmer (`stemTerm`) and the surface forms of a query word that share its stem
 * (`inflectionVariants`), so "specs" finds a memory that says "spec" and "migrating" one that says
 * "migration".
 *
 * The stem is a key, not a word: it needs only be applied alike to the query and the memory text.
 * The keyword index keeps the words as written (Python-compatible, terms.ts); the stemmed match is
 * made at query time by looking the query word's variants up in that index, so the on-disk index
 * and its statistics do not change.
 *
 * @example
 * stemTerm("specs") === stemTerm("spec") // true
 * inflectionVariants("specs").includes("spec") // true
 */

const doubledEnding = /([b-df-hj-np-tv-z])\1$/;

/**
 * A light suffix stemmer: inflections and common derivations fold to one key, applied alike to
 * the query and the memory text, so the key needs only be consistent, never a real word.
 *
 * @example
 * stemTerm("billing") // "bill"
 * stemTerm("migrations") === stemTerm("migrate") // true
 * stemTerm("decision") === stemTerm("decided") // true
 * stemTerm("approval") === stemTerm("approve") // true
 */
export function stemTerm(term: string): string {
  if (term.length <= 3 || !/^[a-z]+$/.test(term)) return term;
  let stem = term;
  if (stem.endsWith("ies") && stem.length > 4) stem = `${stem.slice(0, -3)}y`;
  else if (/(ss|us|is)$/.test(stem)) { /* not a plural */ }
  else if (/(sses|xes|zes|ches|shes)$/.test(stem)) stem = stem.slice(0, -2);
  else if (stem.endsWith("s")) stem = stem.slice(0, -1);
  // decision/decide, expansion/expand, conclusion/conclude: the noun's stem plus "d".
  if (/[^s]sions?$/.test(stem) && stem.length > 6) return `${stem.replace(/sions?$/, "")}d`;
  for (const suffix of ["ments", "ment", "ings", "ing", "ions", "ion", "als", "al", "ed", "er", "ly"]) {
    if (stem.endsWith(suffix) && stem.length - suffix.length >= 3) {
      stem = stem.slice(0, -suffix.length);
      if (doubledEnding.test(stem) && !stem.endsWith("ll") && !stem.endsWith("ss")) stem = stem.slice(0, -1);
      break;
    }
  }
  if (stem.endsWith("e") && stem.length > 4) stem = stem.slice(0, -1);
  return stem;
}

/** Suffixes a variant's base may have carried: stripped to find the base, appended to form variants. */
const inflectionSuffixes = ["s", "es", "ed", "d", "ing", "er", "ers", "ion", "ions", "ment", "ments", "al", "ly"] as const;

/**
 * The other surface forms of `word` that `stemTerm` folds to the same stem, in code-point order
 * (a few dozen at most): the forms a keyword lane looks up besides the word itself.
 * Words of three letters or fewer, or with a digit, have none (`stemTerm` leaves them alone).
 *
 * @example
 * inflectionVariants("specs") // ["spec", ...]; inflectionVariants("migrations") includes "migrate" and "migrating"
 */
export function inflectionVariants(word: string): string[] {
  if (word.length <= 3 || !/^[a-z]+$/.test(word)) return [];
  const stem = stemTerm(word);
  const bases = new Set<string>([word, stem, `${stem}e`]);
  if (word.endsWith("ies")) bases.add(`${word.slice(0, -3)}y`);
  for (const suffix of inflectionSuffixes) {
    if (!word.endsWith(suffix) || word.length - suffix.length < 2) continue;
    const base = word.slice(0, -suffix.length);
    bases.add(base);
    bases.add(`${base}e`);
    if (doubledEnding.test(base)) bases.add(base.slice(0, -1));
  }
  const forms = new Set<string>();
  for (const base of bases) {
    forms.add(base);
    if (base.endsWith("y") && base.length > 2) forms.add(`${base.slice(0, -1)}ies`);
    const root = base.endsWith("e") ? base.slice(0, -1) : base;
    const last = base.at(-1) ?? "";
    for (const suffix of inflectionSuffixes) {
      const vowelSuffix = /^[aeiou]/.test(suffix);
      if (suffix === "d" && !base.endsWith("e")) continue;
      // move → moved, moving: a final "e" gives way to a vowel suffix.
      forms.add(vowelSuffix ? `${root}${suffix}` : `${base}${suffix}`);
      // stop → stopped, stopping: the doubled consonant before a vowel suffix.
      if (vowelSuffix && root === base && /[b-df-hj-np-tv-z]/.test(last) && !"wxy".includes(last)) forms.add(`${base}${last}${suffix}`);
    }
  }
  forms.delete(word);
  const out: string[] = [];
  for (const form of forms) if (form.length >= 2 && stemTerm(form) === stem) out.push(form);
  return out.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
