/**
 * Relation versions as columns instead of one object per row. A million-event session folds to
 * ~1.5 M relation versions: as `RelationRow` objects, each with its own key string and evidence
 * string, they were ~250 bytes apiece (~390 MB) and ~4.6 M cells for every collection to mark.
 * Here a row is an id: its node keys, timestamp and hash are pointers to strings the fold shares
 * anyway, its types, method, evidence and closing time ids into one string column (types and
 * methods once per value, the empty evidence of nearly every row once), its numbers sit in typed
 * arrays, and a key of the form the fold gives (`session \x1f seq \x1f ordinal`) is not stored
 * but spelled when read.
 *
 * `RelationRows` is what the read-model writers read: the store, or an array of rows
 * (`relationRowsOf`) for a caller that holds objects.
 *
 * @example
 * const store = new RelationStore("s");
 * const id = store.add({ sourceKey: "s\x1fa", targetKey: "s\x1fb", relationType: "uses", ... }, 7, 0);
 * store.relKey(id); // "s\x1f7\x1f0"
 * store.row(id);    // the RelationRow, built on each call
 */
import { GrowableArray } from "../growableArray.ts";
import { type EntityRow, type ProjectionHead, relationKey, type RelationRow } from "./types.ts";

/** What a relation row holds besides its key: the fields `RelationStore.add` takes. */
export type RelationFields = Omit<RelationRow, "relKey" | "sessionId">;

/** Relation versions by id (0 .. length-1, in relation order), read field by field or as rows. */
export interface RelationRows {
  readonly length: number;
  row(id: number): RelationRow;
  sourceKey(id: number): string;
  targetKey(id: number): string;
  relationType(id: number): string;
  validTo(id: number): string | null;
}

/** An array of relation rows as `RelationRows`. */
export function relationRowsOf(rows: readonly RelationRow[]): RelationRows {
  return {
    get length() {
      return rows.length;
    },
    row: (id) => rows[id],
    sourceKey: (id) => rows[id].sourceKey,
    targetKey: (id) => rows[id].targetKey,
    relationType: (id) => rows[id].relationType,
    validTo: (id) => rows[id].validTo,
  };
}

const emptyEvidence = "{}";

/**
 * A column's strings by 32-bit id, 0 for null: `intern` gives equal strings one id (types,
 * methods, the empty evidence: a few values on many rows), `append` a new id to each string (a
 * closing timestamp, an evidence object), whose copies the rows share anyway.
 */
class StringColumn {
  private readonly values: (string | null)[] = [null];
  private readonly interned = new Map<string, number>();

  intern(text: string | null): number {
    if (text === null) return 0;
    let id = this.interned.get(text);
    if (id === undefined) {
      id = this.append(text);
      this.interned.set(text, id);
    }
    return id;
  }

  append(text: string | null): number {
    if (text === null) return 0;
    this.values.push(text);
    return this.values.length - 1;
  }

  at(id: number): string | null {
    return this.values[id];
  }

  clear(): void {
    this.values.length = 1;
    this.interned.clear();
  }
}

function ids(): GrowableArray<Uint32Array> {
  return new GrowableArray(new Uint32Array(64), (n) => new Uint32Array(n));
}

export class RelationStore implements RelationRows {
  private readonly sourceKeys: string[] = [];
  private readonly targetKeys: string[] = [];
  private readonly validFroms: string[] = [];
  private readonly hashes: string[] = [];
  /** Ids into `texts` (0: null). */
  private readonly relationTypes = ids();
  private readonly validTos = ids();
  private readonly inferenceMethods = ids();
  private readonly evidence = ids();
  private readonly texts = new StringColumn();
  private readonly seqs = ids();
  /**
   * The event and the ordinal within it of a key the store spells (a copy onto a new entity
   * version keeps its citation's seq but is keyed by the event that copied it), or ordinal -1 for
   * a key kept in `keys`.
   */
  private readonly keySeqs = ids();
  private readonly ordinals = new GrowableArray(new Int32Array(64), (n) => new Int32Array(n));
  private readonly confidences = new GrowableArray(new Float64Array(64), (n) => new Float64Array(n));
  private readonly inferred = new GrowableArray(new Uint8Array(64), (n) => new Uint8Array(n));
  /** Keys not of the fold's form (rows read from a store), by id. */
  private readonly keys = new Map<number, string>();

  constructor(readonly sessionId: string) {}

  get length(): number {
    return this.seqs.length;
  }

  /** Adds a row keyed `session \x1f keySeq \x1f ordinal`; returns its id. */
  add(fields: RelationFields, keySeq: number, ordinal: number): number {
    return this.push(fields, keySeq, ordinal, null);
  }

