/**
 * Reading the read model's tables: one reader class per table file, each over a checked
 * `BinaryFile` (platform/binaryFile.ts), reading on demand what a query touches. The writers and
 * each table's byte layout stay in the table's own module (entityTable.ts, eventSpans.ts,
 * relationTable.ts, sortedTable.ts, adjacencyTable.ts); this module only reads.
 */
import type { EntityRow, RelationRow } from "../projection/types.ts";
import { BinaryFile, byteSection, f64Section, type FileSection, headerBytes, u32Section } from "../platform/binaryFile.ts";
import type { EntityTuple } from "./entityTable.ts";
import { type EventRecord, recordFromLine } from "../eventloom/envelope.ts";
import * as fs from "node:fs";
import { isJsonObject, parseJsonBytes } from "../canonical/mod.ts";
import { countsBytes, type RelationTuple, type StoredRelation } from "./relationTable.ts";
import type { Neighbour } from "../retrieval/sessionIndex.ts";

// The table of entityTable.ts (layout in its header).
/** Versions read on demand; the most recently read are kept, up to a bound. */
export class EntityTable {
  readonly count: number;
  private readonly heapStart: number;
  private readonly cache = new Map<number, EntityRow>();
  /** Rows kept after reading (a few hundred bytes each): a server's repeated queries touch the same ones. */
  private static readonly cachedRowsMax = 32_768;
  /** The offsets table (8 bytes per version), read pair by pair, and whole once many were (binaryFile.ts). */
  private readonly offsets: FileSection<Float64Array>;

  constructor(private readonly file: BinaryFile, private readonly sessionId: string) {
    this.count = file.u32(headerBytes);
    this.heapStart = headerBytes + 8 + 8 * (this.count + 1);
    file.check(this.heapStart <= file.size, `holds ${this.count} versions but is only ${file.size} bytes`);
    const heapBytes = file.f64Array(headerBytes + 8 + 8 * this.count, 1)[0];
    file.check(this.heapStart + heapBytes === file.size, "has a heap that does not end at the end of the file");
    this.offsets = f64Section(file, headerBytes + 8, this.count + 1);
  }

  row(position: number): EntityRow {
    const cached = this.cache.get(position);
    if (cached !== undefined) return cached;
    this.file.check(Number.isInteger(position) && position >= 0 && position < this.count, `has no version at position ${position}`);
    const [start, end] = this.offsets.range(position, position + 2);
    this.file.check(end >= start, `has a negative-length version at position ${position}`);
    let tuple: EntityTuple;
    try {
      tuple = JSON.parse(this.file.bytes(this.heapStart + start, end - start).toString("utf8")) as EntityTuple;
    } catch {
      return this.file.check(false, `has an unreadable version at position ${position}`) as never;
    }
    const [nodeKey, name, entityType, summary, propertiesJson, validFrom, validTo, sourceEventSeq, sourceEventHash, vectorKey] = tuple;
    const row: EntityRow = { nodeKey, sessionId: this.sessionId, name, entityType, summary, propertiesJson, validFrom, validTo, sourceEventSeq, sourceEventHash, vectorKey };
    if (this.cache.size >= EntityTable.cachedRowsMax) this.cache.clear();
    this.cache.set(position, row);
    return row;
  }
}

// The table of eventSpans.ts (layout in its header).
/** Events read from the log by position through their spans. */
export class EventSpans {
  readonly count: number;
  private readonly cache = new Map<number, EventRecord>();
  private static readonly cachedEventsMax = 4096;
  /** The spans table (16 bytes per event), read span by span, and whole once many were (binaryFile.ts). */
  private readonly spans: FileSection<Float64Array>;

  constructor(private readonly file: BinaryFile, private readonly logFd: number, private readonly logBytes: number) {
    this.count = file.u32(headerBytes);
    file.check(headerBytes + 8 + 16 * this.count === file.size, "has sections that do not add up to its size");
    this.spans = f64Section(file, headerBytes + 8, 2 * this.count);
  }

  event(position: number): EventRecord {
    const cached = this.cache.get(position);
    if (cached !== undefined) return cached;
    this.file.check(Number.isInteger(position) && position >= 0 && position < this.count, `has no event at position ${position}`);
    const [start, end] = this.spans.range(2 * position, 2 * position + 2);
    this.file.check(start <= end && end <= this.logBytes, `has a span outside the verified log at position ${position}`);
    const bytes = Buffer.allocUnsafe(end - start);
    let done = 0;
    while (done < bytes.length) {
      const read = fs.readSync(this.logFd, bytes, done, bytes.length - done, start + done);
      this.file.check(read > 0, `points past the end of the log at position ${position}`);
      done += read;
    }
    let parsed;
    try {
      parsed = parseJsonBytes(bytes);
    } catch {
      parsed = undefined;
    }
    this.file.check(parsed !== undefined && isJsonObject(parsed), `points at a line that is not an event at position ${position}`);
    const event = recordFromLine(parsed as Parameters<typeof recordFromLine>[0], position + 1);
    if (this.cache.size >= EventSpans.cachedEventsMax) this.cache.clear();
    this.cache.set(position, event);
    return event;
  }

