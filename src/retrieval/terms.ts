/**
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
import { pythonCaseFold } from "../vector/caseFold.ts";

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
