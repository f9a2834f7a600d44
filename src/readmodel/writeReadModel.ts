/**
 * Writes a session's read model (docs/read-model.md) from the rows and events a projection holds
 * at its head: entity versions, names, current adjacency, event spans in the log, BM25 segments
 * over entity text and raw event text, and the whole-session folds. Every file is written
 * atomically under a name that carries the head, then the manifest is swapped in, then files of
 * older generations are removed (a reader that opened them keeps its descriptors).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { EventRecord } from "../eventloom/envelope.ts";
import { sha256OfFd, sha256OfFile, writeFileAtomic } from "../platform/atomicFile.ts";
import type { SessionGraphRows } from "../projection/types.ts";
import { currentAdjacency, entitySearchText, MemorySessionFolds, namePositionsOf, rawEventText } from "../retrieval/sessionIndex.ts";
import { adjacencyChunks } from "./adjacencyTable.ts";
import { writeBm25Segment } from "./bm25Segment.ts";
import { entityTableChunks } from "./entityTable.ts";
import { eventSpansChunks, scanEventSpans } from "./eventSpans.ts";
import { manifestPath, type ReadModelFile, type ReadModelManifest, readModelDir, readModelSchema } from "./manifest.ts";
import { sortedTableChunks } from "./sortedTable.ts";

/** Why these rows cannot be written as a read model, or null. */
function rowsProblem(rows: SessionGraphRows, events: readonly EventRecord[]): string | null {
  const head = rows.head;
  if (head === null || events.length === 0) return "the session has no events";
  if (head.seq !== events.length || events[events.length - 1].hash !== head.hash) return `the rows' head (seq ${head.seq}) is not the last of ${events.length} events`;
  // The vector lane maps a vector key to a position without a table: they must be the same.
  const bad = rows.entities.findIndex((entity, position) => entity.vectorKey !== position);
  return bad < 0 ? null : `entity version ${bad} has vector key ${rows.entities[bad].vectorKey}`;
}

function writeFile(dir: string, name: string, chunks: readonly Uint8Array[]): ReadModelFile {
  const file = path.join(dir, name);
  const bytes = writeFileAtomic(file, chunks);
  return { name, bytes, sha256: sha256OfFile(file)! };
}

/**
 * Writes the read model of `rows` at their head; `events` are the verified events through the
 * head, `logPath` the log they were read from. Returns the manifest, or null (with the reason
 * through `warn`) when the rows cannot be written.
 */
export function writeReadModel(root: string, sessionId: string, logPath: string, rows: SessionGraphRows, events: readonly EventRecord[], warn?: (message: string) => void): ReadModelManifest | null {
  const problem = rowsProblem(rows, events);
  if (problem !== null) {
    warn?.(`read model of session ${JSON.stringify(sessionId)} not written: ${problem}`);
    return null;
  }
  const head = rows.head!;
  const dir = readModelDir(root, sessionId);
  fs.mkdirSync(dir, { recursive: true });
  const generation = `${head.seq}-${head.hash.slice(0, 12)}`;

  const logSize = fs.statSync(logPath).size;
  const spans = scanEventSpans(logPath, logSize, events.length);
  const fd = fs.openSync(logPath, "r");
  let logBytes: number;
  let logSha256: string | null;
  try {
    const lastEnd = spans[spans.length - 1];
    const next = Buffer.alloc(1);
    logBytes = lastEnd < logSize && fs.readSync(fd, next, 0, 1, lastEnd) === 1 && next[0] === 0x0a ? lastEnd + 1 : lastEnd;
    logSha256 = sha256OfFd(fd, logBytes);
  } finally {
    fs.closeSync(fd);
  }
  if (logSha256 === null) throw new Error(`the log "${logPath}" shrank while its read model was written`);

  const entities = writeFile(dir, `entities-${generation}.bin`, entityTableChunks(rows.entities));
  const names = writeFile(dir, `names-${generation}.bin`, sortedTableChunks(namePositionsOf(rows.entities)));
  const adjacency = adjacencyChunks(rows.entities.length, currentAdjacency(rows.entities, rows.relations));
  const adjacencyFile = writeFile(dir, `adjacency-${generation}.bin`, adjacency.chunks);
  const eventsFile = writeFile(dir, `events-${generation}.bin`, eventSpansChunks(spans));
  const keywordName = `keyword-${generation}.bin`;
  const keyword = writeBm25Segment(path.join(dir, keywordName), { docBase: 0, texts: rows.entities.map(entitySearchText), averageLengthFloor: 0 });
  const verbatimName = `verbatim-${generation}.bin`;
  const verbatim = writeBm25Segment(path.join(dir, verbatimName), { docBase: 0, texts: events.map(rawEventText), averageLengthFloor: 1 });

  const folds = new MemorySessionFolds(sessionId, rows, events);
  const manifest: ReadModelManifest = {
    schema: readModelSchema,
    session_id: sessionId,
    head,
    log_bytes: logBytes,
    log_sha256: logSha256,
    files: {
      entities,
      names,
      adjacency: adjacencyFile,
      events: eventsFile,
      keyword: { name: keywordName, bytes: keyword.bytes, sha256: keyword.sha256 },
      verbatim: { name: verbatimName, bytes: verbatim.bytes, sha256: verbatim.sha256 },
    },
    relation_types: adjacency.relationTypes,
    folds: {
      withheld_rule_seqs: [...folds.withheldRuleSeqs()],
      reinforcement: [...folds.reinforcement()],
      causal_edges: [...folds.causalEdges()],
      consolidation_candidates: [...folds.consolidationCandidates()],
    },
  };
  writeFileAtomic(manifestPath(root, sessionId), [Buffer.from(JSON.stringify(manifest), "utf8")]);
  const kept = new Set(["manifest.json", ...Object.values(manifest.files).map((file) => file.name)]);
  for (const name of fs.readdirSync(dir)) {
    if (!kept.has(name) && !name.includes(".tmp-")) fs.rmSync(path.join(dir, name), { force: true });
  }
  return manifest;
}
