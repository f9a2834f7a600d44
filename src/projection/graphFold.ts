/**
 * The fold that turns extraction results into graph rows with temporal validity (DESIGN §4;
 * reference §2.3). It is the only place that decides what the projection contains, for both a
 * full reproject (a fold from the empty graph) and an incremental catch-up (a fold from the rows
 * the store already holds), so both give the same rows.
 *
 * Rules:
 * - An entity is identified by (type, name) within its session. A new version with the same
 *   summary and properties as the active one changes nothing; a different one closes the active
 *   version (`valid_to` = the new `observed_at`), keeps it, and becomes current. The active
 *   version's current relations are copied onto the new version so traversal from current facts
 *   still finds them. Nothing is deleted.
 * - Versions emitted twice by one event merge into that event's version.
 * - An edge endpoint resolves to the active version of its (type, name); if there is none, a
 *   bare version (no summary) is created so the edge has somewhere to land.
 * - A relation identified by (source version, target version, relation type) is created once;
 *   an edge with `validTo` set (a retraction) closes the active one, or is recorded closed.
 * - A version whose properties mark it stale (`stale: true` or `superseded_by`, see
 *   `events/payload.ts`) is recorded closed at its own `observed_at`: the entity is then retired,
 *   with no current version. A bare restatement of a retired entity (no summary: a review's
 *   status, an edge endpoint) stays closed too and edges land on its latest version; a
 *   restatement with a summary and no marker makes it current again.
 *
 * The base a fold continues from is either every stored row (`new GraphFold(session, rows)`) or
 * a `LazyFoldBase` (`GraphFold.onLazyBase`) that the fold asks, identity by identity, for what the
 * rules above read: an identity's latest version and that version's current relations. Every
 * rule only looks at identities the events name and at the relations touching their latest
 * versions, so both bases give the same diff.
 */
import { DetachedStringPool, detachedString } from "../canonical/detachedString.ts";
import type { EventRecord } from "../eventloom/envelope.ts";
import {
  entityNodeKey,
  type EntityRef,
  type EntityRow,
  eventKey,
  type EventRow,
  type ExtractedEdge,
  type ExtractedEntity,
  type ExtractionResult,
  type GraphDiff,
  keySeparator,
  type PlainJson,
  type ProjectionHead,
  type RelationRow,
  type SessionGraphRows,
} from "./types.ts";
import { ActiveRelationIndex, EntityIdentityIndex } from "./identityIndexes.ts";
import { RelationsByNode } from "./relationsByNode.ts";
import { type PackedGraphRows, type RelationFields, RelationStore } from "./relationStore.ts";
import { plainEntityRow, ScratchEntityRow } from "./scratchEntityRow.ts";
import type { ScratchTexts } from "./scratchTexts.ts";
import type { LazyFoldBase } from "./lazyFoldBase.ts";
import { propertiesMarkStale } from "../events/payload.ts";

/** JSON with object keys sorted (by UTF-16 code units, like JSON object order elsewhere here). */
export function sortedKeyJson(value: PlainJson): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(sortedKeyJson).join(",")}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${sortedKeyJson(value[key])}`).join(",")}}`;
}

function identityOf(entityType: string, name: string): string {
  return entityType + keySeparator + name;
}

/** Whether `row` has this summary and these properties. */
function hasTexts(row: EntityRow, summary: string | null, propertiesJson: string): boolean {
  if (row instanceof ScratchEntityRow) return row.hasTexts(summary, propertiesJson);
  return row.summary === summary && row.propertiesJson === propertiesJson;
}

function versionIdentity(entityType: string, name: string, seq: number): string {
  return entityType + keySeparator + name + keySeparator + String(seq);
}

