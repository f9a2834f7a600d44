/**
 * Bm25Index (src/retrieval/bm25.ts) by example, against python3, and for speed.
 *
 * The Python cross-check writes seeded corpora (Zipf-like word choice, so common and rare terms
 * both occur; some empty documents; mixed case and punctuation) and queries (with duplicates,
 * stop words and unknown words). python3 tokenises them itself and scores with the formula of
 * Python's embedded graph store (`_keyword_index_from_entities`, `_bm25_score_from_precomputed`),
 * then ranks by (score desc, doc id asc); scores must be the same doubles. Seed fixed and
 * printed; `ZAXY_PROPERTY_SEED=<n>` overrides it.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { Bm25Index, bm25B, bm25K1, cappedBm25Score } from "../../src/retrieval/bm25.ts";
import { keywordTerms, queryTerms, stopWords } from "../../src/vector/textAnalysis.ts";
import { python, skipWithoutPython } from "../eventloom/testkit.ts";
import { propertySeed, Rng } from "../testkit/rng.ts";

function idf(n: number, df: number): number {
  return Math.log(1 + (n - df + 0.5) / (df + 0.5));
}

test("Bm25Index.add returns ascending ids and search scores one document by hand", () => {
  const index = new Bm25Index();
  assert.equal(index.add("Decision: use Postgres for audit logs"), 0);
  assert.equal(index.add("Task: write the migration"), 1);
  assert.equal(index.add("postgres postgres tuning"), 2);
  assert.equal(index.size, 3);
  // lengths 6, 4, 3 → avg 13/3
  const avg = 13 / 3;
  const norm0 = bm25K1 * (1 - bm25B + (bm25B * 6) / avg);
  const norm2 = bm25K1 * (1 - bm25B + (bm25B * 3) / avg);
  const idfPostgres = idf(3, 2);
  const idfDecision = idf(3, 1);
  const hits = index.search(["postgres", "decision"], 10);
  const expected0 = (idfPostgres * (1 * (bm25K1 + 1))) / (1 + norm0) + (idfDecision * (1 * (bm25K1 + 1))) / (1 + norm0);
  const expected2 = (idfPostgres * (2 * (bm25K1 + 1))) / (2 + norm2);
  assert.deepEqual(
    hits,
    [
      { docId: 0, score: expected0 },
      { docId: 2, score: expected2 },
    ].sort((a, b) => b.score - a.score),
  );
});

test("Bm25Index.search counts a repeated query term once and ignores unknown terms", () => {
  const index = new Bm25Index();
  index.add("alpha beta");
  index.add("beta gamma");
  assert.deepEqual(index.search(["alpha", "alpha", "alpha"], 5), index.search(["alpha"], 5));
  assert.deepEqual(index.search(["zzz"], 5), []);
  assert.deepEqual(index.search([], 5), []);
});

test("Bm25Index.search breaks ties by lower document id and honours limit", () => {
  const index = new Bm25Index();
  for (let i = 0; i < 50; i++) index.add(i % 2 === 0 ? "shared term" : "other words");
  const hits = index.search(["shared"], 7);
  assert.deepEqual(hits.map((hit) => hit.docId), [0, 2, 4, 6, 8, 10, 12]);
  assert.equal(new Set(hits.map((hit) => hit.score)).size, 1);
  assert.deepEqual(index.search(["shared"], 0), []);
  assert.equal(index.search(["shared"], 1000).length, 25);
});

test("Bm25Index on an empty index, and with only empty documents, finds nothing", () => {
  assert.deepEqual(new Bm25Index().search(["x"], 10), []);
  const index = new Bm25Index();
  index.add("");
  index.add("!!");
  assert.deepEqual(index.search(["x"], 10), []);
});

test("Bm25Index recomputes statistics after more documents are added", () => {
  const index = new Bm25Index();
  index.add("postgres");
  const before = index.search(["postgres"], 1)[0].score;
  index.add("mysql mysql mysql");
  const after = index.search(["postgres"], 1)[0].score;
  const fresh = new Bm25Index();
  fresh.add("postgres");
  fresh.add("mysql mysql mysql");
  assert.notEqual(before, after);
  assert.deepEqual(index.search(["postgres", "mysql"], 5), fresh.search(["postgres", "mysql"], 5));
});

test(`Bm25Index searched between additions exports the postings of one built in one go (seed ${propertySeed(0xb11d)})`, () => {
  const rng = new Rng(propertySeed(0xb11d));
  const words = ["postgres", "audit", "ledger", "migration", "tuning", "rollback", "queue", "cache"];
  const texts = Array.from({ length: 300 }, () => Array.from({ length: rng.range(0, 12) }, () => rng.pick(words)).join(" "));
  const inSteps = new Bm25Index();
  const inOneGo = new Bm25Index();
  texts.forEach((text, i) => {
    inSteps.add(text);
    inOneGo.add(text);
    // A search builds the postings (and drops the entries): the next addition must start from them.
    if (i % 37 === 0) inSteps.search(["postgres", "cache"], 3);
  });
  const exported = (index: Bm25Index) => {
    const postings = index.exportPostings();
    return { ...postings, termStart: Array.from(postings.termStart), docs: Array.from(postings.docs), counts: Array.from(postings.counts), docLengths: Array.from(postings.docLengths) };
  };
  assert.deepEqual(exported(inSteps), exported(inOneGo));
  assert.deepEqual(inSteps.search(words, 300), inOneGo.search(words, 300));
});

test("Bm25Index counts a term repeated past 65,535 times in one document exactly, before and after a search", () => {
  const index = new Bm25Index();
  index.add(`${"spam ".repeat(70_000)}ham`);
  index.add("spam eggs");
  const countsOf = () => {
    const postings = index.exportPostings();
    const term = postings.terms.indexOf("spam");
    return Array.from(postings.counts.subarray(postings.termStart[term], postings.termStart[term + 1]));
  };
  assert.deepEqual(countsOf(), [70_000, 1]);
  // The search moved the entries into the postings: the next addition takes them back.
  index.add("spam spam");
  assert.deepEqual(countsOf(), [70_000, 1, 2]);
  const norm = (length: number) => bm25K1 * (1 - bm25B + (bm25B * length) / ((70_001 + 2 + 2) / 3));
  const hits = index.search(["spam"], 3);
  assert.equal(hits[0].docId, 0);
  assert.equal(hits[0].score, (idf(3, 3) * (70_000 * (bm25K1 + 1))) / (70_000 + norm(70_001)));
});

test("Bm25Index takes a tokenizer and an average-length floor (the verbatim lane's max(avg, 1))", () => {
  const verbatim = new Bm25Index({ tokenize: (text) => text.split(" ").filter(Boolean), averageLengthFloor: 1 });
  verbatim.add("a");
  verbatim.add("");
  verbatim.add("");
  verbatim.add("");
  // avg 0.25 is floored to 1: norm = 1.5 * (0.25 + 0.75 * 1 / 1)
  const norm = bm25K1 * (1 - bm25B + bm25B * (1 / 1));
  assert.deepEqual(verbatim.search(["a"], 1), [{ docId: 0, score: (idf(4, 1) * (bm25K1 + 1)) / (1 + norm) }]);
  const graph = new Bm25Index({ tokenize: (text) => text.split(" ").filter(Boolean) });
  for (const text of ["a", "", "", ""]) graph.add(text);
  assert.notEqual(graph.search(["a"], 1)[0].score, verbatim.search(["a"], 1)[0].score);
  assert.equal(verbatim.documentFrequency("a"), 1);
  assert.equal(verbatim.addTerms(["a", "a"]), 4);
  assert.equal(verbatim.documentFrequency("a"), 2);
});

test(`Bm25Index.add tokenises exactly as addTerms(keywordTerms(text)) on generated texts (seed ${propertySeed(0xadd)})`, () => {
  const rng = new Rng(propertySeed(0xadd));
  const pieces = ["Postgres", "POSTGRES", "postgres", "Straße", "strasse", "ﬁle", "file", "\u212Aelvin", "kelvin",
    "İd", "a", "x9", "日本", "😀", "-", " ", ",", "snake_case", "v2.1", "Q3", "q3"];
  const texts = Array.from({ length: 400 }, () =>
    Array.from({ length: rng.range(0, 15) }, () => rng.pick(pieces)).join(rng.chance(0.4) ? "" : " "));
  const fromText = new Bm25Index();
  const fromTerms = new Bm25Index();
  for (const text of texts) {
    fromText.add(text);
    fromTerms.addTerms(keywordTerms(text));
  }
  const vocabularyTerms = [...new Set(texts.flatMap(keywordTerms))];
  for (const term of vocabularyTerms) {
    assert.equal(fromText.documentFrequency(term), fromTerms.documentFrequency(term), term);
    assert.deepEqual(fromText.search([term], 1000), fromTerms.search([term], 1000), term);
  }
  assert.deepEqual(fromText.search(vocabularyTerms, 1000), fromTerms.search(vocabularyTerms, 1000));
});

test("cappedBm25Score caps raw BM25 at 1, as Python's fusion does", () => {
  assert.equal(cappedBm25Score(3.2), 1);
  assert.equal(cappedBm25Score(0.4), 0.4);
});

const vocabulary = [
  "postgres", "Postgres", "audit", "log", "decision", "task", "migration", "schema", "index", "the",
  "what", "with", "rollback", "owner", "dashboard", "release", "worker", "api", "auth", "v2",
  "cache", "latency", "p99", "budget", "tokens", "ledger", "eventloom", "graph", "vector", "bm25",
  ...Array.from({ length: 170 }, (_, i) => `w${i.toString(36)}x`),
];

/** A word index skewed towards the front of the vocabulary (roughly Zipf). */
function skewedWord(rng: Rng): string {
  const u = rng.u32() / 4294967296;
  return vocabulary[Math.floor(vocabulary.length * u * u * u)];
}

