/**
 * Text analysis: how text becomes the terms every lane and checkout's query match compare, in
 * one place so they all cut text alike. Python's `str.casefold()` (which the hash embedding and
 * the keyword terms need byte for byte), the keyword lanes' term rules (Python's), a light
 * stemmer and the inflections of a word, a lexicon of other names of the same thing, and a
 * question's content terms; and the text an entity version and an event are searched by. It sits
 * with the hash embedding, the lowest layer that cuts text.
 */
import { caseFoldEntries } from "./caseFoldTable.ts";

// ---------------------------------------------------------------------------
/*
 * Python's `str.casefold()` (full Unicode case folding: "ß" → "ss", "ﬁ" → "fi", "Σ" → "σ"),
 * from a table generated with Python (src/vector/caseFoldTable.ts). JS's toLowerCase() is not
 * the same fold, and the hash embedding must tokenise exactly as Python does.
 */
let foldMap: Map<number, string> | undefined;

function table(): Map<number, string> {
  if (foldMap === undefined) {
    foldMap = new Map();
    for (const [cp, ...folded] of caseFoldEntries) foldMap.set(cp, String.fromCodePoint(...folded));
  }
  return foldMap;
}

const asciiNoUpper = /^[^A-Z\u0080-\u{10FFFF}]*$/u;
const asciiOnly = /^[\x00-\x7f]*$/;

/**
 * @example
 * pythonCaseFold("Straße ﬁle") // "strasse file"
 */
export function pythonCaseFold(text: string): string {
  if (asciiNoUpper.test(text)) return text;
  // On ASCII, casefold maps A-Z and nothing else, as toLowerCase does (and natively).
  if (asciiOnly.test(text)) return text.toLowerCase();
  const map = table();
  let out = "";
  for (const ch of text) {
    const code = ch.codePointAt(0) as number;
    if (code < 0x80) out += code >= 0x41 && code <= 0x5a ? String.fromCharCode(code + 32) : ch;
    else out += map.get(code) ?? ch;
  }
  return out;
}

// ---------------------------------------------------------------------------
/*
 * The term rules of the keyword lanes (DESIGN §6), the same as Python's so that a query ranks
 * the same memories in both implementations:
 *
 * - keyword terms: runs of `[A-Za-z0-9]` in the Python-casefolded text, longer than one character
 *   (`embedded_graph_store._terms`); order and duplicates are kept, BM25 counts them;
 * - query terms: keyword terms minus a fixed list of 26 question words (`_KEYWORD_STOP_WORDS`);
 * - query expansion: one extra query with synonyms appended (`query._expanded_queries`);
 * - overlap tokens: runs of `[a-z0-9]` in the lowercased text, longer than two characters (the
 *   query-overlap key of checkout ranking).
 *
 * Changing any of these lists changes which memories a query finds; keep them equal to Python's.
 */
/** Words dropped from queries (not from documents): they match nearly every memory. */
export const stopWords: ReadonlySet<string> = new Set([
  "am",
  "and",
  "are",
  "at",
  "did",
  "do",
  "does",
  "first",
  "for",
  "had",
  "have",
  "how",
  "in",
  "it",
  "me",
  "of",
  "the",
  "to",
  "was",
  "were",
  "what",
  "when",
  "where",
  "which",
  "who",
  "with",
]);

/** Synonyms appended by `expandQuery`, keyed by a lowercased query token. */
export const queryExpansions: ReadonlyMap<string, readonly string[]> = new Map([
  ["auth", ["authentication", "authorization"]],
  ["decision", ["decided", "choice", "rationale"]],
  ["decisions", ["decided", "choice", "rationale"]],
  ["doc", ["document", "documentation"]],
  ["docs", ["document", "documentation"]],
  ["bug", ["defect", "failure", "regression"]],
  ["bugs", ["defect", "failure", "regression"]],
  ["task", ["todo", "work", "action"]],
  ["tasks", ["todo", "work", "action"]],
]);

const nonAscii = /[^\x00-\x7f]/;

/**
 * Python's `text.casefold()` as far as ASCII letters and digits can tell: for ASCII text that is
 * plain lowercasing (the fast native path); otherwise the full fold matters, because a few
 * non-ASCII characters fold into ASCII letters ("ß" → "ss", "ﬁ" → "fi", KELVIN SIGN → "k").
 */
