/**
 * The in-memory search structures of one session at one projection head: entity versions with
 * their names and BM25 text, current relations as adjacency, the raw events for the verbatim
 * lane, and the session's usearch index. Built once per head; `zaxy serve` keeps it warm.
 */
import type { EventRecord } from "../eventloom/envelope.ts";
import type { SessionVectorIndex } from "../projection/vectorIndex.ts";
import type { EntityRow, SessionGraphRows } from "../projection/types.ts";
import { Bm25Index } from "./bm25.ts";

export interface Neighbour {
  entity: number;
  relationType: string;
}

export interface SessionIndex {
  sessionId: string;
  events: readonly EventRecord[];
  entities: readonly EntityRow[];
  /** Entity positions by lowercased name. */
  byName: Map<string, number[]>;
  /** Entity position by vector key (vector hits come back as keys). */
  byVectorKey: Map<number, number>;
  /** BM25 over entity text (name, type, summary, string and number property values). */
  keyword: Bm25Index;
  /** BM25 over each event's raw text; doc id = seq - 1. */
  verbatim: Bm25Index;
  /** Current relations, both directions. */
  adjacency: Map<number, Neighbour[]>;
  vectors: SessionVectorIndex | null;
}

function collectText(value: unknown, out: string[], depth = 0): void {
  if (depth > 8 || value === null || value === undefined) return;
  if (typeof value === "string") out.push(value);
  else if (typeof value === "number" || typeof value === "bigint") out.push(String(value));
  else if (Array.isArray(value)) for (const item of value) collectText(item, out, depth + 1);
  else if (typeof value === "object") {
    const entries = value instanceof Map ? [...value.entries()] : Object.entries(value as object);
    for (const [key, item] of entries) if (!String(key).startsWith("__zaxy_")) collectText(item, out, depth + 1);
  }
}

/** The text an entity version is searched by. */
export function entitySearchText(entity: EntityRow): string {
  const parts = [entity.name, entity.entityType];
  if (entity.summary) parts.push(entity.summary);
  try {
    const properties = JSON.parse(entity.propertiesJson) as Record<string, unknown>;
    for (const value of Object.values(properties)) if (typeof value === "string" || typeof value === "number") parts.push(String(value));
  } catch {
    // Properties are always JSON we wrote; a bad row only loses its property text.
  }
  return parts.join(" ");
}

/** The raw text of an event for the verbatim lane: type, actor and every payload string or number. */
export function rawEventText(event: EventRecord): string {
  const parts = [event.type, event.actor];
  collectText(event.payload, parts);
  return parts.join(" ");
}

export function buildSessionIndex(
  sessionId: string,
  rows: SessionGraphRows | null,
  events: readonly EventRecord[],
  vectors: SessionVectorIndex | null,
): SessionIndex {
  const entities = rows?.entities ?? [];
  const byName = new Map<string, number[]>();
  const byKey = new Map<string, number>();
  const byVectorKey = new Map<number, number>();
  const keyword = new Bm25Index();
  entities.forEach((entity, i) => {
    const name = entity.name.toLowerCase();
    const list = byName.get(name);
    if (list === undefined) byName.set(name, [i]);
    else list.push(i);
    byKey.set(entity.nodeKey, i);
    byVectorKey.set(entity.vectorKey, i);
    keyword.add(entitySearchText(entity));
  });
  const adjacency = new Map<number, Neighbour[]>();
  const link = (from: number, to: number, relationType: string) => {
    const list = adjacency.get(from);
    if (list === undefined) adjacency.set(from, [{ entity: to, relationType }]);
    else list.push({ entity: to, relationType });
  };
  for (const relation of rows?.relations ?? []) {
    if (relation.validTo !== null) continue;
    const source = byKey.get(relation.sourceKey);
    const target = byKey.get(relation.targetKey);
    if (source === undefined || target === undefined) continue;
    link(source, target, relation.relationType);
    if (source !== target) link(target, source, relation.relationType);
  }
  const verbatim = new Bm25Index({ averageLengthFloor: 1 });
  for (const event of events) verbatim.add(rawEventText(event));
  return { sessionId, events, entities, byName, byVectorKey, keyword, verbatim, adjacency, vectors };
}