export class GraphFold {
  readonly sessionId: string;
  private readonly activeEntities = new EntityIdentityIndex();
  /** Latest version of each entity whose latest statement was stale: it has no current version. */
  private readonly retiredEntities = new EntityIdentityIndex();
  /** The version of every node key, to refuse a (practically impossible) hash collision. */
  private readonly versionByNodeKey = new Map<string, EntityRow>();
  /**
   * Relation versions by id: whole-rows mode, every one (the base's then the new ones, in
   * relation order); lazy mode, the base's that were loaded and the new ones, in no order.
   */
  private readonly relations: RelationStore;
  private readonly activeRelations: ActiveRelationIndex;
  /** Ids of the relations by endpoint node key (the current ones are read), for copying onto a new version. */
  private readonly relationsByNode: RelationsByNode;
  private readonly baseEntityKeys = new Set<string>();
  private readonly baseRelationKeys = new Set<string>();
  /** Whole-rows mode: every row, the base's then the new ones. Lazy mode: only the new ones. */
  private readonly allEntities: EntityRow[] = [];
  /** Entity versions before the first new one: the first new version's vector key. */
  private baseEntityCount = 0;
  /** Lazy mode: where identities are loaded from, the identities loaded, the relations loaded by key. */
  private lazyBase: LazyFoldBase | null = null;
  private readonly loadedIdentities = new Set<string>();
  private readonly loadedRelations = new Map<string, number>();
  /** Stored versions loaded whose current relations have not been read yet. */
  private readonly relationsPending = new Set<string>();
  private readonly newEntities: EntityRow[] = [];
  /** Ids of the relations the events created, in relation order. */
  private readonly newRelations: number[] = [];
  private readonly closedEntities = new Map<string, string>();
  private readonly closedRelations = new Map<string, string>();
  private readonly newEvents: EventRow[] = [];
  /** False when the caller reads only `rows()`: the event rows (one per event) are then not kept. */
  private readonly keepEventRows: boolean;
  /** Where new versions keep their summary and properties, or null to keep them as strings on the row. */
  private readonly scratchTexts: ScratchTexts | null;
  private eventsApplied = 0;
  private previousHead: ProjectionHead | null;
  private head: ProjectionHead | null;
  private relationOrdinal = 0;
  private currentSeq = 0;
  /**
   * The strings a row keeps of an event are detached from the event's line (which they would
   * otherwise keep alive, canonical/detachedString.ts): types and methods once per value, the
   * event's hash and timestamps once per event. A row's properties JSON is detached too: as built,
   * a concatenation of its parts, it kept them (1M events: ~100 MB and ~1.5 M cells more).
   */
  private readonly typeStrings = new DetachedStringPool();
  private readonly eventStrings = new DetachedStringPool();
  private eventHash = "";

  /**
   * `base`: the rows already projected (incremental catch-up); omit for a full reproject.
   * `keepEventRows: false` for a caller that reads only `rows()` (`diff()` is then refused).
   * `scratchTexts`: where the new versions keep their summaries and properties (a whole
   * reproject, whose texts were the largest part of its heap); the caller closes it once it has
   * read the rows (`packedRows()` hands them out still reading from it, `rows()` as plain rows).
   */
  constructor(sessionId: string, base?: SessionGraphRows, options: { keepEventRows?: boolean; scratchTexts?: ScratchTexts } = {}) {
    this.sessionId = sessionId;
    this.scratchTexts = options.scratchTexts ?? null;
    this.relations = new RelationStore(sessionId);
    this.activeRelations = new ActiveRelationIndex(this.relations);
    this.relationsByNode = new RelationsByNode(this.relations);
    this.keepEventRows = options.keepEventRows !== false;
    this.previousHead = base?.head ?? null;
    this.head = this.previousHead === null ? null : { ...this.previousHead };
    if (base === undefined) return;
    this.baseEntityCount = base.entities.length;
    for (const row of base.entities) {
      const copy = { ...row };
      this.allEntities.push(copy);
      this.baseEntityKeys.add(copy.nodeKey);
      this.versionByNodeKey.set(copy.nodeKey, copy);
      if (copy.validTo === null) this.activeEntities.set(copy.entityType, copy.name, copy);
    }
    // Every closed version was replaced by a newer one, unless its entity was retired.
    for (const row of this.allEntities) {
      if (this.activeEntities.has(row.entityType, row.name)) continue;
      const latest = this.retiredEntities.get(row.entityType, row.name);
      if (latest === undefined || row.sourceEventSeq > latest.sourceEventSeq) this.retiredEntities.set(row.entityType, row.name, row);
    }
    for (const row of base.relations) {
      const id = this.relations.addRow(row);
      this.baseRelationKeys.add(row.relKey);
      if (row.validTo === null) this.indexActiveRelation(id);
    }
  }

