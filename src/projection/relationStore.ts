/**
 * Relation versions as columns instead of one object per row. A million-event session folds to
 * ~1.5 M relation versions: as `RelationRow` objects, each with its own key string and evidence
 * string, they were ~250 bytes apiece (~390 MB) and ~4.6 M cells for every collection to mark.
 * Here a row is an id: its strings are pointers to strings the fold shares anyway (node keys,
 * types, the event's timestamp and hash), its numbers sit in typed arrays, a key of the form the
 * fold gives (`session \x1f seq \x1f ordinal`) is not stored but spelled when read, and the empty
 * evidence (nearly every row's) is one string.
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

export class RelationStore implements RelationRows {
  private readonly sourceKeys: string[] = [];
  private readonly targetKeys: string[] = [];
  private readonly relationTypes: string[] = [];
  private readonly validFroms: string[] = [];
  private readonly validTos: (string | null)[] = [];
  private readonly inferenceMethods: (string | null)[] = [];
  private readonly hashes: string[] = [];
  private readonly evidence: string[] = [];
  private readonly seqs = new GrowableArray(new Uint32Array(64), (n) => new Uint32Array(n));
  /**
   * The event and the ordinal within it of a key the store spells (a copy onto a new entity
   * version keeps its citation's seq but is keyed by the event that copied it), or ordinal -1 for
   * a key kept in `keys`.
   */
  private readonly keySeqs = new GrowableArray(new Uint32Array(64), (n) => new Uint32Array(n));
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
    this.relationTypes.push(fields.relationType);
    this.validFroms.push(fields.validFrom);
    this.validTos.push(fields.validTo);
    this.inferenceMethods.push(fields.inferenceMethod);
    this.hashes.push(fields.sourceEventHash);
    this.evidence.push(fields.evidenceJson === emptyEvidence ? emptyEvidence : fields.evidenceJson);
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
    return this.relationTypes[id];
  }

  validTo(id: number): string | null {
    return this.validTos[id];
  }

  setValidTo(id: number, validTo: string): void {
    this.validTos[id] = validTo;
  }

  /** The row's fields other than its key, for a copy under another key. */
  fields(id: number): RelationFields {
    return {
      sourceKey: this.sourceKeys[id],
      targetKey: this.targetKeys[id],
      relationType: this.relationTypes[id],
      validFrom: this.validFroms[id],
      validTo: this.validTos[id],
      inferred: this.inferred.data[id] === 1,
      confidence: this.confidences.data[id],
      inferenceMethod: this.inferenceMethods[id],
      sourceEventSeq: this.seqs.data[id],
      sourceEventHash: this.hashes[id],
      evidenceJson: this.evidence[id],
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
    for (const column of [this.sourceKeys, this.targetKeys, this.relationTypes, this.validFroms, this.validTos, this.inferenceMethods, this.hashes, this.evidence]) column.length = 0;
    for (const column of [this.seqs, this.keySeqs, this.ordinals, this.confidences, this.inferred]) column.clear();
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
