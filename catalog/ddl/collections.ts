import type { Knex } from 'knex';
import { databaseDialect } from '../../src/db/dialects/index.js';
import { dialectOf } from '../../src/db/index.js';
import { ForbiddenError, InvalidPayloadError, UnprocessableEntityError } from '../../src/errors.js';
import { COLLECTION_ROW, COLLECTION_ROW_DEFAULTS, encodeRow, parseCsv } from '../overview/meta-rows.js';
import type { FieldType, SchemaOverview } from '../overview/types.js';
import { isSystemName } from '../system/definitions.js';
import { defineColumn } from './columns.js';
import type { SchemaContext } from './context.js';
import { newFieldRow, withoutUndefined } from './field-rows.js';
import { addKeys } from './column-keys.js';
import { forgetRelation } from './field-references.js';
import { newColumnDefinition } from './fields.js';
import { alreadyExists, sameNameIgnoringCase } from './names.js';
import type { CollectionSpec, FieldSpec } from './payloads.js';
import { runSchemaChange } from './schema-change.js';

/** POST /collections adds this key when the fields name none. */
const DEFAULT_PRIMARY_KEY: FieldSpec = {
  field: 'id',
  type: 'integer',
  meta: { hidden: true, readonly: true, interface: 'input' },
  schema: { isPrimaryKey: true, hasAutoIncrement: true },
};

const PRIMARY_KEY_TYPES: readonly FieldType[] = ['integer', 'bigInteger', 'uuid', 'string'];

type Meta = Readonly<Record<string, unknown>>;

/**
 * POST /collections: creates each table with its primary key (integer auto-increment by
 * default; big integer, uuid or string when a field says so) and fields, plus the
 * svc_collections and svc_fields rows; `schema: null` makes a folder (a row, no table).
 * All collections of one request are created together or not at all.
 */
export async function createCollections(ctx: SchemaContext, specs: readonly CollectionSpec[]): Promise<void> {
  const overview = await ctx.schema.getOverview();
  const planned = new Set<string>();
  const prepared: CollectionSpec[] = [];
  const taken = [
    ...Object.keys(overview.collections),
    ...(overview.folders ?? []).map((f) => f['collection']).filter((c) => typeof c === 'string'),
  ];
  for (const spec of specs) {
    const existing =
      sameNameIgnoringCase(spec.collection, [...planned, ...taken]) ??
      ((await ctx.db.schema.hasTable(spec.collection)) ? spec.collection : undefined);
    if (existing !== undefined) throw new InvalidPayloadError(alreadyExists('Collection', spec.collection, existing));
    planned.add(spec.collection);
    prepared.push(spec.isFolder ? spec : withPrimaryKey(spec));
  }

  const dialect = dialectOf(ctx.db);
  await runSchemaChange(
    ctx.db,
    async (change) => {
      for (const spec of prepared) {
        const columns = spec.isFolder ? [] : spec.fields.filter((f) => f.schema !== null);
        if (!spec.isFolder) {
          await change.ddl(
            (x) =>
              x.schema.createTable(spec.collection, (t) => {
                for (const f of columns)
                  defineColumn(t, x, dialect, newColumnDefinition(f.field, f.type, f.schema ?? {}));
              }),
            (x) => x.schema.dropTableIfExists(spec.collection),
          );
          for (const f of columns)
            await addKeys(change, { collection: spec.collection, field: f.field, type: f.type }, f.schema ?? {});
        }
        await change.data(async (trx) => {
          await replaceStaleRows(trx, spec.collection);
          await trx('svc_collections').insert(newCollectionRow(spec.collection, spec.meta ?? {}));
          for (const f of spec.isFolder ? [] : spec.fields) {
            await trx('svc_fields').insert(withoutUndefined(newFieldRow(spec.collection, f.field, f.type, f.meta)));
          }
        });
      }
    },
    ctx.reporter,
  ).catch((error: unknown) => {
    // Defaults and sizes are checked before (default-values.ts, column-sizes.ts); a refusal
    // they missed (a MariaDB row too large) is still a 400.
    if (typeof error !== 'object' || error === null) throw error;
    const names = prepared.map((c) => `"${c.collection}"`).join(', ');
    const database = databaseDialect(dialect);
    if (database.isInvalidDefaultError(error)) {
      throw new InvalidPayloadError(`A default value in collection ${names} is not a value of its field's type`);
    }
    if (database.isColumnSizeError(error)) {
      throw new InvalidPayloadError(
        `A field of collection ${names} is larger than the database takes (its length, precision or scale, or the table's row size with it)`,
      );
    }
    throw error;
  });
  await ctx.schema.invalidate();
}