function generatedCorpus(rng: Rng, docCount: number): string[] {
  const docs: string[] = [];
  for (let i = 0; i < docCount; i++) {
    if (rng.chance(0.03)) {
      docs.push(rng.chance(0.5) ? "" : "a ! ?");
      continue;
    }
    const words: string[] = [];
    const length = rng.range(1, rng.chance(0.1) ? 120 : 25);
    for (let j = 0; j < length; j++) words.push(skewedWord(rng));
    docs.push(words.join(rng.pick([" ", ", ", "-", ". "])));
  }
  return docs;
}

function generatedQueries(rng: Rng, count: number): string[] {
  const queries: string[] = [];
  for (let i = 0; i < count; i++) {
    const words: string[] = [];
    const length = rng.range(1, 6);
    for (let j = 0; j < length; j++) words.push(rng.chance(0.1) ? "unknownword" : skewedWord(rng));
    if (rng.chance(0.3)) words.push(words[0]);
    queries.push(words.join(" "));
  }
  return queries;
}

const seed = propertySeed(0xb325);

test(`Bm25Index scores equal Python's embedded-store BM25 on generated corpora (seed ${seed})`, { skip: skipWithoutPython }, () => {
  const rng = new Rng(seed);
  const cases = [5, 60, 700, 3000].map((docCount) => ({
    docs: generatedCorpus(rng, docCount),
    queries: generatedQueries(rng, 40),
    limit: rng.pick([1, 3, 10, 50, 5000]),
  }));
  const program = `
import json, math, re, sys
from collections import Counter
TOKEN = re.compile(r"[A-Za-z0-9]+")
STOP = frozenset(${JSON.stringify([...stopWords])})
def terms(t): return [x for x in TOKEN.findall(t.casefold()) if len(x) > 1]
out = []
for case in json.load(sys.stdin):
    counts = [Counter(terms(d)) for d in case["docs"]]
    lengths = [sum(c.values()) for c in counts]
    df = Counter()
    for c in counts: df.update(c.keys())
    n = len(counts)
    avg = sum(lengths) / n if n else 0.0
    idf = {t: math.log(1 + (n - f + 0.5) / (f + 0.5)) for t, f in df.items()}
    norms = [0.0 for _ in lengths] if avg <= 0 else [1.5 * (1 - 0.75 + 0.75 * l / avg) for l in lengths]
    answers = []
    for q in case["queries"]:
        qt = list(dict.fromkeys(x for x in terms(q) if x not in STOP))
        scored = []
        for i, c in enumerate(counts):
            if norms[i] <= 0: continue
            s = 0.0
            for t in qt:
                tf = c[t]
                if tf <= 0: continue
                s += idf.get(t, 0.0) * (tf * (1.5 + 1)) / (tf + norms[i])
            if s: scored.append((i, s))
        scored.sort(key=lambda p: (-p[1], p[0]))
        answers.append(scored[: case["limit"]])
    out.append(answers)
print(json.dumps(out))
`;
  const expected = JSON.parse(python(program, JSON.stringify(cases))) as [number, number][][][];
  cases.forEach((c, ci) => {
    const index = new Bm25Index();
    for (const doc of c.docs) index.add(doc);
    c.queries.forEach((query, qi) => {
      const actual = index.search(queryTerms(query), c.limit).map((hit) => [hit.docId, hit.score]);
      assert.deepEqual(actual, expected[ci][qi], `corpus ${c.docs.length} query ${JSON.stringify(query)}`);
    });
  });
});

test("Bm25Index over 20k documents: two builds answer every query identically, and every hit holds a query term", () => {
  // Speed is measured by `zaxy bench retrieval`, not here: a timed assertion flakes on a shared machine.
  const rng = new Rng(propertySeed(0x20_000));
  const docs = generatedCorpus(rng, 20_000);
  const queries = generatedQueries(rng, 200).map(queryTerms);
  const build = () => {
    const index = new Bm25Index();
    for (const doc of docs) index.add(doc);
    return index;
  };
  const first = build();
  const second = build();
  let hits = 0;
  for (const terms of queries) {
    const answer = first.search(terms, 10);
    assert.deepEqual(second.search(terms, 10), answer, `query ${JSON.stringify(terms)}`);
    for (const hit of answer) {
      const docTerms = new Set(queryTerms(docs[hit.docId]));
      assert.ok(terms.some((term) => docTerms.has(term)), `doc ${hit.docId} holds none of ${JSON.stringify(terms)}`);
    }
    hits += answer.length;
  }
  assert.ok(hits > 0, "the generated queries find documents");
});