function foldForTerms(text: string): string {
  return nonAscii.test(text) ? pythonCaseFold(text) : text.toLowerCase();
}

function isLowerAlnum(code: number): boolean {
  return (code >= 0x61 && code <= 0x7a) || (code >= 0x30 && code <= 0x39);
}

/** Runs of `[a-z0-9]` in already-folded text whose length exceeds `minExclusive`. */
function asciiRuns(folded: string, minExclusive: number): string[] {
  const runs: string[] = [];
  const n = folded.length;
  let start = -1;
  for (let i = 0; i <= n; i++) {
    if (i < n && isLowerAlnum(folded.charCodeAt(i))) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      if (i - start > minExclusive) runs.push(folded.slice(start, i));
      start = -1;
    }
  }
  return runs;
}

/**
 * The BM25 terms of a document or query, in order, duplicates kept.
 *
 * @example
 * keywordTerms("Use Postgres for the audit-log, v2 & a") // ["use", "postgres", "for", "the", "audit", "log", "v2"]
 */
export function keywordTerms(text: string): string[] {
  // After the fold, [A-Za-z0-9] and [a-z0-9] are the same set: no uppercase ASCII is left.
  return asciiRuns(foldForTerms(text), 1);
}

/**
 * Keyword terms of a query without stop words.
 *
 * @example
 * queryTerms("What did we decide for the database?") // ["we", "decide", "database"]
 */
export function queryTerms(query: string): string[] {
  return keywordTerms(query).filter((term) => !stopWords.has(term));
}

/**
 * The query with its synonyms appended, or null when no token has an expansion. Mirrors
 * Python: tokens are `[A-Za-z0-9]+` of the lowercased query with no length or stop-word filter,
 * synonyms are de-duplicated in first-seen order, and the original text is kept verbatim in front.
 * The caller runs both queries and weights the expanded one's hits by the profile's expansion
 * weight (0.92 in `balanced`).
 *
 * @example
 * expandQuery("Auth bugs") // "Auth bugs authentication authorization defect failure regression"
 * expandQuery("database") // null
 */
export function expandQuery(query: string): string | null {
  // Python uses str.lower() here, not casefold(); toLowerCase() is the same mapping.
  const tokens = asciiRuns(query.toLowerCase(), 0);
  const added: string[] = [];
  const seen = new Set<string>();
  for (const token of tokens) {
    for (const synonym of queryExpansions.get(token) ?? []) {
      if (!seen.has(synonym)) {
        seen.add(synonym);
        added.push(synonym);
      }
    }
  }
  return added.length === 0 ? null : `${query} ${added.join(" ")}`;
}

/**
 * The tokens checkout ranking counts when it measures how much of the query a context covers:
 * `[a-z0-9]+` of the lowercased text, longer than two characters, in order, duplicates kept
 * (callers that count overlap make a set).
 *
 * @example
 * overlapTokens("Why did we pick Postgres in Q3?") // ["why", "did", "pick", "postgres"]
 */
export function overlapTokens(text: string): string[] {
  return asciiRuns(text.toLowerCase(), 2);
}

// ---------------------------------------------------------------------------
/*
 * Inflections of one word, for the keyword lanes and checkout's query match: a light suffix
 * stemmer (`stemTerm`) and the surface forms of a query word that share its stem
 * (`inflectionVariants`), so "specs" finds a memory that says "spec" and "migrating" one that says
 * "migration".
 *
 * The stem is a key, not a word: it needs only be applied alike to the query and the memory text.
 * The keyword index keeps the words as written (Python-compatible, the term rules above); the stemmed match is
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

// ---------------------------------------------------------------------------
/*
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
 * - Variants are terms as the keyword index holds them (the term rules above): lowercase `[a-z0-9]` runs, a
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

// ---------------------------------------------------------------------------
/*
 * A question's content terms: what it asks about, without the words every question needs
 * ("what", "did", "we", "use"). Checkout measures how much of the question memory covers with
 * them (checkout/checkout.ts); retrieval weighs word matches by them when the semantic lane
 * runs (engine.ts).
 *
 * - Content terms: `[a-z0-9]` runs of the casefolded query (two characters or more, so `db` and
 *   `pg` count), minus English function and question words, each reduced by a light stemmer so
 *   `billing` meets `bill` and `migrations` meets `migrate`.
 * - A text's stems include those of the other names of what it names (the lexicon above).
 */