/**
 * A table dropped outside the service (with its svc_collections row) can leave its svc_fields
 * and svc_relations rows: they describe fields that are gone, so a collection created under
 * the same name replaces them, in its transaction. Relations of other collections into it
 * stay (their columns exist) but lose the o2m alias that went with the old fields.
 */
async function replaceStaleRows(trx: Knex.Transaction, collection: string): Promise<void> {
  await trx('svc_fields').where({ collection }).delete();
  await trx('svc_relations').where({ many_collection: collection }).delete();
  await trx('svc_relations')
    .where({ one_collection: collection })
    .whereNotNull('one_field')
    .update({ one_field: null });
}

/** The spec with exactly one primary key field, first; a uuid key without a default gets special `uuid`. */
function withPrimaryKey(spec: CollectionSpec): CollectionSpec {
  const keys = spec.fields.filter((f) => f.schema?.isPrimaryKey === true);
  if (keys.length > 1) {
    throw new InvalidPayloadError(`Collection "${spec.collection}" can have only one primary key field`);
  }
  const [key = DEFAULT_PRIMARY_KEY] = keys;
  if (!PRIMARY_KEY_TYPES.includes(key.type)) {
    throw new InvalidPayloadError(
      `Primary key "${key.field}" of collection "${spec.collection}" must be of type integer, bigInteger, uuid or string, not "${key.type}"`,
    );
  }
  if (key.schema?.hasAutoIncrement === true && key.type !== 'integer' && key.type !== 'bigInteger') {
    throw new InvalidPayloadError(`Primary key "${key.field}" of type "${key.type}" can't auto-increment`);
  }
  const isUuidWithoutSource =
    key.type === 'uuid' &&
    (key.schema?.defaultValue ?? null) === null &&
    !(parseCsv(key.meta?.['special']) ?? []).includes('uuid');
  const primary: FieldSpec = isUuidWithoutSource
    ? { ...key, meta: { ...key.meta, special: [...(parseCsv(key.meta?.['special']) ?? []), 'uuid'] } }
    : key;
  assertSortField(spec.collection, spec.meta, [primary, ...spec.fields]);
  return { ...spec, fields: [primary, ...spec.fields.filter((f) => f !== key)] };
}

/** PATCH /collections/:collection: only meta changes; the row is created when missing. */
export async function updateCollection(ctx: SchemaContext, collection: string, meta: Meta): Promise<void> {
  const overview = await ctx.schema.getOverview();
  const target = overview.collections[collection];
  const isFolder = (overview.folders ?? []).some((f) => f['collection'] === collection);
  if (target === undefined && !isFolder) throw new ForbiddenError();
  if (target?.isSystem === true) {
    throw new UnprocessableEntityError(`System collection "${collection}" can't be altered`);
  }
  if (target !== undefined) {
    assertSortField(
      collection,
      meta,
      Object.values(target.fields).map((f) => ({ field: f.field, schema: f.isAlias ? null : {} })),
    );
  }
  await runSchemaChange(
    ctx.db,
    (change) =>
      change.data(async (trx) => {
        const exists = (await trx('svc_collections').where({ collection }).first('collection')) !== undefined;
        if (!exists) {
          await trx('svc_collections').insert(newCollectionRow(collection, meta));
          return;
        }
        const { collection: _ignored, ...changes } = encodeRow(COLLECTION_ROW, meta);
        if (Object.keys(changes).length > 0) await trx('svc_collections').where({ collection }).update(changes);
      }),
    ctx.reporter,
  );
  await ctx.schema.invalidate();
}

