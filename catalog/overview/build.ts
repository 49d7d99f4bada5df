import type { Knex } from 'knex';
import { queryAll } from '../../src/db/index.js';
import {
  introspect,
  parseSqlDefault,
  type RawColumn,
  type RawForeignKey,
  type RawSchema,
  type RawTable,
} from '../introspection/index.js';
import { groupBy } from '../../src/db/dialects/introspection.js';
import {
  INTERNAL_TABLES,
  SYSTEM_COLLECTIONS,
  SYSTEM_RELATIONS,
  isSystemName,
  type SystemCollectionDefinition,
} from '../system/definitions.js';
import { castDefault, fieldTypeOf } from './field-type.js';
import { nameMap } from './name-map.js';
import {
  COLLECTION_ROW,
  COLLECTION_ROW_DEFAULTS,
  FIELD_ROW,
  FIELD_ROW_DEFAULTS,
  RELATION_ROW,
  decodeRow,
} from './meta-rows.js';
import type {
  CollectionOverview,
  FieldOverview,
  RelationMeta,
  RelationOverview,
  RelationSchema,
  SchemaOverview,
} from './types.js';
import { isPlainObject } from '../../src/is-plain-object.js';

/** Where the builder reports tables it cannot serve (a pino logger fits). */
interface OverviewReporter {
  warn(details: Record<string, unknown>, message: string): void;
}

export interface BuildOverviewOptions {
  /** Stamped into the overview; the schema cache decides it. */
  readonly version?: number;
  /** DB_EXCLUDE_TABLES: tables the schema reader ignores. */
  readonly excludeTables?: readonly string[];
  readonly reporter?: OverviewReporter;
}

/** svc_fields.special values that make a field without a column an alias (relations.md). */
const ALIAS_SPECIALS = new Set(['alias', 'o2m', 'm2m', 'm2a', 'files', 'translations', 'no-data', 'group']);

type Row = Record<string, unknown>;

/**
 * Builds the schema overview: introspection of the database merged with svc_collections,
 * svc_fields and svc_relations, plus the catalogue's own definitions of the system
 * collections. Tables without a single-column primary key are reported and left out.
 * Six to seven queries whatever the size of the schema.
 */
export async function buildOverview(db: Knex, options: BuildOverviewOptions = {}): Promise<SchemaOverview> {
  // Side by side on the pool; in turn inside a schema change's transaction (one connection).
  const [raw, collectionRows, fieldRows, relationRows] = await queryAll<[RawSchema, Row[], Row[], Row[]]>(db, [
    () => introspect(db),
    () => db('svc_collections').select<Row[]>('*'),
    () => db('svc_fields').select<Row[]>('*').orderBy('id'),
    () => db('svc_relations').select<Row[]>('*').orderBy('id'),
  ]);
  const excluded = new Set([...INTERNAL_TABLES, ...(options.excludeTables ?? [])]);
  const collectionMeta = new Map(collectionRows.map((r) => [String(r['collection']), decodeRow(COLLECTION_ROW, r)]));
  const fieldMeta = groupBy(
    fieldRows.map((r) => decodeRow(FIELD_ROW, r)),
    (r) => String(r['collection']),
  );

  // Keyed by names from the database: no prototype, so `__proto__` or `constructor` is a key like any other.
  const collections: Record<string, CollectionOverview> = nameMap();
  for (const table of raw.tables) {
    if (excluded.has(table.name)) continue;
    const [primary, ...more] = table.primaryKey;
    if (primary === undefined || more.length > 0) {
      options.reporter?.warn(
        { table: table.name, primaryKey: table.primaryKey },
        primary === undefined
          ? `Table "${table.name}" has no primary key: it is not served`
          : `Table "${table.name}" has a composite primary key: it is not served`,
      );
      continue;
    }
    // Own keys only: a table may be named `constructor` or `toString`.
    const definition = Object.hasOwn(SYSTEM_COLLECTIONS, table.name) ? SYSTEM_COLLECTIONS[table.name] : undefined;
    const isSystem = definition !== undefined || isSystemName(table.name);
    collections[table.name] = buildCollection(
      table,
      primary,
      isSystem,
      definition,
      collectionMeta.get(table.name),
      fieldMeta.get(table.name) ?? [],
    );
  }

  const tableNames = new Set(raw.tables.map((t) => t.name));
  return {
    version: options.version ?? 0,
    collections,
    relations: buildRelations(collections, relationRows, raw.foreignKeys),
    folders: [...collectionMeta.entries()].filter(([name]) => !tableNames.has(name)).map(([, meta]) => meta),
  };
}