  /**
   * A fold continuing from `base` without reading its rows whole: an identity is loaded from the
   * base the first time an event names it. `diff()` gives what the whole-rows constructor gives
   * for the same events, head counts included (the base head's plus the tail's changes); `rows()`
   * is refused, as the fold never holds them.
   *
   * @example
   * const fold = GraphFold.onLazyBase("s", rowsFoldBase(rows));
   * for (const event of tail) fold.apply(event, extractEvent(event));
   * fold.diff(); // deep-equal to the diff of `new GraphFold("s", rows)` over `tail`
   */
  static onLazyBase(sessionId: string, base: LazyFoldBase): GraphFold {
    if (base.head.sessionId !== sessionId) {
      throw new Error(`projection fold: the base head is session ${JSON.stringify(base.head.sessionId)}, not ${JSON.stringify(sessionId)}`);
    }
    const fold = new GraphFold(sessionId);
    fold.lazyBase = base;
    fold.previousHead = base.head;
    fold.head = { ...base.head };
    fold.baseEntityCount = base.head.entityCount;
    return fold;
  }

  /** Applies one event's extraction. Events must come in seq order, after the base head. */
  apply(event: EventRecord, extraction: ExtractionResult): void {
    if (this.head !== null && event.seq <= this.head.seq) {
      throw new Error(`projection fold: event ${event.seq} is not after the head ${this.head.seq}`);
    }
    this.currentSeq = event.seq;
    this.relationOrdinal = 0;
    this.eventStrings.clear();
    this.eventHash = detachedString(event.hash);
    this.eventsApplied++;
    if (this.keepEventRows) this.newEvents.push({
      eventKey: eventKey(this.sessionId, event.seq),
      sessionId: this.sessionId,
      seq: event.seq,
      hash: event.hash,
      prevHash: event.prevHash,
      eventType: event.type,
      sourceThread: event.thread,
    });
    for (const entity of extraction.entities) this.upsertEntity(entity, event);
    for (const edge of extraction.edges) this.applyEdge(edge, event);
    this.head = {
      sessionId: this.sessionId,
      seq: event.seq,
      hash: event.hash,
      eventCount: (this.head?.eventCount ?? 0) + 1,
      // The other counts are filled in by `countedHead` when the fold is read out.
      entityCount: this.baseEntityCount + this.newEntities.length,
      currentEntityCount: 0,
      relationCount: 0,
      currentRelationCount: 0,
    };
  }

  /** The head with its row counts, taken once when the fold is read out (O(rows)). */
  private countedHead(): ProjectionHead | null {
    if (this.head === null) return null;
    if (this.lazyBase !== null) return this.lazyCountedHead(this.lazyBase.head);
    let currentEntityCount = 0;
    for (const row of this.allEntities) if (row.validTo === null) currentEntityCount++;
    let currentRelationCount = 0;
    for (let id = 0; id < this.relations.length; id++) if (this.relations.validTo(id) === null) currentRelationCount++;
    this.head = {
      ...this.head,
      entityCount: this.allEntities.length,
      currentEntityCount,
      relationCount: this.relations.length,
      currentRelationCount,
    };
    return this.head;
  }

  /**
   * Lazy mode's counts: the base head's plus what the tail changed (O(new rows)). A closed base
   * row was current until the tail closed it: a fold closes only active rows, each once.
   */
  private lazyCountedHead(baseHead: ProjectionHead): ProjectionHead {
    let currentNewEntities = 0;
    for (const row of this.newEntities) if (row.validTo === null) currentNewEntities++;
    let currentNewRelations = 0;
    for (const id of this.newRelations) if (this.relations.validTo(id) === null) currentNewRelations++;
    this.head = {
      ...this.head!,
      entityCount: baseHead.entityCount + this.newEntities.length,
      currentEntityCount: baseHead.currentEntityCount - this.closedEntities.size + currentNewEntities,
      relationCount: baseHead.relationCount + this.newRelations.length,
      currentRelationCount: baseHead.currentRelationCount - this.closedRelations.size + currentNewRelations,
    };
    return this.head;
  }

  /** What changed since the base; null when nothing was applied. */
  diff(): GraphDiff | null {
    if (!this.keepEventRows) throw new Error("projection fold: diff() is not available on a fold that keeps no event rows; read rows()");
    if (this.head === null || this.eventsApplied === 0) return null;
    return {
      sessionId: this.sessionId,
      newEntities: this.newEntities,
      closedEntities: [...this.closedEntities].map(([nodeKey, validTo]) => ({ nodeKey, validTo })),
      newRelations: this.newRelations.map((id) => this.relations.row(id)),
      closedRelations: [...this.closedRelations].map(([relKey, validTo]) => ({ relKey, validTo })),
      newEvents: this.newEvents,
      previousHead: this.previousHead,
      head: this.countedHead()!,
    };
  }

