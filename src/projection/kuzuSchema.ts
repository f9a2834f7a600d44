/**
 * The Kuzu schema of the graph projection (DESIGN §4, reference §2.5) and its version.
 *
 * Column order here is the order of the CSV files `kuzuStore.ts` bulk-loads with COPY (Kuzu maps
 * CSV columns by position), so adding a column means adding it to the CSV writer too, and
 * bumping `projectionSchemaVersion` so stores written before the change are rebuilt from the log
 * instead of being read with a wrong layout.
 */

/**
 * Bump on any change to the tables below, or to what the fold puts in them (8: versions marked
 * `stale`/`superseded_by` are recorded closed, see `events/payload.ts`; 9: a consolidation review
 * no longer restates its candidate, see `extract/consolidation.ts`). A store whose `StoreMeta.schema_version` differs is
 * treated as corrupt and rebuilt by `KuzuStore.openOrRebuild` (the projection is derived, so a
 * rebuild loses nothing).
 */
export const projectionSchemaVersion = 9;

/** The single `StoreMeta` row's key. */
export const storeMetaKey = "store";

export const entityColumns = [
  "node_key",
  "session_id",
  "name",
  "entity_type",
  "summary",
  "properties_json",
  "valid_from",
  "valid_to",
  "source_event_seq",
  "source_event_hash",
  "vector_key",
] as const;

/** After the FROM and TO keys, which COPY into a rel table expects first. */
export const relatesColumns = [
  "rel_id",
  "relation_type",
  "valid_from",
  "valid_to",
  "inferred",
  "confidence",
  "inference_method",
  "source_event_seq",
  "source_event_hash",
  "evidence_json",
] as const;

export const eventColumns = [
  "event_key",
  "session_id",
  "seq",
  "hash",
  "prev_hash",
  "event_type",
  "source_thread",
] as const;

/** Idempotent DDL, run on every open. */
export const schemaStatements: readonly string[] = [
  `CREATE NODE TABLE IF NOT EXISTS Entity(
    node_key STRING, session_id STRING, name STRING, entity_type STRING, summary STRING,
    properties_json STRING, valid_from STRING, valid_to STRING, source_event_seq INT64,
    source_event_hash STRING, vector_key INT64, PRIMARY KEY (node_key))`,
  `CREATE NODE TABLE IF NOT EXISTS Event(
    event_key STRING, session_id STRING, seq INT64, hash STRING, prev_hash STRING,
    event_type STRING, source_thread STRING, PRIMARY KEY (event_key))`,
  // Version 7 added the row counts a reader checks the stored rows against.
  `CREATE NODE TABLE IF NOT EXISTS ProjectionHead(
    session_id STRING, seq INT64, hash STRING, event_count INT64, entity_count INT64,
    current_entity_count INT64, relation_count INT64, current_relation_count INT64,
    PRIMARY KEY (session_id))`,
  `CREATE NODE TABLE IF NOT EXISTS StoreMeta(key STRING, schema_version INT64, PRIMARY KEY (key))`,
  // Forward only: see "RELATES is stored forward only" in kuzuStore.ts.
  `CREATE REL TABLE IF NOT EXISTS RELATES(FROM Entity TO Entity,
    rel_id INT64, relation_type STRING, valid_from STRING, valid_to STRING,
    inferred BOOL, confidence DOUBLE, inference_method STRING, source_event_seq INT64,
    source_event_hash STRING, evidence_json STRING) WITH (storage_direction = 'fwd')`,
  `CREATE REL TABLE IF NOT EXISTS NEXT_EVENT(FROM Event TO Event)`,
];