function buildCollection(
  table: RawTable,
  primary: string,
  isSystem: boolean,
  definition: SystemCollectionDefinition | undefined,
  storedMeta: Row | undefined,
  fieldRows: readonly Row[],
): CollectionOverview {
  const meta: Row | null =
    definition !== undefined
      ? {
          ...COLLECTION_ROW_DEFAULTS,
          collection: table.name,
          note: definition.note,
          singleton: definition.singleton ?? false,
          accountability: definition.accountability,
          system: true,
        }
      : storedMeta === undefined
        ? null
        : { ...storedMeta, ...(isSystem ? { system: true } : {}) };

  const rowsByField = new Map(fieldRows.map((r) => [String(r['field']), r]));
  const fields: FieldOverview[] = [];
  for (const column of table.columns) {
    const systemField =
      definition !== undefined && Object.hasOwn(definition.fields, column.name)
        ? definition.fields[column.name]
        : undefined;
    const row = rowsByField.get(column.name);
    // A system table's own columns have no svc_fields row; a column added to it through the
    // API has one, and is described by it like any user field.
    const fieldMetaRow: Row | null =
      definition !== undefined && row === undefined
        ? systemFieldMeta(table.name, column.name, systemField?.special ?? null, systemField?.note)
        : (row ?? null);
    const special = [...(systemField?.special ?? (row?.['special'] as string[] | null) ?? [])];
    fields.push(columnField(column, column.name === primary, systemField?.type, special, fieldMetaRow));
  }

  const taken = new Set(table.columns.map((c) => c.name));
  for (const [field, special] of Object.entries(definition?.aliases ?? {})) {
    fields.push(aliasField(field, [...special], systemFieldMeta(table.name, field, special)));
    taken.add(field);
  }
  for (const row of fieldRows) {
    const field = String(row['field']);
    const special = (row['special'] as string[] | null) ?? [];
    if (taken.has(field) || !special.some((s) => ALIAS_SPECIALS.has(s))) continue;
    fields.push(aliasField(field, special, row));
  }

  // Fields in meta.sort, then name order.
  fields.sort((a, b) => (a.sort ?? Infinity) - (b.sort ?? Infinity) || compareNames(a.field, b.field));
  const sortField = meta?.['sort_field'];
  const accountability = meta === null ? 'all' : meta['accountability'];
  return {
    collection: table.name,
    primary,
    singleton: meta?.['singleton'] === true,
    sortField: typeof sortField === 'string' && table.columns.some((c) => c.name === sortField) ? sortField : null,
    accountability: accountability === 'all' || accountability === 'activity' ? accountability : null,
    isSystem,
    fields: nameMap(fields.map((f) => [f.field, f])),
    meta,
    comment: table.comment,
  };
}

function columnField(
  column: RawColumn,
  isPrimaryKey: boolean,
  fixedType: FieldOverview['type'] | undefined,
  special: string[],
  meta: Row | null,
): FieldOverview {
  const type = fixedType ?? fieldTypeOf(column, special);
  return {
    field: column.name,
    type,
    dbType: column.dataType,
    special,
    defaultValue: castDefault(parseSqlDefault(column.defaultRaw), type),
    nullable: column.isNullable,
    maxLength: column.maxLength,
    precision: column.numericPrecision,
    scale: column.numericScale,
    isPrimaryKey,
    isGenerated: column.hasAutoIncrement || column.isGenerated,
    hasAutoIncrement: column.hasAutoIncrement,
    generationExpression: column.generationExpression,
    comment: column.comment,
    isUnique: column.isUnique || isPrimaryKey,
    isIndexed: column.isIndexed || isPrimaryKey,
    isAlias: false,
    ...metaProperties(meta),
  };
}

function aliasField(field: string, special: string[], meta: Row | null): FieldOverview {
  return {
    field,
    type: 'alias',
    dbType: null,
    special,
    defaultValue: null,
    nullable: true,
    maxLength: null,
    precision: null,
    scale: null,
    isPrimaryKey: false,
    isGenerated: false,
    hasAutoIncrement: false,
    generationExpression: null,
    comment: null,
    isUnique: false,
    isIndexed: false,
    isAlias: true,
    ...metaProperties(meta),
  };
}