  /** Every row after the fold, as the store would read them back. */
  rows(): SessionGraphRows {
    const { entities, relations, head } = this.packedRows();
    return { entities: this.scratchTexts === null ? entities : entities.map(plainEntityRow), relations: [...relations.rows()], head };
  }

  /**
   * Every row after the fold, the relations as the fold holds them (`rows()` builds an object
   * per relation: a million-event session's ~1.5 M of them were ~390 MB).
   */
  packedRows(): PackedGraphRows {
    if (this.lazyBase !== null) {
      throw new Error("projection fold: rows() is not available on a lazy base (the fold holds only the rows the events touched); read diff()");
    }
    return { entities: this.allEntities, relations: this.relations, head: this.countedHead() };
  }

  private upsertEntity(entity: ExtractedEntity, event: EventRecord): EntityRow {
    const { entityType, name } = entity;
    this.loadIdentity(entityType, name);
    const propertiesJson = sortedKeyJson(entity.properties);
    const marked = propertiesMarkStale(entity.properties);
    const active = this.activeEntities.get(entityType, name);
    if (active !== undefined && hasTexts(active, entity.summary, propertiesJson)) return active;
    if (active !== undefined && active.sourceEventSeq === event.seq) {
      // Two versions from one event would share a node key: the later statement wins.
      this.setTexts(active, entity.summary, propertiesJson);
      if (marked) this.retire(entityType, name, active, entity.observedAt);
      return active;
    }
    const retired = active === undefined ? this.retiredEntities.get(entityType, name) : undefined;
    if (retired !== undefined && (retired.sourceEventSeq === event.seq || hasTexts(retired, entity.summary, propertiesJson))) {
      if (retired.sourceEventSeq === event.seq) this.setTexts(retired, entity.summary, propertiesJson);
      return retired;
    }
    const row = this.createVersion(entity.entityType, entity.name, entity.summary, propertiesJson, entity.observedAt, event, active);
    if (marked || (retired !== undefined && entity.summary === null)) this.retire(entityType, name, row, entity.observedAt);
    else this.retiredEntities.delete(entityType, name);
    return row;
  }

  /** Closes a version created by the current event and leaves its entity without a current one. */
  private retire(entityType: string, name: string, row: EntityRow, observedAt: string): void {
    row.validTo = this.eventStrings.detached(observedAt);
    this.activeEntities.delete(entityType, name);
    this.retiredEntities.set(entityType, name, row);
  }

  private createVersion(
    entityType: string,
    name: string,
    summary: string | null,
    propertiesJson: string,
    observedAt: string,
    event: EventRecord,
    active: EntityRow | undefined,
  ): EntityRow {
    const nodeKey = entityNodeKey(this.sessionId, entityType, name, event.seq);
    // On a lazy base only the loaded versions are known here. A new version's key hashes a seq
    // above the base head, so it can equal an unloaded base version's key only by a SHA-256
    // collision in 96 bits; the check guards the loaded ones and the new ones.
    const existing = this.versionByNodeKey.get(nodeKey);
    if (existing !== undefined) {
      const identity = versionIdentity(entityType, name, event.seq);
      const existingIdentity = versionIdentity(existing.entityType, existing.name, existing.sourceEventSeq);
      if (existingIdentity !== identity) throw new Error(`projection fold: node key collision between ${JSON.stringify(existingIdentity)} and ${JSON.stringify(identity)}`);
    }
    // The entity's earlier version already holds a detached copy of its name.
    const earlier = active ?? this.retiredEntities.get(entityType, name);
    const fields = {
      nodeKey,
      sessionId: this.sessionId,
      name: earlier !== undefined && earlier.name === name ? earlier.name : detachedString(name),
      entityType: this.typeStrings.detached(entityType),
      validFrom: this.eventStrings.detached(observedAt),
      validTo: null,
      sourceEventSeq: event.seq,
      sourceEventHash: this.eventHash,
      vectorKey: this.baseEntityCount + this.newEntities.length,
    };
    const row: EntityRow = this.scratchTexts !== null
      ? new ScratchEntityRow(this.scratchTexts, fields, summary, propertiesJson)
      : {
        nodeKey: fields.nodeKey,
        sessionId: fields.sessionId,
        name: fields.name,
        entityType: fields.entityType,
        summary: this.detachedText(summary),
        propertiesJson: detachedString(propertiesJson),
        validFrom: fields.validFrom,
        validTo: fields.validTo,
        sourceEventSeq: fields.sourceEventSeq,
        sourceEventHash: fields.sourceEventHash,
        vectorKey: fields.vectorKey,
      };
    this.versionByNodeKey.set(nodeKey, row);
    this.allEntities.push(row);
    this.newEntities.push(row);
    this.activeEntities.set(entityType, name, row);
    if (active !== undefined) {
      active.validTo = row.validFrom;
      if (this.baseEntityKeys.has(active.nodeKey)) this.closedEntities.set(active.nodeKey, row.validFrom);
      this.copyRelations(active, row);
    }
    return row;
  }

