/**
 * Other names of the same thing, for the keyword lanes and checkout's query match: a fixed
 * lexicon of common engineering short forms and their long forms, so a memory that says
 * "Migrated the database to PostgreSQL 16" answers "postgres", "pg16" and "db".
 *
 * - A group lists the names one thing goes by; a name is one word or several ("continuous
 *   integration"). A word may belong to more than one group ("auth" is authentication and
 *   authorization).
 * - A word names a group when it is one of its one-word names, or the plural of one ("repos",
 *   "dbs", "databases"). Nothing else is inferred: the lexicon is the whole rule.
 * - A versioned name is a one-word name followed by up to four digits, fused ("pg16") or as two
 *   words ("postgresql 16"): its variants are the other names, the version alone, and the other
 *   one-word names fused with the version ("postgresql16").
 * - Variants are terms as the keyword index holds them (terms.ts): lowercase `[a-z0-9]` runs, a
 *   multi-word name split into its words.
 *
 * Deterministic: variants come in lexicon order. Adding or removing a name changes which memories
 * a query finds (never the index on disk: variants are looked up at query time).
 *
 * @example
 * nameVariantTerms(["postgres"]) // ["postgresql", "pg", "psql"]
 * nameVariantTerms(["pg16"])     // ["postgresql", "postgres", "pg", "psql", "16", "postgresql16", "postgres16", "psql16"]
 * nameVariantTerms(["db"])       // ["database"]
 */
import { keywordTerms } from "./terms.ts";

/**
 * The lexicon. Short forms that are also everyday words in another sense are left out ("go",
 * "it", "mr", "cd", "tf", "es"): a variant pass adds candidates, and a wrong sense would add
 * noise to questions that have nothing to do with engineering.
 */
export const nameGroups: readonly (readonly string[])[] = [
  ["postgresql", "postgres", "pg", "psql"],
  ["database", "db"],
  ["mongodb", "mongo"],
  ["elasticsearch", "elastic"],
  ["kubernetes", "k8s", "kube"],
  ["javascript", "js", "ecmascript"],
  ["typescript", "ts"],
  ["python", "py"],
  ["node.js", "nodejs"],
  ["repository", "repo"],
  ["authentication", "authn", "auth"],
  ["authorization", "authz", "auth"],
  ["configuration", "config", "cfg"],
  ["environment", "env"],
  ["production", "prod"],
  ["development", "dev"],
  ["dependency", "dep", "deps"],
  ["continuous integration", "ci"],
  ["pull request", "pr"],
  ["github", "gh"],
  ["amazon web services", "aws"],
  ["google cloud platform", "gcp", "google cloud"],
  ["application", "app"],
  ["documentation", "doc", "docs"],
  ["infrastructure", "infra"],
  ["administrator", "admin"],
  ["performance", "perf"],
  ["specification", "spec"],
  ["library", "lib"],
  ["directory", "dir"],
  ["message", "msg"],
  ["information", "info"],
  ["statistics", "stats"],
  ["machine learning", "ml"],
  ["artificial intelligence", "ai"],
  ["user interface", "ui"],
  ["user experience", "ux"],
  ["command line interface", "cli"],
  ["operating system", "os"],
  ["virtual machine", "vm"],
  ["load balancer", "lb"],
  ["single sign on", "sso"],
  ["multi factor authentication", "mfa"],
  ["two factor authentication", "2fa"],
  ["end to end", "e2e"],
  ["internationalization", "i18n"],
  ["localization", "l10n"],
  ["accessibility", "a11y"],
  ["observability", "o11y"],
  ["service level objective", "slo"],
  ["service level agreement", "sla"],
  ["time to live", "ttl"],
  ["content delivery network", "cdn"],
  ["domain name system", "dns"],
  ["transport layer security", "tls"],
  ["message queue", "mq"],
];

/** Most digits a version fused to a name may have ("pg16", "node20", "python3"). */
const versionDigitsMax = 4;

/** Each group's names as terms (a multi-word name split into its words). */
const groupTerms: readonly (readonly string[][])[] = nameGroups.map((group) => group.map((name) => keywordTerms(name)));

/** A name of a group, as terms: `[group, ["pull", "request"]]`. */
type GroupName = readonly [number, readonly string[]];

