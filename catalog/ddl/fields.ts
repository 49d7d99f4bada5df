import type { Knex } from 'knex';
import { isDeepStrictEqual } from 'node:util';
import type { DbClient } from '../../src/db-client.js';
import { databaseDialect } from '../../src/db/dialects/index.js';
import { dialectOf } from '../../src/db/index.js';
import {
  ContainsNullValuesError,
  ForbiddenError,
  InvalidPayloadError,
  UnprocessableEntityError,
} from '../../src/errors.js';
import { readColumnKeys } from '../introspection/index.js';
import { apiDefault } from '../overview/api-objects.js';
import { typeFixedBy } from '../overview/field-type.js';
import { requireCollection, requireTable } from '../overview/lookup.js';
import {
  FIELD_TYPES,
  type CollectionOverview,
  type FieldOverview,
  type FieldType,
  type SchemaOverview,
} from '../overview/types.js';
import { defaultsToNow, defineColumn, stringLengthOf, type ColumnDefinition } from './columns.js';
import type { SchemaContext } from './context.js';
import { assertColumnSize } from './column-sizes.js';
import { assertDefaultFits } from './default-values.js';
import { newFieldRow, specialsOfOtherTypes, upsertFieldRow, withoutUndefined } from './field-rows.js';
import { addKeys, changeKey, dropUniqueKeys } from './column-keys.js';
import { assertTypeKeepsRelations, forgetField } from './field-references.js';
import { alreadyExists, sameNameIgnoringCase } from './names.js';
import type { ColumnSpec, FieldPatch, FieldSpec } from './payloads.js';
import {
  assertNumbersConvert,
  convertSqliteNumbers,
  convertToBooleans,
  convertsNumbers,
  findChangedValue,
  valuesWouldChange,
} from './number-changes.js';
import { runSchemaChange, type SchemaChange } from './schema-change.js';
import {
  assertIndexable,
  assertSqliteConverted,
  assertValuesFit,
  translateSchemaError,
  type ChangedField,
} from './schema-errors.js';

/** Types an existing column can be altered to or from (geometry and unknown columns are left alone). */
const ALTERABLE: ReadonlySet<FieldType> = new Set(
  FIELD_TYPES.filter((type) => type !== 'alias' && type !== 'geometry' && type !== 'unknown'),
);

/**
 * Number types PostgreSQL has no cast to boolean for (it casts an integer alone), where MariaDB
 * would round 0.5 to false and SQLite keep it: their change to a boolean is refused everywhere.
 */
const NOT_TO_BOOLEAN: ReadonlySet<FieldType> = new Set(['bigInteger', 'float', 'decimal']);

/**
 * POST /fields/:collection (administrators): adds the column (none for an alias) and its
 * svc_fields row; a folder is 422 saying it is one (lookup.ts, requireTable).
 */
export async function createField(ctx: SchemaContext, collection: string, spec: FieldSpec): Promise<void> {
  const target = requireTable(await ctx.schema.getOverview(), collection);
  const existing = sameNameIgnoringCase(spec.field, Object.keys(target.fields));
  if (existing !== undefined) {
    throw new InvalidPayloadError(alreadyExists('Field', spec.field, existing, ` in collection "${collection}"`));
  }
  if (spec.schema?.isPrimaryKey === true) {
    throw new InvalidPayloadError(
      `Field "${spec.field}" can't become the primary key: collection "${collection}" has one ("${target.primary}")`,
    );
  }
  if (spec.schema !== null) await assertColumnCanBeAdded(ctx.db, collection, spec.field, spec.schema);
  const dialect = dialectOf(ctx.db);
  await runSchemaChange(
    ctx.db,
    async (change) => {
      if (spec.schema !== null) await addColumn(change, dialect, collection, spec.field, spec.type, spec.schema);
      await change.data(async (trx) => {
        // A row left by a column dropped outside the service describes a field that is gone.
        await trx('svc_fields').where({ collection, field: spec.field }).delete();
        await trx('svc_fields').insert(withoutUndefined(newFieldRow(collection, spec.field, spec.type, spec.meta)));
      });
    },
    ctx.reporter,
  ).catch((error: unknown) => {
    throw translateSchemaError(error, dialect, { collection, field: spec.field, type: spec.type });
  });
  await ctx.schema.invalidate();
}

/** A NOT NULL column without a default can only be added to an empty table. */
async function assertColumnCanBeAdded(db: Knex, table: string, field: string, spec: ColumnSpec): Promise<void> {
  const column = newColumnDefinition(field, 'string', spec);
  if (!mustBeFilled(column)) return;
  if ((await db(table).first(db.raw('1 as one'))) !== undefined) {
    throw new ContainsNullValuesError({ collection: table, field });
  }
}