  /**
   * Lazy mode: brings in what the whole-rows constructor would hold for this identity, once,
   * before any rule reads it: its latest version (active if current, retired if closed), and
   * that version's current relations when a rule first needs them. Rules read relations only
   * through an entity they touched (`copyRelations` from its active version; `applyEdge` between
   * two resolved versions, whose relation touches both), so nothing else of the base is ever
   * consulted.
   */
  private loadIdentity(entityType: string, name: string): void {
    if (this.lazyBase === null) return;
    const identity = identityOf(entityType, name);
    if (this.loadedIdentities.has(identity)) return;
    this.loadedIdentities.add(identity);
    const stored = this.lazyBase.latestVersion(entityType, name);
    if (stored === null) return;
    const row = { ...stored };
    this.baseEntityKeys.add(row.nodeKey);
    this.versionByNodeKey.set(row.nodeKey, row);
    if (row.validTo === null) this.activeEntities.set(entityType, name, row);
    else this.retiredEntities.set(entityType, name, row);
    // Its relations are read when a rule needs them (`relationsNeeded`): an edge from a new
    // version to a stored hub (every event names its actor) needs none of the hub's thousands.
    this.relationsPending.add(row.nodeKey);
  }

  /** Reads a stored version's current relations if they have not been read yet. */
  private relationsNeeded(nodeKey: string): void {
    if (!this.relationsPending.delete(nodeKey)) return;
    this.loadRelationsOf(nodeKey);
  }

  /**
   * Before an edge between `source` and `target` is decided: whether that relation is already
   * current. Only two stored versions can have a stored relation between them (a version this
   * fold created has only the relations it gave it, already indexed), and the relation touches
   * both, so reading the side with fewer current relations answers it.
   */
  private relationBetweenNeeded(source: EntityRow, target: EntityRow): void {
    if (this.lazyBase === null) return;
    const sourcePending = this.relationsPending.has(source.nodeKey);
    const targetPending = this.relationsPending.has(target.nodeKey);
    if (!sourcePending || !targetPending) return; // one side is read (or new): the index knows
    const base = this.lazyBase;
    this.relationsNeeded(base.currentRelationCountOf(source.nodeKey) <= base.currentRelationCountOf(target.nodeKey) ? source.nodeKey : target.nodeKey);
  }

  /**
   * Indexes a loaded version's current base relations ahead of the new relations already
   * indexed under it (a copy onto a new version may have named it before its identity was
   * loaded), so the list is in relation order as in whole-rows mode. A relation loaded earlier
   * through its other endpoint is the same row, not a duplicate; one the tail closed since stays
   * out.
   */
  private loadRelationsOf(nodeKey: string): void {
    const current: number[] = [];
    for (const stored of this.lazyBase!.currentRelationsOf(nodeKey)) {
      let id = this.loadedRelations.get(stored.relKey);
      if (id === undefined) {
        id = this.relations.addRow(stored);
        this.loadedRelations.set(stored.relKey, id);
        this.baseRelationKeys.add(stored.relKey);
        if (stored.validTo === null) this.activeRelations.set(id);
      }
      if (this.relations.validTo(id) === null) current.push(id);
    }
    const indexed = this.relationsByNode.ids(nodeKey);
    this.relationsByNode.replace(nodeKey, [...current, ...indexed.filter((id) => !this.baseRelationKeys.has(this.relations.relKey(id)))]);
  }