/** The groups' names that `accept` takes, keyed by their first word; each key's names in lexicon order. */
function namesByFirstWord(accept: (terms: readonly string[]) => boolean): Map<string, GroupName[]> {
  const map = new Map<string, GroupName[]>();
  groupTerms.forEach((names, group) => {
    for (const terms of names) {
      if (!accept(terms)) continue;
      const list = map.get(terms[0]) ?? [];
      list.push([group, terms]);
      map.set(terms[0], list);
    }
  });
  return map;
}

/** One-word name → the groups it belongs to, in lexicon order. */
const groupsByWord: ReadonlyMap<string, readonly number[]> = new Map(
  [...namesByFirstWord((terms) => terms.length === 1)].map(([word, names]) => [word, [...new Set(names.map(([group]) => group))]]),
);

/** The groups `word` names: as written, or as the plural of a one-word name ("repos", "dbs"). */
function groupsOf(word: string): readonly number[] {
  const own = groupsByWord.get(word);
  if (own !== undefined) return own;
  if (word.endsWith("ies")) return groupsByWord.get(`${word.slice(0, -3)}y`) ?? [];
  if (word.endsWith("es") && groupsByWord.has(word.slice(0, -2))) return groupsByWord.get(word.slice(0, -2)) ?? [];
  if (word.endsWith("s") && !word.endsWith("ss")) return groupsByWord.get(word.slice(0, -1)) ?? [];
  return [];
}

/** First word of a multi-word name → its groups and words ("pull" → [group, ["pull", "request"]]). */
const phrasesByFirstWord: ReadonlyMap<string, readonly GroupName[]> = namesByFirstWord((terms) => terms.length >= 2);

/** The groups whose multi-word names start at `terms[at]`. */
function phraseGroupsAt(terms: readonly string[], at: number): number[] {
  const groups: number[] = [];
  for (const [group, words] of phrasesByFirstWord.get(terms[at]) ?? []) {
    if (words.every((word, k) => terms[at + k] === word) && !groups.includes(group)) groups.push(group);
  }
  return groups;
}

/** `word` split into a grouped one-word name and a version ("pg16" → ["pg", "16"]), or null. */
function versionedName(word: string): [string, string] | null {
  const match = /^([a-z][a-z0-9]*?[a-z])(\d+)$/.exec(word);
  if (match === null || match[2].length > versionDigitsMax || groupsByWord.has(word)) return null;
  return groupsByWord.has(match[1]) ? [match[1], match[2]] : null;
}

function isVersion(term: string): boolean {
  return term.length <= versionDigitsMax && /^\d+$/.test(term);
}

/** Appends `term` to `out` unless it is there already (variants keep their first-seen order). */
function addVariant(term: string, out: string[]): void {
  if (!out.includes(term)) out.push(term);
}

/** Adds the names of `groups`, and with `version` the version and the fused forms, to `out`. */
function addGroupVariants(groups: readonly number[], version: string | null, out: string[]): void {
  for (const group of groups) {
    for (const terms of groupTerms[group]) {
      for (const term of terms) addVariant(term, out);
    }
    if (version === null) continue;
    addVariant(version, out);
    for (const terms of groupTerms[group]) {
      if (terms.length === 1) addVariant(`${terms[0]}${version}`, out);
    }
  }
}

/**
 * The other names of the things `terms` name (keyword terms, in order), first-seen order, none
 * of `terms` itself: a name (one word, or several in a row) gives its group's other names; a
 * versioned name ("pg16", or "postgres" followed by "16") gives them and the version, alone and
 * fused with each one-word name.
 *
 * @example
 * nameVariantTerms(["ci"])              // ["continuous", "integration"]
 * nameVariantTerms(["pull", "request"]) // ["pr"]
 * nameVariantTerms(["postgres", "16"])  // ["postgresql", "pg", "psql", "postgresql16", "postgres16", "pg16", "psql16"]
 */
export function nameVariantTerms(terms: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < terms.length; i++) {
    const term = terms[i];
    addGroupVariants(phraseGroupsAt(terms, i), null, out);
    const versioned = versionedName(term);
    if (versioned !== null) {
      addGroupVariants(groupsOf(versioned[0]), versioned[1], out);
      continue;
    }
    const next = terms[i + 1];
    addGroupVariants(groupsOf(term), next !== undefined && isVersion(next) ? next : null, out);
  }
  const own = new Set(terms);
  return out.filter((term) => !own.has(term));
}