function mustBeFilled(column: ColumnDefinition): boolean {
  return !column.isNullable && (column.defaultValue === undefined || column.defaultValue === null);
}

/**
 * Adds one column with its unique key or index. SQLite can't add a NOT NULL column without a
 * default, so there it is added nullable and then tightened (the table is empty: checked before);
 * nor one defaulting to the current time (not a constant) to a table with rows: there it is
 * added without, its rows get the time as the others' do, then it takes its default.
 */
async function addColumn(
  change: SchemaChange,
  dialect: DbClient,
  table: string,
  field: string,
  type: FieldType,
  spec: ColumnSpec,
): Promise<void> {
  const column = newColumnDefinition(field, type, spec);
  const isNow = defaultsToNow(column);
  const addFirst =
    (mustBeFilled(column) || isNow) && !databaseDialect(dialect).addsRequiredColumns
      ? { ...column, isNullable: true, ...(isNow ? { defaultValue: undefined } : {}) }
      : column;
  await change.ddl(
    (x) =>
      x.schema.alterTable(table, (t) => {
        defineColumn(t, x, dialect, addFirst);
      }),
    (x) =>
      x.schema.alterTable(table, (t) => {
        t.dropColumn(field);
      }),
  );
  if (addFirst !== column) {
    if (isNow) await change.data((trx) => trx(table).update({ [field]: trx.fn.now() }));
    await change.ddl((x) =>
      x.schema.alterTable(table, (t) => {
        defineColumn(t, x, dialect, column).alter();
      }),
    );
  }
  await addKeys(change, { collection: table, field, type }, spec);
}

export function newColumnDefinition(field: string, type: FieldType, spec: ColumnSpec): ColumnDefinition {
  const isPrimaryKey = spec.isPrimaryKey === true;
  return {
    name: field,
    type,
    isPrimaryKey,
    hasAutoIncrement: isPrimaryKey && spec.hasAutoIncrement === true,
    isNullable: !isPrimaryKey && spec.isNullable !== false,
    defaultValue: spec.defaultValue,
    maxLength: spec.maxLength ?? null,
    precision: spec.numericPrecision ?? null,
    scale: spec.numericScale ?? null,
    comment: spec.comment ?? null,
  };
}

/** What a field change may do beyond its patch. */
export interface FieldUpdateOptions {
  /** A new type, precision or scale may change stored numbers (round, drop fractions). */
  readonly allowDestructive?: boolean;
}

/**
 * PATCH /fields/:collection/:field: alters the column (type, length, precision, nullability,
 * default, unique) and updates or creates the svc_fields row. The primary key and the system
 * tables' own fields can't be altered (422). A change that would store a number as another
 * value is refused unless `allowDestructive` (number-changes.ts).
 */
