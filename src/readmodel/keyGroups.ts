/**
 * Entity positions grouped by a string key (a node key, a lowercased name), in typed arrays: what
 * the read-model writer builds its key tables and resolves relation endpoints from. Groups are
 * numbered in the order of their first position, and each group's positions ascend, as a
 * `Map<string, number[]>` filled in position order would hold them; at a million entity versions
 * that map's arrays alone were ~100 MB.
 *
 * @example
 * const byNodeKey = KeyGroups.of(rows.entities.length, (p) => rows.entities[p].nodeKey);
 * byNodeKey.lastPosition(relation.sourceKey); // the later version if two shared the key, or -1
 */
export class KeyGroups {
  private constructor(
    /** Each group's key, by group id. */
    readonly keys: readonly string[],
    private readonly groupOfKey: ReadonlyMap<string, number>,
    /** Group g's positions are `positions[start[g] .. start[g + 1])`. */
    readonly start: Uint32Array,
    readonly positions: Uint32Array,
  ) {}

  static of(count: number, keyAt: (position: number) => string): KeyGroups {
    const groupOfKey = new Map<string, number>();
    const keys: string[] = [];
    const groupOfPosition = new Uint32Array(count);
    for (let position = 0; position < count; position++) {
      const key = keyAt(position);
      let group = groupOfKey.get(key);
      if (group === undefined) {
        group = keys.length;
        keys.push(key);
        groupOfKey.set(key, group);
      }
      groupOfPosition[position] = group;
    }
    const start = new Uint32Array(keys.length + 1);
    for (let position = 0; position < count; position++) start[groupOfPosition[position] + 1]++;
    for (let group = 0; group < keys.length; group++) start[group + 1] += start[group];
    const next = start.slice(0, keys.length);
    const positions = new Uint32Array(count);
    for (let position = 0; position < count; position++) positions[next[groupOfPosition[position]]++] = position;
    return new KeyGroups(keys, groupOfKey, start, positions);
  }

  /** The last position with `key`, or -1. */
  lastPosition(key: string): number {
    const group = this.groupOfKey.get(key);
    return group === undefined ? -1 : this.positions[this.start[group + 1] - 1];
  }
}