  range(from: number, to: number): EventRecord[] {
    const out: EventRecord[] = [];
    for (let position = Math.max(0, from); position < Math.min(to, this.count); position++) out.push(this.event(position));
    return out;
  }
}

// The table of relationTable.ts (layout in its header).
/**
 * Relations read on demand. The endpoint positions and the current table (16 bytes per relation
 * and 4 per entity) are read whole on first use, the offsets table on the first row read; rows
 * are parsed per read and never cached, so a caller may change what it is given.
 */
export class RelationTable {
  readonly count: number;
  readonly entityCount: number;
  private readonly currentIdCount: number;
  private readonly startAt: number;
  private readonly idsAt: number;
  private readonly offsetsAt: number;
  private readonly heapAt: number;
  private loaded?: { sources: Int32Array; targets: Int32Array; start: Uint32Array; ids: Uint32Array };
  private offsets?: Float64Array;

  constructor(private readonly file: BinaryFile, private readonly sessionId: string) {
    this.count = file.u32(headerBytes);
    this.entityCount = file.u32(headerBytes + 4);
    this.currentIdCount = file.u32(headerBytes + 8);
    const positionsAt = headerBytes + countsBytes;
    this.startAt = positionsAt + 8 * this.count;
    this.idsAt = this.startAt + 4 * (this.entityCount + 2);
    this.offsetsAt = this.idsAt + 4 * this.currentIdCount;
    this.heapAt = this.offsetsAt + 8 * (this.count + 1);
    file.check(this.heapAt <= file.size, `holds ${this.count} relations and ${this.entityCount} entities but is only ${file.size} bytes`);
    const heapBytes = file.f64Array(this.offsetsAt + 8 * this.count, 1)[0];
    file.check(this.heapAt + heapBytes === file.size, "has a heap that does not end at the end of the file");
  }

  private tables() {
    if (this.loaded !== undefined) return this.loaded;
    const positionsAt = headerBytes + countsBytes;
    const positions = this.file.u32Array(positionsAt, 2 * this.count);
    const start = this.file.u32Array(this.startAt, this.entityCount + 2);
    this.file.check(start[0] === 0 && start[this.entityCount + 1] === this.currentIdCount, "has a current-relation table that does not cover its ids");
    return this.loaded = {
      sources: new Int32Array(positions.buffer, positions.byteOffset, this.count),
      targets: new Int32Array(positions.buffer, positions.byteOffset + 4 * this.count, this.count),
      start,
      ids: this.file.u32Array(this.idsAt, this.currentIdCount),
    };
  }

  /** Relation `id` (its ordinal in relation order) with its endpoints' positions. */
  relation(id: number): StoredRelation {
    this.file.check(Number.isInteger(id) && id >= 0 && id < this.count, `has no relation ${id}`);
    const { sources, targets } = this.tables();
    this.offsets ??= this.file.f64Array(this.offsetsAt, this.count + 1);
    const from = this.offsets[id];
    const to = this.offsets[id + 1];
    this.file.check(to >= from, `has a negative-length relation ${id}`);
    let tuple: RelationTuple;
    try {
      tuple = JSON.parse(this.file.bytes(this.heapAt + from, to - from).toString("utf8")) as RelationTuple;
    } catch {
      return this.file.check(false, `has an unreadable relation ${id}`) as never;
    }
    this.file.check(Array.isArray(tuple) && tuple.length === 12, `has a relation ${id} that is not a 12-field row`);
    const [relKey, sourceKey, targetKey, relationType, validFrom, validTo, inferred, confidence, inferenceMethod, sourceEventSeq, sourceEventHash, evidenceJson] = tuple;
    const sourcePosition = sources[id];
    const targetPosition = targets[id];
    this.file.check(sourcePosition >= -1 && sourcePosition < this.entityCount && targetPosition >= -1 && targetPosition < this.entityCount, `has a bad endpoint position for relation ${id}`);
    const row: RelationRow = { relKey, sessionId: this.sessionId, sourceKey, targetKey, relationType, validFrom, validTo, inferred, confidence, inferenceMethod, sourceEventSeq, sourceEventHash, evidenceJson };
    return { row, sourcePosition, targetPosition };
  }