function metaProperties(
  meta: Row | null,
): Pick<FieldOverview, 'required' | 'validation' | 'validationMessage' | 'sort' | 'meta'> {
  const validation = meta?.['validation'];
  const message = meta?.['validation_message'];
  const sort = meta?.['sort'];
  return {
    required: meta?.['required'] === true,
    validation: isPlainObject(validation) ? validation : null,
    validationMessage: typeof message === 'string' ? message : null,
    sort: typeof sort === 'number' ? sort : null,
    meta,
  };
}

function systemFieldMeta(collection: string, field: string, special: readonly string[] | null, note?: string): Row {
  return {
    id: null,
    collection,
    field,
    ...FIELD_ROW_DEFAULTS,
    special: special === null ? null : [...special],
    ...(note === undefined ? {} : { note }),
    system: true,
  };
}

/**
 * One relation per FK column: svc_relations rows, the database's own foreign keys without a
 * row (meta null), and the system relations; the database FK supplies `schema` to each.
 * Relations that point at or from something not served are left out.
 */
function buildRelations(
  collections: Readonly<Record<string, CollectionOverview>>,
  rows: readonly Row[],
  foreignKeys: readonly RawForeignKey[],
): RelationOverview[] {
  const fkByColumn = new Map(foreignKeys.map((fk) => [`${fk.table}.${fk.column}`, fk]));
  const relations = new Map<string, RelationOverview>();
  const hasColumn = (collection: string, field: string) => {
    const f = collections[collection]?.fields[field];
    return f !== undefined && !f.isAlias;
  };

  for (const definition of SYSTEM_RELATIONS) {
    const { collection, field, relatedCollection } = definition;
    if (!hasColumn(collection, field) || collections[relatedCollection] === undefined) continue;
    const meta: RelationMeta = {
      id: null,
      oneField: null,
      oneCollectionField: null,
      oneAllowedCollections: null,
      junctionField: null,
      sortField: null,
      oneDeselectAction: 'nullify',
      ...definition.meta,
    };
    const key = `${collection}.${field}`;
    relations.set(key, { collection, field, relatedCollection, meta, schema: toSchema(fkByColumn.get(key)) });
  }

  for (const stored of rows) {
    const row = decodeRow(RELATION_ROW, stored);
    const collection = String(row['many_collection']);
    const field = String(row['many_field']);
    const key = `${collection}.${field}`;
    if (relations.has(key)) continue;
    const related = typeof row['one_collection'] === 'string' ? row['one_collection'] : null;
    if (!hasColumn(collection, field)) continue;
    if (related !== null && collections[related] === undefined) continue;
    const meta: RelationMeta = {
      id: Number(row['id']),
      oneField: stringOrNull(row['one_field']),
      oneCollectionField: stringOrNull(row['one_collection_field']),
      oneAllowedCollections: (row['one_allowed_collections'] as string[] | null) ?? null,
      junctionField: stringOrNull(row['junction_field']),
      sortField: stringOrNull(row['sort_field']),
      oneDeselectAction: row['one_deselect_action'] === 'delete' ? 'delete' : 'nullify',
    };
    relations.set(key, { collection, field, relatedCollection: related, meta, schema: toSchema(fkByColumn.get(key)) });
  }

  for (const fk of foreignKeys) {
    const key = `${fk.table}.${fk.column}`;
    if (relations.has(key) || !hasColumn(fk.table, fk.column)) continue;
    if (collections[fk.foreignTable] === undefined) continue;
    relations.set(key, {
      collection: fk.table,
      field: fk.column,
      relatedCollection: fk.foreignTable,
      meta: null,
      schema: toSchema(fk),
    });
  }
  return [...relations.values()];
}

function toSchema(fk: RawForeignKey | undefined): RelationSchema | null {
  if (fk === undefined || fk.foreignColumn === null) return null;
  return {
    constraintName: fk.constraintName,
    foreignKeyColumn: fk.foreignColumn,
    onDelete: fk.onDelete,
    onUpdate: fk.onUpdate,
  };
}

function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
