/**
 * The keyword-lane term rules (src/vector/textAnalysis.ts) by example and against python3: a seeded
 * generator writes texts mixing ASCII words, stop words, expansion keys, punctuation and the
 * non-ASCII characters whose Python casefold is ASCII ("ß", "ﬁ", KELVIN SIGN, "İ"); Python's own
 * expressions from embedded_graph_store.py, query.py and checkout ranking answer for each text.
 * Seed fixed and printed; `ZAXY_PROPERTY_SEED=<n>` overrides it.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { expandQuery, keywordTerms, overlapTokens, queryExpansions, queryTerms, stopWords } from "../../src/vector/textAnalysis.ts";
import { python, skipWithoutPython } from "../eventloom/testkit.ts";
import { propertySeed, Rng } from "../testkit/rng.ts";

test("keywordTerms keeps [A-Za-z0-9] runs longer than one character, casefolded, in order with duplicates", () => {
  assert.deepEqual(keywordTerms("Use Postgres for the audit-log, v2 & a POSTGRES"), [
    "use",
    "postgres",
    "for",
    "the",
    "audit",
    "log",
    "v2",
    "postgres",
  ]);
  assert.deepEqual(keywordTerms(""), []);
  assert.deepEqual(keywordTerms("a b c 1 2"), []);
  assert.deepEqual(keywordTerms("snake_case camelCase x9"), ["snake", "case", "camelcase", "x9"]);
});

test("keywordTerms folds like Python casefold: ß to ss, ligatures, KELVIN SIGN; other letters split", () => {
  assert.deepEqual(keywordTerms("Straße"), ["strasse"]);
  assert.deepEqual(keywordTerms("ﬁle ﬂow"), ["file", "flow"]);
  assert.deepEqual(keywordTerms("\u212Aelvin"), ["kelvin"]);
  assert.deepEqual(keywordTerms("café naïve"), ["caf", "na", "ve"]);
  assert.deepEqual(keywordTerms("日本 db2 😀ok"), ["db2", "ok"]);
});

test("stopWords is Python's 26-word list", () => {
  assert.deepEqual([...stopWords].sort(), [
    "am", "and", "are", "at", "did", "do", "does", "first", "for", "had", "have", "how", "in",
    "it", "me", "of", "the", "to", "was", "were", "what", "when", "where", "which", "who", "with",
  ]);
});

test("queryTerms drops stop words after tokenising", () => {
  assert.deepEqual(queryTerms("What did we decide for the database?"), ["we", "decide", "database"]);
  assert.deepEqual(queryTerms("The THE the"), []);
  assert.deepEqual(queryTerms("who owns it"), ["owns"]);
});

test("expandQuery appends de-duplicated synonyms after the verbatim query, or returns null", () => {
  assert.equal(expandQuery("Auth bugs"), "Auth bugs authentication authorization defect failure regression");
  assert.equal(expandQuery("bug BUGS bug"), "bug BUGS bug defect failure regression");
  assert.equal(expandQuery("decisions and tasks in docs"), "decisions and tasks in docs decided choice rationale todo work action document documentation");
  assert.equal(expandQuery("authentication"), null);
  assert.equal(expandQuery("database"), null);
  assert.equal(expandQuery(""), null);
  assert.equal(expandQuery("re-auth!"), "re-auth! authentication authorization");
  assert.equal(queryExpansions.size, 9);
});

test("overlapTokens keeps lowercased [a-z0-9] runs longer than two characters", () => {
  assert.deepEqual(overlapTokens("Why did we pick Postgres in Q3? Postgres!"), ["why", "did", "pick", "postgres", "postgres"]);
  assert.deepEqual(overlapTokens("ab 12 abc 123"), ["abc", "123"]);
});

const alphabet = [
  "postgres", "Auth", "BUGS", "doc", "decision", "the", "What", "a", "x9", "Q3", "ok", "Task", "tasks",
  "Straße", "ﬁle", "\u212Aelvin", "İstanbul", "ŉ", "ſecret", "café", "日本", "😀", "snake_case",
  "audit-log", "v2.1", "  ", "\t", "\n", ",", "!", "ÀÉÎ", "ǰ", "ẞ", "ﬀ", "ﬆ", "1", "22", "333",
];

function generatedTexts(rng: Rng, count: number): string[] {
  const texts: string[] = [];
  for (let i = 0; i < count; i++) {
    const parts: string[] = [];
    const n = rng.range(0, 12);
    for (let j = 0; j < n; j++) parts.push(rng.pick(alphabet));
    texts.push(parts.join(rng.chance(0.3) ? "" : " "));
  }
  return texts;
}

const seed = propertySeed(0x7e_4a5);

test(`keywordTerms, queryTerms, expandQuery and overlapTokens equal Python on generated texts (seed ${seed})`, { skip: skipWithoutPython }, () => {
  const texts = generatedTexts(new Rng(seed), 3000);
  const program = `
import json, re, sys
TOKEN = re.compile(r"[A-Za-z0-9]+")
STOP = frozenset(${JSON.stringify([...stopWords])})
EXP = ${JSON.stringify(Object.fromEntries(queryExpansions))}
def terms(t): return [x for x in TOKEN.findall(t.casefold()) if len(x) > 1]
def expand(q):
    added = []
    for tok in re.findall(r"[A-Za-z0-9]+", q.lower()):
        for s in EXP.get(tok, ()):
            if s not in added: added.append(s)
    return None if not added else q + " " + " ".join(added)
out = []
for t in json.load(sys.stdin):
    out.append([terms(t), [x for x in terms(t) if x not in STOP], expand(t),
                [x for x in re.findall(r"[a-z0-9]+", t.lower()) if len(x) > 2]])
print(json.dumps(out))
`;
  const expected = JSON.parse(python(program, JSON.stringify(texts))) as [string[], string[], string | null, string[]][];
  texts.forEach((text, i) => {
    const [terms, query, expanded, overlap] = expected[i];
    assert.deepEqual(keywordTerms(text), terms, `keywordTerms ${JSON.stringify(text)}`);
    assert.deepEqual(queryTerms(text), query, `queryTerms ${JSON.stringify(text)}`);
    assert.equal(expandQuery(text), expanded, `expandQuery ${JSON.stringify(text)}`);
    assert.deepEqual(overlapTokens(text), overlap, `overlapTokens ${JSON.stringify(text)}`);
  });
});