export async function updateField(
  ctx: SchemaContext,
  collection: string,
  field: string,
  patch: FieldPatch,
  options: FieldUpdateOptions = {},
): Promise<void> {
  const overview = await ctx.schema.getOverview();
  const target = requireCollection(overview, collection);
  const current = requireField(target, field);
  assertNotSystemField(target, current, 'altered');
  const type = patch.type ?? current.type;
  if ((type === 'alias') !== current.isAlias) {
    throw new InvalidPayloadError(
      `Field "${field}" of collection "${collection}" can't change between alias and column`,
    );
  }
  const schema = withoutUnchanged(patch.schema ?? {}, current);
  const isColumnChange =
    !current.isAlias &&
    (type !== current.type ||
      ['defaultValue', 'isNullable', 'maxLength', 'numericPrecision', 'numericScale'].some((k) => k in schema));
  const uniqueChange = !current.isAlias && schema.isUnique !== undefined && schema.isUnique !== current.isUnique;
  const isUnique = schema.isUnique ?? current.isUnique;
  const db = ctx.db;
  const dialect = dialectOf(db);
  // InnoDB makes an index with each foreign key and refuses to drop its last one: there the
  // column keeps an index (a plain one replaces a dropped unique key), and is_indexed says so.
  const keepsIndex = databaseDialect(dialect).indexesForeignKeys && hasForeignKey(overview, collection, field);
  // A plain index of its own, kept unless is_indexed says; a unique key replaces it (it is an index).
  const hadIndex = current.isIndexed && !current.isUnique;
  const wantsIndex = !isUnique && (schema.isIndexed ?? (hadIndex || keepsIndex));
  const indexChange = !current.isAlias && wantsIndex !== hadIndex;
  if (!current.isAlias && schema.isIndexed === false && isUnique) {
    throw new InvalidPayloadError(
      `Field "${field}" of collection "${collection}" is unique: its unique key is an index`,
    );
  }
  if (schema.isIndexed === false && keepsIndex) {
    throw new InvalidPayloadError(
      `Field "${field}" of collection "${collection}" has a foreign key: MariaDB keeps an index on a foreign key's column`,
    );
  }
  if (current.isPrimaryKey && (isColumnChange || uniqueChange)) {
    throw new UnprocessableEntityError(
      type !== current.type
        ? `The type of primary key "${collection}.${field}" can't be changed`
        : `Primary key "${collection}.${field}" can't be altered`,
    );
  }
  if (isColumnChange && (!ALTERABLE.has(current.type) || !ALTERABLE.has(type))) {
    throw new InvalidPayloadError(`Field "${field}" of type "${current.type}" can't be altered to "${type}"`);
  }
  if (isColumnChange && type === 'boolean' && NOT_TO_BOOLEAN.has(current.type)) {
    throw new InvalidPayloadError(
      `Field "${field}" of type "${current.type}" can't be altered to "boolean": only an integer becomes a boolean`,
    );
  }
  if (isColumnChange && type !== current.type) assertTypeKeepsRelations(overview, collection, field, type);
  if (patch.type !== undefined && patch.meta !== undefined && patch.meta !== null && 'special' in patch.meta) {
    const [other] = specialsOfOtherTypes(type, patch.meta['special']);
    if (other !== undefined) {
      throw new InvalidPayloadError(
        `Field "${field}" of collection "${collection}" can't be of type "${type}" with special "${other}": that special makes its type "${String(typeFixedBy(other))}"`,
      );
    }
  }

  const before = existingColumnDefinition(current);
  const after: ColumnDefinition = {
    ...before,
    type,
    isNullable: schema.isNullable ?? before.isNullable,
    defaultValue: 'defaultValue' in schema ? schema.defaultValue : before.defaultValue,
    maxLength: 'maxLength' in schema ? (schema.maxLength ?? null) : type === current.type ? before.maxLength : null,
    precision: 'numericPrecision' in schema ? (schema.numericPrecision ?? null) : before.precision,
    scale: 'numericScale' in schema ? (schema.numericScale ?? null) : before.scale,
  };
  const isResized = ['maxLength', 'numericPrecision', 'numericScale'].some((k) => k in schema);
  if (isColumnChange && (type !== current.type || isResized)) assertColumnSize(collection, field, type, after);
  // A kept default too: the new type or size must hold it (knex would write 7 as a boolean's false).
  if (isColumnChange && ('defaultValue' in schema || type !== current.type || isResized)) {
    assertDefaultFits(collection, field, type, after.defaultValue, after);
  }
  const changed: ChangedField = { collection, field, type };
  if ((uniqueChange && isUnique) || (indexChange && wantsIndex)) assertIndexable(changed);
  if (isColumnChange && before.isNullable && !after.isNullable) {
    const withNull = await db(collection).whereNull(field).first<{ one: number } | undefined>(db.raw('1 as one'));
    if (withNull !== undefined) throw new ContainsNullValuesError({ collection, field });
  }
  const [length, lengthBefore] = [stringLengthOf(after), stringLengthOf(before)];
  if (isColumnChange && length !== null && (lengthBefore === null || length < lengthBefore)) {
    await assertValuesFit(db, dialect, changed, length);
  }

  await runSchemaChange(
    db,
    async (change) => {
      if (isColumnChange && convertsNumbers(before, after)) {
        const check = async (x: Knex) => {
          await assertNumbersConvert(x, dialect, changed, before, after);
          if (options.allowDestructive === true) return;
          const example = await findChangedValue(x, dialect, changed, before, after);
          if (example !== undefined) throw valuesWouldChange(changed, after, example);
        };
        // In the change's transaction, so no row comes in between; on MySQL, where the ALTER
        // runs outside it, a read in the open transaction would hold the table's metadata
        // lock against the ALTER: read on the pool there.
        await (databaseDialect(dialect).schemaChanges === 'undo' ? check(db) : change.data(check));
      }
      if (isColumnChange) {
        await change.ddl(
          (x) =>
            x.schema.alterTable(collection, (t) => {
              defineColumn(t, x, dialect, after).alter();
            }),
          (x) =>
            x.schema.alterTable(collection, (t) => {
              defineColumn(t, x, dialect, before).alter();
            }),
        );
        if (!databaseDialect(dialect).convertsChangedTypes) {
          await change.data((trx) => convertSqliteNumbers(trx, dialect, changed, before, after));
          if (type !== current.type) await change.data((trx) => assertSqliteConverted(trx, changed));
        }
      }
      // Keys are added before others are dropped: a foreign key on MariaDB is never left without one.
      if (indexChange && wantsIndex) await changeKey(change, changed, 'index', true);
      if (uniqueChange && isUnique) await changeKey(change, changed, 'unique', true);
      if (uniqueChange && !isUnique) await dropUniqueKeys(change, changed);
      if (indexChange && !wantsIndex) {
        // By the names the database reports: MariaDB's own FK index and indexes made elsewhere too.
        const { indexNames } = await change.data((trx) => readColumnKeys(trx, collection, field));
        for (const name of indexNames) await changeKey(change, changed, 'index', false, name);
      }
      const meta = patch.meta ?? {};
      // `meta: null` (what GET shows for a field without a svc_fields row) leaves it as it is.
      if ((patch.meta !== undefined && patch.meta !== null) || type !== current.type) {
        await change.data((trx) => upsertFieldRow(trx, collection, field, type, meta));
      }
      // Last: it changes stored values (allowed, or there were none to change).
      if (isColumnChange && type === 'boolean' && convertsNumbers(before, after)) {
        await change.ddl((x) => convertToBooleans(x, changed));
      }
    },
    ctx.reporter,
  ).catch((error: unknown) => {
    throw translateSchemaError(error, dialect, changed);
  });
  await ctx.schema.invalidate();
}

