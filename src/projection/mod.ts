/**
 * Graph projection of the event log. The store is Kuzu (kuzu-wasm, Node sync build), file-backed
 * under `<root>/projections/embedded.kuzu`; its runtime is loaded lazily by `loadKuzu()`.
 *
 * @example
 * ```ts
 * import { loadKuzu } from "./src/projection/mod.ts";
 * const kuzu = await loadKuzu();
 * const conn = new kuzu.Connection(new kuzu.Database(".eventloom/projections/embedded.kuzu"));
 * ```
 */
export {
  type Kuzu,
  type KuzuConnection,
  type KuzuDatabase,
  kuzuGlueCachePath,
  type KuzuPreparedStatement,
  type KuzuQueryResult,
  loadKuzu,
} from "./kuzuRuntime.ts";
