/**
 * A question's content terms: what it asks about, without the words every question needs
 * ("what", "did", "we", "use"). Checkout measures how much of the question memory covers with
 * them (checkout/queryMatch.ts); retrieval weighs word matches by them when the semantic lane
 * runs (engine.ts).
 *
 * - Content terms: `[a-z0-9]` runs of the casefolded query (two characters or more, so `db` and
 *   `pg` count), minus English function and question words, each reduced by a light stemmer so
 *   `billing` meets `bill` and `migrations` meets `migrate`.
 * - A text's stems include those of the other names of what it names (nameVariants.ts).
 */
import { stemTerm } from "./stem.ts";
import { nameVariantTerms } from "./nameVariants.ts";
import { keywordTerms } from "./terms.ts";

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
 * (nameVariants.ts), so a question that says "postgres", "pg16" or "db" meets a memory that says
 * "PostgreSQL 16" or "database".
 */
export function textStems(text: string): Set<string> {
  const terms = keywordTerms(text);
  const stems = new Set(terms.map(stemTerm));
  for (const variant of nameVariantTerms(terms)) stems.add(stemTerm(variant));
  return stems;
}
