/**
 * The fold's relations by endpoint node key, in the order they were indexed: a linked list per
 * node through typed arrays (each relation links to the next one of its source's list and of its
 * target's), instead of an array per node. At a million events the fold indexes ~670 k nodes'
 * lists, ~3 M entries: as arrays they were ~130 MB of the fold's peak and 670 k more cells for
 * every collection to mark.
 *
 * A relation stays in its lists once closed: readers skip closed relations (as the fold's rules
 * read only current ones), which leaves the current ones in the order an array with the closed
 * ones spliced out had.
 *
 * @example
 * const byNode = new RelationsByNode(store);
 * byNode.append(store.sourceKey(id), id);
 * byNode.ids(store.sourceKey(id)); // [..., id]
 */
import { GrowableArray } from "../growableArray.ts";
import type { RelationRows } from "./relationStore.ts";

const none = -1;

export class RelationsByNode {
  /** Each listed node's slot in `heads` and `tails`. */
  private readonly slots = new Map<string, number>();
  private readonly heads = new GrowableArray(new Int32Array(64), (n) => new Int32Array(n));
  private readonly tails = new GrowableArray(new Int32Array(64), (n) => new Int32Array(n));
  /** By relation id: the next relation in its source's list, and in its target's (a self-loop is in one list). */
  private readonly nextAtSource = new GrowableArray(new Int32Array(64), (n) => new Int32Array(n));
  private readonly nextAtTarget = new GrowableArray(new Int32Array(64), (n) => new Int32Array(n));

  constructor(private readonly relations: RelationRows) {}

  /** Appends relation `id`, one of whose endpoints is `nodeKey`, to that node's list. */
  append(nodeKey: string, id: number): void {
    this.reserve(id);
    this.setNext(nodeKey, id, none);
    const slot = this.slots.get(nodeKey);
    if (slot === undefined) {
      this.slots.set(nodeKey, this.heads.length);
      this.heads.push(id);
      this.tails.push(id);
      return;
    }
    if (this.heads.data[slot] === none) {
      this.heads.data[slot] = this.tails.data[slot] = id;
      return;
    }
    this.setNext(nodeKey, this.tails.data[slot], id);
    this.tails.data[slot] = id;
  }

  /** The ids listed under `nodeKey`, in list order (none for a node never listed). */
  ids(nodeKey: string): number[] {
    const slot = this.slots.get(nodeKey);
    const ids: number[] = [];
    if (slot === undefined) return ids;
    for (let id = this.heads.data[slot]; id !== none; id = this.next(nodeKey, id)) ids.push(id);
    return ids;
  }

  /** Lists exactly `ids` under `nodeKey`, in this order (each a relation with that endpoint). */
  replace(nodeKey: string, ids: readonly number[]): void {
    const slot = this.slots.get(nodeKey);
    if (ids.length === 0) {
      if (slot !== undefined) this.heads.data[slot] = this.tails.data[slot] = none;
      return;
    }
    if (slot === undefined) {
      for (const id of ids) this.append(nodeKey, id);
      return;
    }
    ids.forEach((id, i) => {
      this.reserve(id);
      this.setNext(nodeKey, id, i + 1 < ids.length ? ids[i + 1] : none);
    });
    this.heads.data[slot] = ids[0];
    this.tails.data[slot] = ids[ids.length - 1];
  }

  /** Whether `nodeKey` is the source end of relation `id` (a self-loop is listed at its source). */
  private atSource(nodeKey: string, id: number): boolean {
    return this.relations.sourceKey(id) === nodeKey;
  }

  private next(nodeKey: string, id: number): number {
    return this.atSource(nodeKey, id) ? this.nextAtSource.data[id] : this.nextAtTarget.data[id];
  }

  private setNext(nodeKey: string, id: number, next: number): void {
    if (this.atSource(nodeKey, id)) this.nextAtSource.data[id] = next;
    else this.nextAtTarget.data[id] = next;
  }

  private reserve(id: number): void {
    this.nextAtSource.extendTo(id + 1);
    this.nextAtTarget.extendTo(id + 1);
  }
}
