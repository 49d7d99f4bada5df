import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { databaseDialectOf, dialectOfVendor, type Vendor } from '../../src/db/dialects/index.js';
import { listCollectionObjects, listFieldObjects, toRelationObject } from '../overview/api-objects.js';
import type { FieldType, SchemaOverview } from '../overview/types.js';
import { isSystemName } from '../system/definitions.js';

/** The snapshot format this service writes and reads (Directus 10's `version: 1`). */
export const SNAPSHOT_VERSION = 1;

export type { Vendor } from '../../src/db/dialects/index.js';

type Json = Readonly<Record<string, unknown>>;

export interface SnapshotCollection {
  readonly collection: string;
  readonly meta: Json | null;
  /** `{ name }` for a table, null for a folder. */
  readonly schema: { readonly name: string } | null;
}

export interface SnapshotField {
  readonly collection: string;
  readonly field: string;
  readonly type: string;
  readonly meta: Json | null;
  /** The column, dialect-neutral (no `data_type`); null for alias fields. */
  readonly schema: Json | null;
}

export interface SnapshotRelation {
  readonly collection: string;
  readonly field: string;
  readonly related_collection: string | null;
  readonly meta: Json | null;
  readonly schema: Json | null;
}

/**
 * The user part of a schema (Directus 10 snapshot format with `svc_` names): every
 * non-system collection, field and relation, with catalogue meta and the database schema in
 * a dialect-neutral form, sorted so two equal schemas give equal snapshots.
 */
export interface Snapshot {
  readonly version: number;
  readonly service: string;
  readonly vendor: Vendor;
  readonly collections: readonly SnapshotCollection[];
  readonly fields: readonly SnapshotField[];
  readonly relations: readonly SnapshotRelation[];
}

/** Types whose length or precision the caller chooses; other types get the dialect's own. */
const SIZED: Readonly<Partial<Record<FieldType, readonly string[]>>> = {
  string: ['max_length'],
  hash: ['max_length'],
  csv: [],
  decimal: ['numeric_precision', 'numeric_scale'],
};

/** Keys of a field's API `schema` that describe one dialect's spelling or are derived. */
const DIALECT_KEYS = new Set(['data_type', 'table', 'foreign_key_schema']);

/**
 * The snapshot's database keeps an index on every foreign key column itself (InnoDB): its
 * is_indexed there says nothing about the schema asked for.
 */
export function indexesForeignKeys(vendor: unknown): boolean {
  return dialectOfVendor(vendor)?.indexesForeignKeys === true;
}

function vendorOf(db: Knex): Vendor {
  return databaseDialectOf(db).vendor;
}

/** The snapshot of `overview` (read from `db`, for the vendor). */
export function takeSnapshot(db: Knex, overview: SchemaOverview, service: string): Snapshot {
  const vendor = vendorOf(db);
  const collections = listCollectionObjects(overview).filter(
    (c) => !isSystemName(c.collection) && c.meta?.['system'] !== true,
  );
  const tables = Object.values(overview.collections).filter((c) => !c.isSystem);
  const userNames = new Set(tables.map((t) => t.collection));
  const fields = tables
    .flatMap((t) => listFieldObjects(overview, t))
    .map((f): SnapshotField => ({
      collection: f.collection,
      field: f.field,
      type: f.type,
      meta: f.meta === null ? null : withoutKeys(f.meta, ['id', 'system']),
      schema: f.schema === null ? null : neutralColumn(f.type as FieldType, f.schema, vendor),
    }));
  const relations = overview.relations
    .filter((r) => userNames.has(r.collection))
    .map((r) => toRelationObject(overview, r))
    .map((r): SnapshotRelation => ({
      collection: r.collection,
      field: r.field,
      related_collection: r.related_collection,
      meta: r.meta === null ? null : withoutKeys(r.meta, ['id', 'system']),
      schema: r.schema === null ? null : neutralForeignKey(r.schema, vendor),
    }));
  return {
    version: SNAPSHOT_VERSION,
    service,
    vendor,
    collections: collections.map((c) => ({
      collection: c.collection,
      meta: c.meta,
      schema: c.schema === null ? null : { name: c.schema.name },
    })),
    fields: fields.sort((a, b) => compare(a.collection, b.collection) || compare(a.field, b.field)),
    relations: relations.sort((a, b) => compare(a.collection, b.collection) || compare(a.field, b.field)),
  };
}

/**
 * The hash of the schema a snapshot describes (not of who wrote it): a diff carries the hash
 * of the state it was computed against, and apply refuses it when the state has moved.
 */
export function snapshotHash(snapshot: Snapshot): string {
  const { collections, fields, relations } = snapshot;
  return createHash('sha256').update(canonicalJson({ collections, fields, relations })).digest('hex');
}

/** JSON with object keys sorted at every level. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== 'object' || value === null) return value;
  const entries = Object.entries(value).sort(([a], [b]) => compare(a, b));
  return Object.fromEntries(entries.map(([k, v]) => [k, sortKeys(v)]));
}

function neutralColumn(type: FieldType, schema: Json, vendor: Vendor): Json {
  const sized = SIZED[type] ?? [];
  const out: Record<string, unknown> = {};
  // InnoDB keeps an index on every foreign key column: it says nothing about the schema asked for.
  const isImplicitIndex =
    indexesForeignKeys(vendor) && schema['foreign_key_table'] != null && schema['is_unique'] !== true;
  for (const [key, value] of Object.entries(schema)) {
    if (DIALECT_KEYS.has(key)) continue;
    if ((key === 'max_length' || key === 'numeric_precision' || key === 'numeric_scale') && !sized.includes(key)) {
      out[key] = null;
      continue;
    }
    out[key] = key === 'is_indexed' && isImplicitIndex ? false : value;
  }
  return out;
}

function neutralForeignKey(schema: Json, vendor: Vendor): Json {
  const { constraint_name: _name, foreign_key_schema: _schema, table: _table, column: _column, ...rest } = schema;
  // InnoDB reports the default rule as RESTRICT, which it enforces as NO ACTION.
  if (!indexesForeignKeys(vendor)) return rest;
  const neutral = (rule: unknown) => (rule === 'RESTRICT' ? 'NO ACTION' : rule);
  return { ...rest, on_update: neutral(rest['on_update']) };
}

function withoutKeys(object: Json, keys: readonly string[]): Json {
  return Object.fromEntries(Object.entries(object).filter(([k]) => !keys.includes(k)));
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
