/**
 * The fold's active relations by identity (source node key, target node key, relation type),
 * without a key string per relation: the identity is hashed to a number and rows with equal
 * hashes are chained and told apart by their fields. A joined key string was ~250 bytes per
 * relation with its map entry (1M events: ~400 MB of the fold's peak) and one more string of
 * garbage per lookup.
 *
 * @example
 * const active = new ActiveRelationIndex();
 * active.set(row);
 * active.get(row.sourceKey, row.targetKey, row.relationType); // row
 * active.delete(row.sourceKey, row.targetKey, row.relationType);
 */
import type { RelationRow } from "./types.ts";

const separator = 0x1f;

/** Two 32-bit FNV-1a style hashes of the identity's UTF-16 code units, as one 53-bit number. */
function identityHash(sourceKey: string, targetKey: string, relationType: string): number {
  let low = 0x811c9dc5;
  let high = 0x050c5d1f;
  const mix = (code: number) => {
    low = Math.imul(low ^ code, 0x01000193);
    high = Math.imul(high ^ code, 0x5bd1e995);
  };
  for (let i = 0; i < sourceKey.length; i++) mix(sourceKey.charCodeAt(i));
  mix(separator);
  for (let i = 0; i < targetKey.length; i++) mix(targetKey.charCodeAt(i));
  mix(separator);
  for (let i = 0; i < relationType.length; i++) mix(relationType.charCodeAt(i));
  return (low >>> 0) * 0x200000 + (high >>> 11);
}

function hasIdentity(row: RelationRow, sourceKey: string, targetKey: string, relationType: string): boolean {
  return row.sourceKey === sourceKey && row.targetKey === targetKey && row.relationType === relationType;
}

export class ActiveRelationIndex {
  private readonly byHash = new Map<number, RelationRow | RelationRow[]>();

  get(sourceKey: string, targetKey: string, relationType: string): RelationRow | undefined {
    const found = this.byHash.get(identityHash(sourceKey, targetKey, relationType));
    if (found === undefined) return undefined;
    if (!Array.isArray(found)) return hasIdentity(found, sourceKey, targetKey, relationType) ? found : undefined;
    return found.find((row) => hasIdentity(row, sourceKey, targetKey, relationType));
  }

  has(sourceKey: string, targetKey: string, relationType: string): boolean {
    return this.get(sourceKey, targetKey, relationType) !== undefined;
  }

  /** Makes `row` the active relation of its identity, in place of any other. */
  set(row: RelationRow): void {
    const hash = identityHash(row.sourceKey, row.targetKey, row.relationType);
    const found = this.byHash.get(hash);
    if (found === undefined || (!Array.isArray(found) && hasIdentity(found, row.sourceKey, row.targetKey, row.relationType))) {
      this.byHash.set(hash, row);
      return;
    }
    const chain = Array.isArray(found) ? found : [found];
    const at = chain.findIndex((other) => hasIdentity(other, row.sourceKey, row.targetKey, row.relationType));
    if (at >= 0) chain[at] = row;
    else chain.push(row);
    this.byHash.set(hash, chain);
  }

  delete(sourceKey: string, targetKey: string, relationType: string): void {
    const hash = identityHash(sourceKey, targetKey, relationType);
    const found = this.byHash.get(hash);
    if (found === undefined) return;
    if (!Array.isArray(found)) {
      if (hasIdentity(found, sourceKey, targetKey, relationType)) this.byHash.delete(hash);
      return;
    }
    const rest = found.filter((row) => !hasIdentity(row, sourceKey, targetKey, relationType));
    if (rest.length === 0) this.byHash.delete(hash);
    else this.byHash.set(hash, rest.length === 1 ? rest[0] : rest);
  }
}
