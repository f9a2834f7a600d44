/**
 * A read-model source for a log folded one event at a time (`zaxy reproject`): what the writer
 * needs of the events is collected as they pass, so none is held after its turn. The verbatim
 * BM25 index is built as they pass (the same documents in the same order as
 * `RowsReadModelSource`'s, so the stored segment is the same bytes). No event is kept: of those
 * some whole-session fold reads, only the seq is (with which folds read it), and the folds read
 * them, and any other event they look up, again from the log (`LogEventReader`) when they are
 * computed. At a million events the kept events were ~400 MB, held while the log was folded.
 *
 * @example
 * const collector = new StreamedEventCollector();
 * // for each verified event: fold it, then collector.add(event)
 * const source = new StreamedReadModelSource(sessionId, rows, collector, logPath, logBytes);
 * writeReadModel(root, logPath, source, rows, collector.headEvents(), warn, { releaseEvents: () => source.release() });
 */
import type { EventRecord } from "../eventloom/envelope.ts";
import { GrowableArray } from "../growableArray.ts";
import { keptSeqsFoldSource, RegistrySessionFolds, type SessionFolds, sessionFoldsReading } from "../folds/sessionFolds.ts";
import type { GraphRows } from "../projection/relationStore.ts";
import { Bm25Index } from "../retrieval/bm25.ts";
import { rawEventText } from "../vector/textAnalysis.ts";
import { LogEventReader } from "./logEventReader.ts";
import { keywordIndexOf, type ReadModelSource } from "./readModelSource.ts";

/** What the read model needs of each event of a log, taken as the events pass in seq order. */
export class StreamedEventCollector {
  // The same options as buildSessionIndex's: the stored segment must score as the in-memory one.
  private verbatim: Bm25Index | null = new Bm25Index({ averageLengthFloor: 1 });
  /** The seqs of the events some whole-session fold reads, in seq order, and which folds read each. */
  private readonly keptSeqs = new GrowableArray(new Uint32Array(64), (n) => new Uint32Array(n));
  private readonly keptFolds = new GrowableArray(new Uint32Array(64), (n) => new Uint32Array(n));
  count = 0;
  headHash = "";

  add(event: EventRecord): void {
    this.verbatim!.add(rawEventText(event));
    const folds = sessionFoldsReading(event);
    if (folds !== 0) {
      this.keptSeqs.push(event.seq);
      this.keptFolds.push(folds);
    }
    this.count++;
    this.headHash = event.hash;
  }

  /** The kept seqs with their fold bits (`keptSeqsFoldSource`'s input). */
  get foldEvents(): { seqs: Uint32Array; folds: Uint32Array; count: number } {
    return { seqs: this.keptSeqs.data, folds: this.keptFolds.data, count: this.keptSeqs.length };
  }

  /** The verbatim index, handed over once: the collector keeps no reference to it. */
  takeVerbatim(): Bm25Index {
    if (this.verbatim === null) throw new Error("the verbatim index of a streamed log is taken once");
    const verbatim = this.verbatim;
    this.verbatim = null;
    return verbatim;
  }

  /** The log as the writer checks it against the rows' head: its length and its last event's hash. */
  headEvents(): readonly { readonly hash: string }[] {
    const events: { hash: string }[] = [];
    if (this.count > 0) events[this.count - 1] = { hash: this.headHash };
    return events;
  }
}

export class StreamedReadModelSource implements ReadModelSource {
  readonly folds: SessionFolds;
  private readonly collected: StreamedEventCollector;
  private readonly reader: LogEventReader;

  constructor(readonly sessionId: string, private readonly rows: GraphRows, collected: StreamedEventCollector, logPath: string, logBytes: number) {
    this.collected = collected;
    this.reader = new LogEventReader(logPath, logBytes, collected.count);
    this.folds = new RegistrySessionFolds(keptSeqsFoldSource(sessionId, rows, collected.foldEvents, (seq) => this.reader.event(seq)));
  }

  get keyword(): Bm25Index {
    return keywordIndexOf(this.rows.entities);
  }

  /** Handed over once: the writer stores it and nothing here keeps it. */
  get verbatim(): Bm25Index {
    return this.collected.takeVerbatim();
  }

  /** Closes the log, once the writer has stored the folds. */
  release(): void {
    this.reader.close();
  }
}