  /**
   * Ids of the current relations with an endpoint at `position`, in relation order;
   * `position === entityCount` names those with an endpoint that is no stored version.
   */
  currentIdsAt(position: number): Uint32Array {
    if (!(Number.isInteger(position) && position >= 0 && position <= this.entityCount)) return new Uint32Array(0);
    const { start, ids } = this.tables();
    const from = start[position];
    const to = start[position + 1];
    this.file.check(from <= to && to <= this.currentIdCount, `has a bad current-relation range at position ${position}`);
    // A copy: the caller may keep or change it without touching the table.
    const out = ids.slice(from, to);
    for (let i = 0; i < out.length; i++) {
      this.file.check(out[i] < this.count && (i === 0 || out[i] > out[i - 1]), `has a bad current relation id at position ${position}`);
    }
    return out;
  }

  /** `check` of the underlying file: a row that contradicts the table is corruption. */
  check(condition: boolean, reason: string): void {
    this.file.check(condition, reason);
  }
}

// The table of sortedTable.ts (layout in its header).
export class SortedTable {
  private readonly keys: number;
  private readonly valueCount: number;
  /** Read probe by probe, and whole once a server's lookups have touched enough (binaryFile.ts). */
  private readonly keyOffsets: FileSection<Uint32Array>;
  private readonly keyHeap: FileSection<Buffer>;
  private readonly valueOffsetsAt: number;
  private readonly valuesAt: number;
  private readonly heapAt: number;

  constructor(private readonly file: BinaryFile) {
    this.keys = file.u32(headerBytes);
    this.valueCount = file.u32(headerBytes + 4);
    const heapBytes = file.u32(headerBytes + 8);
    this.valueOffsetsAt = headerBytes + 16 + 4 * (this.keys + 1);
    this.valuesAt = this.valueOffsetsAt + 4 * (this.keys + 1);
    this.heapAt = this.valuesAt + 4 * this.valueCount;
    file.check(this.heapAt + heapBytes === file.size, "has sections that do not add up to its size");
    this.keyOffsets = u32Section(file, headerBytes + 16, this.keys + 1);
    this.keyHeap = byteSection(file, this.heapAt, heapBytes);
  }

  /** The values of `key`, or an empty list. */
  get(key: string): number[] {
    if (this.keys === 0) return [];
    const wanted = Buffer.from(key, "utf8");
    let low = 0;
    let high = this.keys - 1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      const [keyStart, keyEnd] = this.keyOffsets.range(middle, middle + 2);
      this.file.check(keyStart <= keyEnd, `has a negative-length key ${middle}`);
      const order = Buffer.compare(this.keyHeap.range(keyStart, keyEnd), wanted);
      if (order === 0) {
        const [from, to] = this.file.u32Array(this.valueOffsetsAt + 4 * middle, 2);
        this.file.check(from <= to && to <= this.valueCount, `has a bad value range for key ${middle}`);
        return Array.from(this.file.u32Array(this.valuesAt + 4 * from, to - from));
      }
      if (order < 0) low = middle + 1;
      else high = middle - 1;
    }
    return [];
  }
}

// The table of adjacencyTable.ts (layout in its header).
export class AdjacencyTable {
  private readonly entities: number;
  private readonly neighbourCount: number;
  private readonly neighboursAt: number;
  private readonly typesAt: number;
  /** Read range by range, and whole once a traversal has touched enough of them (binaryFile.ts). */
  private readonly start: FileSection<Uint32Array>;
  private readonly neighbourEntities: FileSection<Uint32Array>;
  private readonly neighbourTypes: FileSection<Uint32Array>;

  constructor(private readonly file: BinaryFile, private readonly relationTypes: readonly string[]) {
    this.entities = file.u32(headerBytes);
    this.neighbourCount = file.u32(headerBytes + 4);
    this.neighboursAt = headerBytes + 8 + 4 * (this.entities + 1);
    this.typesAt = this.neighboursAt + 4 * this.neighbourCount;
    file.check(this.typesAt + 4 * this.neighbourCount === file.size, "has sections that do not add up to its size");
    this.start = u32Section(file, headerBytes + 8, this.entities + 1);
    this.neighbourEntities = u32Section(file, this.neighboursAt, this.neighbourCount);
    this.neighbourTypes = u32Section(file, this.typesAt, this.neighbourCount);
  }

  /** The first `limit` neighbours of `position` (a hub can have tens of thousands). */
  neighbours(position: number, limit: number): Neighbour[] {
    if (!(position >= 0 && position < this.entities)) return [];
    const [from, end] = this.start.range(position, position + 2);
    this.file.check(from <= end && end <= this.neighbourCount, `has a bad neighbour range at position ${position}`);
    const to = Math.min(end, from + Math.max(0, limit));
    if (from === to) return [];
    const entities = this.neighbourEntities.range(from, to);
    const types = this.neighbourTypes.range(from, to);
    const out: Neighbour[] = [];
    for (let i = 0; i < entities.length; i++) {
      const relationType = this.relationTypes[types[i]];
      this.file.check(relationType !== undefined && entities[i] < this.entities, `has a bad neighbour at position ${position}`);
      out.push({ entity: entities[i], relationType });
    }
    return out;
  }
}
