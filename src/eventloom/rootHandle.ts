/**
 * A handle on one Eventloom root, as a database connection is a handle on one database: it owns
 * what a process keeps about the root between calls, instead of module-level maps keyed by path.
 * - the shared store the root mirrors, when one is bound (threadStore.ts);
 * - state made on first use, each kind behind a `RootSlot` its own module defines: per-session
 *   indexes of the keys an append checks for duplicates (append.ts, logKeyIndex.ts), the
 *   erasure vault (forgetting.ts), the memory service (memory/service.ts). This module imports
 *   none of them, so a command that never touches one never loads it, and no layer below the
 *   one owning a kind of state learns about it.
 *
 * `Root.of(path)` is the process's handle on a root (one per resolved path): the front ends and
 * every function that still takes a root path reach the same state through it. `Root.open(path)`
 * makes a handle of its own, sharing nothing with the process's one (two handles on one root
 * behave as two processes do).
 *
 * @example
 * const root = Root.of(".eventloom");
 * await appendEvents(root, "default", [{ type: "goal.created", actor: "agent", payload }]);
 */
import * as path from "node:path";
import type { ThreadStore } from "./threadStore.ts";

/**
 * A kind of per-root state made on first use: `create` runs once per handle. Define one at the
 * top of the module that owns the state.
 */
export interface RootSlot<T> {
  readonly name: string;
  create(root: Root): T;
}

/** A slot of state that `create` makes for a root on first use. */
export function defineRootSlot<T>(name: string, create: (root: Root) => T): RootSlot<T> {
  return { name, create };
}

const processRoots = new Map<string, Root>();

export class Root {
  /** The root as given (messages quote it as the user wrote it). */
  readonly path: string;
  /** The absolute root directory: the handle's identity. */
  readonly resolvedPath: string;
  #threadStore: ThreadStore | undefined;
  readonly #slots = new Map<RootSlot<unknown>, unknown>();

  private constructor(rootPath: string) {
    this.path = rootPath;
    this.resolvedPath = path.resolve(rootPath);
  }

  /** A new handle on `rootPath`, independent of the process's one (`Root.of`). */
  static open(rootPath: string): Root {
    return new Root(rootPath);
  }

  /** The process's handle on `rootPath`, made on first use. */
  static of(rootPath: string | Root): Root {
    if (rootPath instanceof Root) return rootPath;
    const key = path.resolve(rootPath);
    let root = processRoots.get(key);
    if (root === undefined) {
      root = new Root(rootPath);
      processRoots.set(key, root);
    }
    return root;
  }

  /** The process's handles opened so far (readers that have no root in hand look through them). */
  static opened(): Iterable<Root> {
    return processRoots.values();
  }

  /** The store this root mirrors, or undefined for a plain file root. */
  get threadStore(): ThreadStore | undefined {
    return this.#threadStore;
  }

  /** Binds the root (a store's local mirror root) to its store: appends under it commit there. */
  bindThreadStore(store: ThreadStore): void {
    this.#threadStore = store;
  }

  unbindThreadStore(): void {
    this.#threadStore = undefined;
  }

  /** The slot's state for this root, made on first use. */
  slot<T>(slot: RootSlot<T>): T {
    if (this.#slots.has(slot)) return this.#slots.get(slot) as T;
    const value = slot.create(this);
    this.#slots.set(slot, value);
    return value;
  }

  /** The slot's state if it was made, without making it. */
  peekSlot<T>(slot: RootSlot<T>): T | undefined {
    return this.#slots.get(slot) as T | undefined;
  }

  /** Forgets the slot's state: the next `slot` call makes it again. */
  clearSlot<T>(slot: RootSlot<T>): void {
    this.#slots.delete(slot);
  }
}