/** The column definition keys of a PATCH, and what each is compared with: the field as GET shows it. */
const DEFINITION_VALUE: Readonly<Partial<Record<keyof ColumnSpec, (field: FieldOverview) => unknown>>> = {
  defaultValue: (f) => apiDefault(f.defaultValue),
  isNullable: (f) => f.nullable,
  maxLength: (f) => f.maxLength,
  numericPrecision: (f) => f.precision,
  numericScale: (f) => f.scale,
};

/**
 * The PATCH's column keys without the definition values it leaves as they are: a field
 * object read by GET /fields and sent back unchanged (as Directus clients do) alters nothing.
 * is_unique and is_indexed keep their own rules (given together they decide the keys).
 */
function withoutUnchanged(schema: ColumnSpec, current: FieldOverview): ColumnSpec {
  return Object.fromEntries(
    Object.entries(schema).filter(([key, value]) => {
      const currentValue = DEFINITION_VALUE[key as keyof ColumnSpec];
      return currentValue === undefined || !isDeepStrictEqual(value, currentValue(current));
    }),
  );
}

/** The definition an existing column has, so it can be rewritten (alter) or restored (undo). */
function existingColumnDefinition(field: FieldOverview): ColumnDefinition {
  const value = field.defaultValue;
  const isExpression = typeof value === 'object' && value !== null && (value as { fn?: unknown }).fn === 'expression';
  return {
    name: field.field,
    type: field.type,
    isPrimaryKey: field.isPrimaryKey,
    hasAutoIncrement: field.hasAutoIncrement,
    isNullable: field.nullable,
    defaultValue: isExpression ? undefined : value,
    maxLength: field.maxLength,
    precision: field.precision,
    scale: field.scale,
    comment: field.comment,
  };
}

/**
 * DELETE /fields/:collection/:field: drops the column with its foreign key, the svc_fields
 * row, the relation stored for it and the alias that showed its other side.
 */
export async function deleteField(ctx: SchemaContext, collection: string, field: string): Promise<void> {
  const overview = await ctx.schema.getOverview();
  const target = requireCollection(overview, collection);
  const current = requireField(target, field);
  assertNotSystemField(target, current, 'deleted');
  if (current.isPrimaryKey) {
    throw new UnprocessableEntityError(`Primary key "${collection}.${field}" can't be deleted`);
  }
  await runSchemaChange(
    ctx.db,
    async (change) => {
      await forgetField(change, overview, collection, field);
      if (!current.isAlias) {
        await change.ddl((x) =>
          x.schema.alterTable(collection, (t) => {
            t.dropColumn(field);
          }),
        );
      }
    },
    ctx.reporter,
  );
  await ctx.schema.invalidate();
}

function hasForeignKey(overview: SchemaOverview, collection: string, field: string): boolean {
  return overview.relations.some((r) => r.collection === collection && r.field === field && r.schema !== null);
}

function requireField(collection: CollectionOverview, field: string): FieldOverview {
  const found = collection.fields[field];
  if (found === undefined) throw new ForbiddenError();
  return found;
}

/** The svc_* tables' own fields are defined by the catalogue (422). */
function assertNotSystemField(collection: CollectionOverview, field: FieldOverview, action: string): void {
  if (collection.isSystem && field.meta?.['system'] === true) {
    throw new UnprocessableEntityError(`System field "${collection.collection}.${field.field}" can't be ${action}`);
  }
}