  private copyRelations(from: EntityRow, to: EntityRow): void {
    this.relationsNeeded(from.nodeKey);
    const relations = this.relations;
    for (const id of this.relationsByNode.ids(from.nodeKey)) {
      if (relations.validTo(id) !== null) continue;
      const sourceKey = relations.sourceKey(id) === from.nodeKey ? to.nodeKey : relations.sourceKey(id);
      const targetKey = relations.targetKey(id) === from.nodeKey ? to.nodeKey : relations.targetKey(id);
      if (this.activeRelations.has(sourceKey, targetKey, relations.relationType(id))) continue;
      // The copy keeps the citation of the event that asserted the relation (e.g. the
      // `causal.edge.generated` event), not the event that created the new entity version.
      this.addRelation({ ...relations.fields(id), sourceKey, targetKey });
    }
  }

  private resolve(ref: EntityRef, event: EventRecord): EntityRow {
    this.loadIdentity(ref.entityType, ref.name);
    const latest = this.activeEntities.get(ref.entityType, ref.name) ?? this.retiredEntities.get(ref.entityType, ref.name);
    if (latest !== undefined) return latest;
    return this.createVersion(ref.entityType, ref.name, null, "{}", event.timestamp, event, undefined);
  }

  private applyEdge(edge: ExtractedEdge, event: EventRecord): void {
    const source = this.resolve(edge.source, event);
    const target = this.resolve(edge.target, event);
    this.relationBetweenNeeded(source, target);
    const active = this.activeRelations.get(source.nodeKey, target.nodeKey, edge.relationType);
    if (edge.validTo !== null && active !== undefined) {
      this.closeRelation(active, edge.validTo);
      return;
    }
    if (active !== undefined) return;
    this.addRelation({
      sourceKey: source.nodeKey,
      targetKey: target.nodeKey,
      relationType: this.typeStrings.detached(edge.relationType),
      validFrom: this.eventStrings.detached(edge.validFrom),
      validTo: edge.validTo === null ? null : this.eventStrings.detached(edge.validTo),
      inferred: edge.inferred,
      confidence: edge.confidence,
      inferenceMethod: edge.inferenceMethod === null ? null : this.typeStrings.detached(edge.inferenceMethod),
      sourceEventSeq: event.seq,
      sourceEventHash: this.eventHash,
      evidenceJson: sortedKeyJson(edge.evidence),
    });
  }

  private detachedText(text: string | null): string | null {
    return text === null ? null : detachedString(text);
  }

  /** Replaces a version's summary and properties (a later statement of the same event). */
  private setTexts(row: EntityRow, summary: string | null, propertiesJson: string): void {
    if (row instanceof ScratchEntityRow) {
      row.summary = summary;
      row.propertiesJson = propertiesJson;
      return;
    }
    row.summary = this.detachedText(summary);
    row.propertiesJson = detachedString(propertiesJson);
  }

  /** Adds a relation keyed by the current event and the next ordinal within it. */
  private addRelation(fields: RelationFields): void {
    const id = this.relations.add(fields, this.currentSeq, this.relationOrdinal++);
    // Read by `diff()` and a lazy base's counts; a whole reproject's fold reads `packedRows()`.
    if (this.keepEventRows || this.lazyBase !== null) this.newRelations.push(id);
    if (fields.validTo === null) this.indexActiveRelation(id);
  }

  private indexActiveRelation(id: number): void {
    this.activeRelations.set(id);
    const sourceKey = this.relations.sourceKey(id);
    const targetKey = this.relations.targetKey(id);
    this.relationsByNode.append(sourceKey, id);
    if (targetKey !== sourceKey) this.relationsByNode.append(targetKey, id);
  }

  private closeRelation(id: number, validTo: string): void {
    const relations = this.relations;
    const closedAt = this.eventStrings.detached(validTo);
    relations.setValidTo(id, closedAt);
    const sourceKey = relations.sourceKey(id);
    const targetKey = relations.targetKey(id);
    // It stays in its endpoints' lists, which are read for current relations only.
    this.activeRelations.delete(sourceKey, targetKey, relations.relationType(id));
    if (this.baseRelationKeys.size === 0) return;
    const relKey = relations.relKey(id);
    if (this.baseRelationKeys.has(relKey)) this.closedRelations.set(relKey, closedAt);
  }
}
