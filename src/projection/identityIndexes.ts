/**
 * The fold's rows by identity without a key string per row: an identity is hashed to a number
 * and rows with equal hashes are chained and told apart by their own fields. A joined key string
 * with its map entry was ~250 bytes per active relation (1M events: ~400 MB of the fold's peak)
 * and ~150 per entity, and one more string of garbage per lookup.
 *
 * - `ActiveRelationIndex`: the ids of active relations (`RelationRows`) by (source node key,
 *   target node key, type).
 * - `EntityIdentityIndex`: entity versions by the joined `type \x1f name`, compared as the joined
 *   string would be (a type that holds the separator names the identity it spells).
 *
 * @example
 * const active = new ActiveRelationIndex(store);
 * active.set(id);
 * active.get(store.sourceKey(id), store.targetKey(id), store.relationType(id)); // id
 * active.delete(row.sourceKey, row.targetKey, row.relationType);
 */
import type { RelationRows } from "./relationStore.ts";
import type { EntityRow } from "./types.ts";

const separator = 0x1f;

/** Two 32-bit FNV-1a style hashes of a sequence of UTF-16 code units, as one 53-bit number. */
class IdentityHash {
  private low = 0x811c9dc5;
  private high = 0x050c5d1f;

  static of(...parts: string[]): number {
    const hash = new IdentityHash();
    parts.forEach((part, i) => {
      if (i > 0) hash.mix(separator);
      for (let k = 0; k < part.length; k++) hash.mix(part.charCodeAt(k));
    });
    return hash.value;
  }

  private mix(code: number): void {
    this.low = Math.imul(this.low ^ code, 0x01000193);
    this.high = Math.imul(this.high ^ code, 0x5bd1e995);
  }

  private get value(): number {
    return (this.low >>> 0) * 0x200000 + (this.high >>> 11);
  }
}

/** Rows chained under their identity's hash; `matches` tells a row of the identity looked up. */
class HashedRows<Row extends object | number> {
  private readonly byHash = new Map<number, Row | Row[]>();

  get(hash: number, matches: (row: Row) => boolean): Row | undefined {
    const found = this.byHash.get(hash);
    if (found === undefined) return undefined;
    if (!Array.isArray(found)) return matches(found) ? found : undefined;
    return found.find(matches);
  }

  /** Makes `row` the row of its identity, in place of any other. */
  set(hash: number, row: Row, matches: (row: Row) => boolean): void {
    const found = this.byHash.get(hash);
    if (found === undefined || (!Array.isArray(found) && matches(found))) {
      this.byHash.set(hash, row);
      return;
    }
    const chain = Array.isArray(found) ? found : [found];
    const at = chain.findIndex(matches);
    if (at >= 0) chain[at] = row;
    else chain.push(row);
    this.byHash.set(hash, chain);
  }

  delete(hash: number, matches: (row: Row) => boolean): void {
    const found = this.byHash.get(hash);
    if (found === undefined) return;
    if (!Array.isArray(found)) {
      if (matches(found)) this.byHash.delete(hash);
      return;
    }
    const rest = found.filter((row) => !matches(row));
    if (rest.length === 0) this.byHash.delete(hash);
    else this.byHash.set(hash, rest.length === 1 ? rest[0] : rest);
  }
}

export class ActiveRelationIndex {
  private readonly rows = new HashedRows<number>();

  /** `relations`: where the ids this index holds are read. */
  constructor(private readonly relations: RelationRows) {}

  /** The id of the active relation of this identity. */
  get(sourceKey: string, targetKey: string, relationType: string): number | undefined {
    return this.rows.get(IdentityHash.of(sourceKey, targetKey, relationType), (id) => this.matches(id, sourceKey, targetKey, relationType));
  }

  has(sourceKey: string, targetKey: string, relationType: string): boolean {
    return this.get(sourceKey, targetKey, relationType) !== undefined;
  }

  /** Makes relation `id` the active relation of its identity, in place of any other. */
  set(id: number): void {
    const relations = this.relations;
    const sourceKey = relations.sourceKey(id);
    const targetKey = relations.targetKey(id);
    const relationType = relations.relationType(id);
    this.rows.set(IdentityHash.of(sourceKey, targetKey, relationType), id, (other) => this.matches(other, sourceKey, targetKey, relationType));
  }

  delete(sourceKey: string, targetKey: string, relationType: string): void {
    this.rows.delete(IdentityHash.of(sourceKey, targetKey, relationType), (id) => this.matches(id, sourceKey, targetKey, relationType));
  }

  private matches(id: number, sourceKey: string, targetKey: string, relationType: string): boolean {
    const relations = this.relations;
    return relations.sourceKey(id) === sourceKey && relations.targetKey(id) === targetKey && relations.relationType(id) === relationType;
  }
}

/** Whether `type \x1f name` and `otherType \x1f otherName` are the same string. */
function sameJoined(type: string, name: string, otherType: string, otherName: string): boolean {
  if (type === otherType) return name === otherName;
  const length = type.length + 1 + name.length;
  if (otherType.length + 1 + otherName.length !== length) return false;
  const at = (first: string, second: string, i: number) => (i < first.length ? first.charCodeAt(i) : i === first.length ? separator : second.charCodeAt(i - first.length - 1));
  for (let i = 0; i < length; i++) if (at(type, name, i) !== at(otherType, otherName, i)) return false;
  return true;
}

export class EntityIdentityIndex {
  private readonly rows = new HashedRows<EntityRow>();

  get(entityType: string, name: string): EntityRow | undefined {
    return this.rows.get(IdentityHash.of(entityType, name), (row) => sameJoined(row.entityType, row.name, entityType, name));
  }

  has(entityType: string, name: string): boolean {
    return this.get(entityType, name) !== undefined;
  }

  /** Makes `row` the row of the identity (`entityType`, `name`), in place of any other. */
  set(entityType: string, name: string, row: EntityRow): void {
    this.rows.set(IdentityHash.of(entityType, name), row, (other) => sameJoined(other.entityType, other.name, entityType, name));
  }

  delete(entityType: string, name: string): void {
    this.rows.delete(IdentityHash.of(entityType, name), (row) => sameJoined(row.entityType, row.name, entityType, name));
  }
}
