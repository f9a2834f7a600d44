/**
 * An entity version whose summary and properties live in `ScratchTexts` (a whole reproject's
 * fold, `GraphFold`'s `scratchTexts` option): it reads as an `EntityRow`, each read of `summary`
 * or `propertiesJson` a fresh string from the store, and assigning either keeps the new text in
 * the store. Its other fields are plain properties. Spreading one (`{ ...row }`) leaves the two
 * texts out: `plainEntityRow` copies it whole.
 */
import type { ScratchTexts } from "./scratchTexts.ts";
import type { EntityRow } from "./types.ts";

export interface EntityRowFields extends Omit<EntityRow, "summary" | "propertiesJson"> {}

export class ScratchEntityRow implements EntityRow {
  nodeKey: string;
  sessionId: string;
  name: string;
  entityType: string;
  validFrom: string;
  validTo: string | null;
  sourceEventSeq: number;
  sourceEventHash: string;
  vectorKey: number;
  private summaryId: number;
  private propertiesId: number;

  constructor(private readonly texts: ScratchTexts, fields: EntityRowFields, summary: string | null, propertiesJson: string) {
    this.nodeKey = fields.nodeKey;
    this.sessionId = fields.sessionId;
    this.name = fields.name;
    this.entityType = fields.entityType;
    this.validFrom = fields.validFrom;
    this.validTo = fields.validTo;
    this.sourceEventSeq = fields.sourceEventSeq;
    this.sourceEventHash = fields.sourceEventHash;
    this.vectorKey = fields.vectorKey;
    this.summaryId = texts.add(summary);
    this.propertiesId = texts.add(propertiesJson);
  }

  /** The `ScratchTexts` id of the summary (`ScratchTexts.placeIn`). */
  get summaryTextId(): number {
    return this.summaryId;
  }

  get summary(): string | null {
    return this.texts.text(this.summaryId);
  }

  set summary(text: string | null) {
    this.summaryId = this.texts.add(text);
  }

  get propertiesJson(): string {
    return this.texts.text(this.propertiesId)!;
  }

  set propertiesJson(text: string) {
    this.propertiesId = this.texts.add(text);
  }

  /** Whether this version's summary and properties are these (without reading them unless they may be). */
  hasTexts(summary: string | null, propertiesJson: string): boolean {
    return this.texts.holds(this.summaryId, summary) && this.texts.holds(this.propertiesId, propertiesJson);
  }
}

/** `row` as a plain object, its texts read. */
export function plainEntityRow(row: EntityRow): EntityRow {
  const {
    nodeKey, sessionId, name, entityType, summary, propertiesJson, validFrom, validTo, sourceEventSeq, sourceEventHash, vectorKey,
  } = row;
  return { nodeKey, sessionId, name, entityType, summary, propertiesJson, validFrom, validTo, sourceEventSeq, sourceEventHash, vectorKey };
}
