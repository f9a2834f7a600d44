/**
 * A session's rows (every entity and relation version, and their head) read back from its read
 * model's entity and relation tables: what a catch-up past the tail bound folds on, and what
 * `zaxy graph sync` loads into the Kuzu store instead of reading the store back. The read model
 * is the one durable derived copy of the rows; there is no separate row file.
 *
 * The rows are served only when the manifest is authenticated by the root's key and both tables
 * match the size and SHA-256 it records and hold the counts its head records; the caller must
 * still check that the head is an event of the verified log.
 *
 * @example
 * const read = readModelRows(".eventloom", "default");
 * if (read.status === "ok" && headInLog(read.rows.head!, events)) base = read.rows;
 */
import * as path from "node:path";
import { sha256OfFd } from "../platform/mod.ts";
import { BinaryFile } from "../platform/binaryFile.ts";
import { ReadModelCorruptError } from "../platform/readModelError.ts";
import type { EntityRow, RelationRow, SessionGraphRows } from "../projection/types.ts";
import { entityTableMagic } from "./entityTable.ts";
import { EntityTable, RelationTable } from "./diskSessionIndex.ts";
import { type ReadModelFile, readManifest, readModelDir } from "./manifest.ts";
import { relationTableMagic } from "./relationTable.ts";

export type ReadModelRowsRead =
  | { status: "ok"; rows: SessionGraphRows }
  | { status: "missing" }
  | { status: "invalid"; reason: string };

/** Opens a table after checking its size and SHA-256 against the manifest (every time: the rows seed a fold). */
function openHashed(dir: string, entry: ReadModelFile, magic: string): BinaryFile {
  const file = BinaryFile.open(path.join(dir, entry.name), magic, entry.bytes);
  try {
    if (sha256OfFd(file.descriptor, entry.bytes) !== entry.sha256) throw new ReadModelCorruptError(file.file, "does not match the SHA-256 its manifest records");
    return file;
  } catch (error) {
    file.close();
    throw error;
  }
}

/**
 * The read model's rows when they pass every check, else null: what a catch-up continues from
 * (`ProjectOptions.baseRows`). A damaged read model is not reported here: the read that rewrites
 * it says why (memory/service.ts).
 */
export function readModelBaseRows(root: string, sessionId: string): SessionGraphRows | null {
  const read = readModelRows(root, sessionId);
  return read.status === "ok" ? read.rows : null;
}

/** The rows at the read model's head, or why there are none. */
export function readModelRows(root: string, sessionId: string): ReadModelRowsRead {
  const manifest = readManifest(root, sessionId);
  if (manifest === "missing") return { status: "missing" };
  if ("problem" in manifest) return { status: "invalid", reason: manifest.problem };
  const dir = readModelDir(root, sessionId);
  const opened: BinaryFile[] = [];
  try {
    const entitiesFile = openHashed(dir, manifest.files.entities, entityTableMagic);
    opened.push(entitiesFile);
    const relationsFile = openHashed(dir, manifest.files.relations, relationTableMagic);
    opened.push(relationsFile);
    const entityTable = new EntityTable(entitiesFile, sessionId);
    const relationTable = new RelationTable(relationsFile, sessionId);
    const head = manifest.head;
    if (entityTable.count !== head.entityCount || relationTable.count !== head.relationCount) {
      throw new ReadModelCorruptError(entitiesFile.file, `holds ${entityTable.count} entity and ${relationTable.count} relation versions, its head records ${head.entityCount} and ${head.relationCount}`);
    }
    // Copies: the table keeps the rows it read, and a fold changes the rows it is given.
    const entities: EntityRow[] = [];
    for (let position = 0; position < entityTable.count; position++) entities.push({ ...entityTable.row(position) });
    const relations: RelationRow[] = [];
    for (let id = 0; id < relationTable.count; id++) relations.push(relationTable.relation(id).row);
    const currentEntities = entities.reduce((n, e) => n + (e.validTo === null ? 1 : 0), 0);
    const currentRelations = relations.reduce((n, r) => n + (r.validTo === null ? 1 : 0), 0);
    if (currentEntities !== head.currentEntityCount || currentRelations !== head.currentRelationCount) {
      throw new ReadModelCorruptError(entitiesFile.file, `holds ${currentEntities} current entities and ${currentRelations} current relations, its head records ${head.currentEntityCount} and ${head.currentRelationCount}`);
    }
    return { status: "ok", rows: { entities, relations, head: { ...head } } };
  } catch (error) {
    if (error instanceof ReadModelCorruptError) return { status: "invalid", reason: error.message };
    if ((error as NodeJS.ErrnoException).code !== undefined) return { status: "invalid", reason: `a table cannot be read (${(error as NodeJS.ErrnoException).code})` };
    throw error;
  } finally {
    for (const file of opened) file.close();
  }
}