/**
 * DELETE /collections/:collection: drops the table after every FK pointing at it, and removes
 * its svc_fields, svc_relations, svc_collections rows and the permissions, presets, comments,
 * revisions and activity recorded for it. A folder loses its row and its children their group.
 */
export async function deleteCollection(ctx: SchemaContext, collection: string): Promise<void> {
  if (isSystemName(collection)) {
    throw new UnprocessableEntityError(`System collection "${collection}" can't be deleted`);
  }
  const overview = await ctx.schema.getOverview();
  const target = overview.collections[collection];
  const isFolder = (overview.folders ?? []).some((f) => f['collection'] === collection);
  if (target === undefined && !isFolder) throw new ForbiddenError();

  await runSchemaChange(
    ctx.db,
    async (change) => {
      if (target !== undefined) {
        for (const relation of overview.relations) {
          if (relation.relatedCollection === collection && relation.collection !== collection) {
            await forgetRelation(change, relation);
          }
        }
      }
      await change.data(async (trx) => {
        await removeFromManyToAny(trx, overview, collection);
        for (const relation of overview.relations) {
          const oneField = relation.meta?.oneField;
          if (relation.collection === collection && relation.relatedCollection !== null && oneField != null) {
            await trx('svc_fields').where({ collection: relation.relatedCollection, field: oneField }).delete();
          }
        }
        await trx('svc_relations')
          .where({ many_collection: collection })
          .orWhere({ one_collection: collection })
          .delete();
        await trx('svc_fields').where({ collection }).delete();
        await trx('svc_collections').where({ collection }).delete();
        await trx('svc_collections').where({ group: collection }).update({ group: null });
        // Revisions of other collections caused by this one's writes keep their rows, not the link
        // (SQLite runs this with foreign keys off, so ON DELETE SET NULL would not fire).
        await trx('svc_revisions')
          .whereIn('parent', trx('svc_revisions').select('id').where({ collection }))
          .whereNot({ collection })
          .update({ parent: null });
        for (const table of [
          'svc_permissions',
          'svc_presets',
          'svc_comments',
          'svc_versions',
          'svc_revisions',
          'svc_activity',
        ]) {
          await trx(table).where({ collection }).delete();
        }
      });
      if (target !== undefined) await change.ddl((x) => x.schema.dropTable(collection));
    },
    ctx.reporter,
  );
  await ctx.schema.invalidate();
}

async function removeFromManyToAny(trx: Knex.Transaction, overview: SchemaOverview, collection: string): Promise<void> {
  for (const relation of overview.relations) {
    const allowed = relation.meta?.oneAllowedCollections;
    if (relation.meta?.id == null || allowed == null || !allowed.includes(collection)) continue;
    const rest = allowed.filter((c) => c !== collection);
    await trx('svc_relations')
      .where({ id: relation.meta.id })
      .update({ one_allowed_collections: rest.length === 0 ? null : rest.join(',') });
  }
}

function newCollectionRow(collection: string, meta: Meta): Record<string, unknown> {
  return { ...encodeRow(COLLECTION_ROW, { ...COLLECTION_ROW_DEFAULTS, ...meta }), collection };
}

function assertSortField(
  collection: string,
  meta: Meta | undefined,
  fields: readonly Pick<FieldSpec, 'field' | 'schema'>[],
): void {
  const sortField = meta?.['sort_field'];
  if (sortField === undefined || sortField === null) return;
  if (!fields.some((f) => f.field === sortField && f.schema !== null)) {
    throw new InvalidPayloadError(
      `"meta.sort_field": field "${typeof sortField === 'string' ? sortField : JSON.stringify(sortField)}" doesn't exist in collection "${collection}"`,
    );
  }
}