/**
 * Words that carry no subject: articles, pronouns, auxiliaries, prepositions, question words and
 * request fillers. A question made only of them ("what did we do?") has nothing to match.
 */
const functionWords: ReadonlySet<string> = new Set(
  (
    "a about above after again against all also am an and any are as at be because been before being below between both but by " +
    "can could did do does doing don done down during each either else ever every few for from further get gets getting got had " +
    "has have having he her here hers him his how however if in into is it its itself just know let lets like may me might mine " +
    "more most much must my no nor not now of off on once one only or other our ours out over own per please re same shall she " +
    "should so some such tell than that the their theirs them then there these they thing things this those through thus to too " +
    "under until up upon us very via was we were what whats when where whether which while who whom whose why will with would " +
    "yet you your yours " +
    // Verbs a question needs to be a question: "how does X work", "where do logs go".
    "go goes going gone went happen happens happened make makes made making need needs needed take takes taken taking " +
    "took use used uses using want wants wanted work works worked working"
  ).split(" "),
);

/**
 * The query's content terms, first-seen order, as `[word, stem]` pairs (one per stem).
 *
 * @example
 * queryContentTerms("What is the weather in Paris?") // [["weather", "weath"], ["paris", "paris"]]
 */
export function queryContentTerms(query: string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  const seen = new Set<string>();
  for (const word of keywordTerms(query)) {
    if (functionWords.has(word)) continue;
    const stem = stemTerm(word);
    if (seen.has(stem)) continue;
    seen.add(stem);
    out.push([word, stem]);
  }
  return out;
}

/**
 * The stems of the keyword terms of `text` and of the other names of what it names
 * (the lexicon above), so a question that says "postgres", "pg16" or "db" meets a memory that says
 * "PostgreSQL 16" or "database".
 */
export function textStems(text: string): Set<string> {
  const terms = keywordTerms(text);
  const stems = new Set(terms.map(stemTerm));
  for (const variant of nameVariantTerms(terms)) stems.add(stemTerm(variant));
  return stems;
}

// ---------------------------------------------------------------------------
/*
 * The text each lane indexes: an entity version's (keyword lane) and an event's (verbatim lane).
 * They take the fields they read, not the projection's or the log's record types, so this layer
 * names neither.
 */

/** Every string or number in `value`, depth first, skipping zaxy's own `__zaxy_` keys. */
function collectText(value: unknown, out: string[], depth = 0): void {
  if (depth > 8 || value === null || value === undefined) return;
  if (typeof value === "string") out.push(value);
  else if (typeof value === "number" || typeof value === "bigint") out.push(String(value));
  else if (Array.isArray(value)) for (const item of value) collectText(item, out, depth + 1);
  else if (typeof value === "object") {
    const entries = value instanceof Map ? [...value.entries()] : Object.entries(value as object);
    for (const [key, item] of entries) if (!String(key).startsWith("__zaxy_")) collectText(item, out, depth + 1);
  }
}

/** The text an entity version is searched by. */
export function entitySearchText(entity: { name: string; entityType: string; summary: string | null; propertiesJson: string }): string {
  const parts = [entity.name, entity.entityType];
  if (entity.summary) parts.push(entity.summary);
  try {
    const properties = JSON.parse(entity.propertiesJson) as Record<string, unknown>;
    for (const value of Object.values(properties)) if (typeof value === "string" || typeof value === "number") parts.push(String(value));
  } catch {
    // Properties are always JSON we wrote; a bad row only loses its property text.
  }
  return parts.join(" ");
}

/** The raw text of an event for the verbatim lane: type, actor and every payload string or number. */
export function rawEventText(event: { type: string; actor: string; payload: unknown }): string {
  const parts = [event.type, event.actor];
  collectText(event.payload, parts);
  return parts.join(" ");
}