  /** Adds a row as it is, key included (a stored row); returns its id. */
  addRow(row: RelationRow): number {
    if (row.sessionId !== this.sessionId) throw new Error(`relation store of session ${JSON.stringify(this.sessionId)}: a row of session ${JSON.stringify(row.sessionId)}`);
    return this.push(row, 0, -1, row.relKey);
  }

  private push(fields: RelationFields, keySeq: number, ordinal: number, key: string | null): number {
    const id = this.seqs.length;
    this.sourceKeys.push(fields.sourceKey);
    this.targetKeys.push(fields.targetKey);
    this.validFroms.push(fields.validFrom);
    this.hashes.push(fields.sourceEventHash);
    const texts = this.texts;
    this.relationTypes.push(texts.intern(fields.relationType));
    this.validTos.push(texts.append(fields.validTo));
    this.inferenceMethods.push(texts.intern(fields.inferenceMethod));
    this.evidence.push(fields.evidenceJson === emptyEvidence ? texts.intern(emptyEvidence) : texts.append(fields.evidenceJson));
    this.seqs.push(fields.sourceEventSeq);
    this.keySeqs.push(keySeq);
    this.ordinals.push(ordinal);
    this.confidences.push(fields.confidence);
    this.inferred.push(fields.inferred ? 1 : 0);
    if (key !== null) this.keys.set(id, key);
    return id;
  }

  relKey(id: number): string {
    const ordinal = this.ordinals.data[id];
    return ordinal < 0 ? this.keys.get(id)! : relationKey(this.sessionId, this.keySeqs.data[id], ordinal);
  }

  sourceKey(id: number): string {
    return this.sourceKeys[id];
  }

  targetKey(id: number): string {
    return this.targetKeys[id];
  }

  relationType(id: number): string {
    return this.texts.at(this.relationTypes.data[id])!;
  }

  validTo(id: number): string | null {
    return this.texts.at(this.validTos.data[id]);
  }

  setValidTo(id: number, validTo: string): void {
    this.validTos.data[id] = this.texts.append(validTo);
  }

  /** The row's fields other than its key, for a copy under another key. */
  fields(id: number): RelationFields {
    return {
      sourceKey: this.sourceKeys[id],
      targetKey: this.targetKeys[id],
      relationType: this.relationType(id),
      validFrom: this.validFroms[id],
      validTo: this.validTo(id),
      inferred: this.inferred.data[id] === 1,
      confidence: this.confidences.data[id],
      inferenceMethod: this.texts.at(this.inferenceMethods.data[id]),
      sourceEventSeq: this.seqs.data[id],
      sourceEventHash: this.hashes[id],
      evidenceJson: this.texts.at(this.evidence.data[id])!,
    };
  }

  /** The row with this id, a new object on each call (changing it changes nothing here). */
  row(id: number): RelationRow {
    return { relKey: this.relKey(id), sessionId: this.sessionId, ...this.fields(id) };
  }

  /** The rows from `from` on, built one at a time. */
  *rows(from = 0): IterableIterator<RelationRow> {
    for (let id = from; id < this.length; id++) yield this.row(id);
  }

  /** Drops every row and the columns' storage (a caller done with the relations, not the entities). */
  clear(): void {
    for (const column of [this.sourceKeys, this.targetKeys, this.validFroms, this.hashes]) column.length = 0;
    for (const column of [this.relationTypes, this.validTos, this.inferenceMethods, this.evidence, this.seqs, this.keySeqs, this.ordinals, this.confidences, this.inferred]) column.clear();
    this.texts.clear();
    this.keys.clear();
  }
}

/** A session's rows whose relations are an array or `RelationRows`: what the read-model writer reads. */
export interface GraphRows {
  readonly entities: EntityRow[];
  readonly relations: readonly RelationRow[] | RelationRows;
  readonly head: ProjectionHead | null;
}

/** The rows a whole fold holds (`GraphFold.packedRows`): the entity versions and the relation store. */
export interface PackedGraphRows extends GraphRows {
  readonly relations: RelationStore;
}

/** `relations` as `RelationRows`. */
export function relationRowsIn(relations: readonly RelationRow[] | RelationRows): RelationRows {
  return "row" in relations ? relations : relationRowsOf(relations);
}

/** `relations` as rows to iterate, each pass over a store building its rows afresh. */
export function relationIterable(relations: readonly RelationRow[] | RelationRows): Iterable<RelationRow> {
  if (!("row" in relations)) return relations;
  return {
    *[Symbol.iterator]() {
      for (let id = 0; id < relations.length; id++) yield relations.row(id);
    },
  };
}
