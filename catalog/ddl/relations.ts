import type { Knex } from 'knex';
import { ForbiddenError, InvalidPayloadError, UnprocessableEntityError } from '../../src/errors.js';
import type { CollectionOverview, RelationOverview, SchemaOverview } from '../overview/types.js';
import { RELATION_ROW, encodeRow, parseCsv } from '../overview/meta-rows.js';
import type { SchemaContext } from './context.js';
import { newFieldRow, withoutUndefined } from './field-rows.js';
import { foreignKeyOf, forgetRelation } from './field-references.js';
import { addForeignKey, assertReferencesExist, dropForeignKey } from './foreign-keys.js';
import type { ReferentialAction, RelationPatch, RelationSpec } from './payloads.js';
import { runSchemaChange, type SchemaChange } from './schema-change.js';

/** A new FK's on_delete when the caller names none. */
const DEFAULT_ON_DELETE: ReferentialAction = 'SET NULL';

type Meta = Readonly<Record<string, unknown>>;

/**
 * POST /relations: stores the svc_relations row and, for a relation with a related
 * collection, adds the FK constraint with its on-delete rule (m2a item columns get none).
 * A `meta.one_field` that does not exist yet becomes an alias field on the related collection.
 */
export async function createRelation(ctx: SchemaContext, spec: RelationSpec): Promise<void> {
  const overview = await ctx.schema.getOverview();
  const many = requireExisting(overview, spec.collection, 'Collection');
  const field = many.fields[spec.field];
  if (field === undefined || field.isAlias) {
    throw new InvalidPayloadError(`Field "${spec.field}" doesn't exist in collection "${spec.collection}"`);
  }
  if (findRelation(overview, spec.collection, spec.field) !== undefined) {
    throw new InvalidPayloadError(
      `Field "${spec.field}" in collection "${spec.collection}" already has an associated relationship`,
    );
  }
  const meta = spec.meta ?? {};
  const related =
    spec.relatedCollection === null ? null : requireExisting(overview, spec.relatedCollection, 'Related collection');
  assertRelationMeta(overview, many, related, meta);
  const oneField = stringOrNull(meta['one_field']);
  const columns =
    related === null
      ? null
      : {
          collection: many.collection,
          field: spec.field,
          relatedCollection: related.collection,
          foreignColumn: related.primary,
        };
  if (columns !== null) await assertReferencesExist(ctx.db, columns);

  await runSchemaChange(
    ctx.db,
    async (change) => {
      if (columns !== null) {
        await addForeignKey(change, { ...columns, onDelete: spec.onDelete ?? DEFAULT_ON_DELETE, constraintName: null });
      }
      await change.data(async (trx) => {
        await trx('svc_relations').insert(newRelationRow(spec, meta));
        if (related !== null && oneField !== null) await ensureAlias(trx, related, oneField, meta);
      });
    },
    ctx.reporter,
  );
  await ctx.schema.invalidate();
}

/**
 * PATCH /relations/:collection/:field: updates (or creates) the svc_relations row; a new
 * `schema.on_delete` replaces the FK constraint.
 */
export async function updateRelation(
  ctx: SchemaContext,
  collection: string,
  field: string,
  patch: RelationPatch,
): Promise<void> {
  const overview = await ctx.schema.getOverview();
  const relation = requireRelation(overview, collection, field);
  const many = requireExisting(overview, collection, 'Collection');
  const related =
    relation.relatedCollection === null
      ? null
      : requireExisting(overview, relation.relatedCollection, 'Related collection');
  const meta = patch.meta ?? {};
  assertRelationMeta(overview, many, related, meta);
  const oneField = stringOrNull(meta['one_field']);
  if (patch.onDelete !== undefined && related !== null) {
    // The key is dropped and added again: rows written while there was none may break it.
    await assertReferencesExist(ctx.db, {
      collection,
      field,
      relatedCollection: related.collection,
      foreignColumn: relation.schema?.foreignKeyColumn ?? related.primary,
    });
  }

  await runSchemaChange(
    ctx.db,
    async (change) => {
      if (patch.onDelete !== undefined && related !== null) {
        await replaceForeignKey(change, relation, related, patch.onDelete);
      }
      if (patch.meta !== undefined) {
        await change.data(async (trx) => {
          const where = { many_collection: collection, many_field: field };
          if ((await trx('svc_relations').where(where).first('id')) === undefined) {
            await trx('svc_relations').insert(
              newRelationRow({ collection, field, relatedCollection: relation.relatedCollection }, meta),
            );
          } else {
            const changes = encodeRow(RELATION_ROW, withoutKeys(meta));
            if (Object.keys(changes).length > 0) await trx('svc_relations').where(where).update(changes);
          }
          if (related !== null && oneField !== null) await ensureAlias(trx, related, oneField, meta);
        });
      }
    },
    ctx.reporter,
  );
  await ctx.schema.invalidate();
}

/**
 * Refuses `spec`'s foreign key when the stored rows would break it, as createRelation does
 * first: schema apply asks before it drops the relation `spec` replaces (another related
 * collection), so that on SQLite and MariaDB, which keep the steps before a failing one, the
 * failure comes before anything changed. What createRelation refuses otherwise is left to it.
 */
export async function assertRelationHolds(ctx: SchemaContext, spec: RelationSpec): Promise<void> {
  if (spec.relatedCollection === null) return;
  const overview = await ctx.schema.getOverview();
  const related = overview.collections[spec.relatedCollection];
  const field = overview.collections[spec.collection]?.fields[spec.field];
  if (related === undefined || field === undefined || field.isAlias) return;
  await assertReferencesExist(ctx.db, {
    collection: spec.collection,
    field: spec.field,
    relatedCollection: related.collection,
    foreignColumn: related.primary,
  });
}

/** DELETE /relations/:collection/:field: drops the FK constraint, the row and the o2m alias. */
export async function deleteRelation(ctx: SchemaContext, collection: string, field: string): Promise<void> {
  const relation = requireRelation(await ctx.schema.getOverview(), collection, field);
  await runSchemaChange(ctx.db, (change) => forgetRelation(change, relation), ctx.reporter);
  await ctx.schema.invalidate();
}

async function replaceForeignKey(
  change: SchemaChange,
  relation: RelationOverview,
  related: CollectionOverview,
  onDelete: ReferentialAction,
): Promise<void> {
  const existing = foreignKeyOf(relation);
  if (existing !== undefined) await dropForeignKey(change, existing);
  await addForeignKey(change, {
    collection: relation.collection,
    field: relation.field,
    relatedCollection: related.collection,
    foreignColumn: relation.schema?.foreignKeyColumn ?? related.primary,
    onDelete,
    constraintName: existing?.constraintName ?? null,
  });
}

/** The alias field showing the o2m side, created when the related collection lacks it. */
async function ensureAlias(
  trx: Knex.Transaction,
  related: CollectionOverview,
  oneField: string,
  meta: Meta,
): Promise<void> {
  const existing = related.fields[oneField];
  if (existing !== undefined) return;
  const isStored =
    (await trx('svc_fields').where({ collection: related.collection, field: oneField }).first('id')) !== undefined;
  if (isStored) return;
  const special = stringOrNull(meta['junction_field']) === null ? 'o2m' : 'm2m';
  await trx('svc_fields').insert(
    withoutUndefined(newFieldRow(related.collection, oneField, 'alias', { special: [special] })),
  );
}

function assertRelationMeta(
  overview: SchemaOverview,
  many: CollectionOverview,
  related: CollectionOverview | null,
  meta: Meta,
): void {
  const oneField = stringOrNull(meta['one_field']);
  if (oneField !== null) {
    if (related === null) throw new InvalidPayloadError('"meta.one_field" needs a related collection');
    const existing = related.fields[oneField];
    if (existing !== undefined && !existing.isAlias) {
      throw new InvalidPayloadError(
        `Field "${oneField}" of collection "${related.collection}" is a column and can't show the relation`,
      );
    }
  }
  for (const key of ['junction_field', 'sort_field', 'one_collection_field'] as const) {
    const name = stringOrNull(meta[key]);
    const found = name === null ? undefined : many.fields[name];
    if (name !== null && (found === undefined || found.isAlias)) {
      throw new InvalidPayloadError(`"meta.${key}": field "${name}" doesn't exist in collection "${many.collection}"`);
    }
  }
  const deselect = meta['one_deselect_action'];
  if (deselect !== undefined && deselect !== null && deselect !== 'nullify' && deselect !== 'delete') {
    throw new InvalidPayloadError('"meta.one_deselect_action" must be one of [nullify, delete]');
  }
  if (related === null) {
    const allowed = parseCsv(meta['one_allowed_collections']) ?? [];
    if (allowed.length === 0 || stringOrNull(meta['one_collection_field']) === null) {
      throw new InvalidPayloadError(
        'A relation without "related_collection" (many-to-any) needs "meta.one_allowed_collections" and "meta.one_collection_field"',
      );
    }
    for (const name of allowed) requireExisting(overview, name, 'Allowed collection');
  }
}

function newRelationRow(
  spec: Pick<RelationSpec, 'collection' | 'field' | 'relatedCollection'>,
  meta: Meta,
): Record<string, unknown> {
  return {
    one_deselect_action: 'nullify',
    ...encodeRow(RELATION_ROW, withoutKeys(meta)),
    many_collection: spec.collection,
    many_field: spec.field,
    one_collection: spec.relatedCollection,
  };
}

/** The row's identity comes from the route and body, never from meta. */
function withoutKeys(meta: Meta): Meta {
  const { id: _id, many_collection: _m, many_field: _f, one_collection: _o, ...rest } = meta;
  return rest;
}

function requireExisting(overview: SchemaOverview, collection: string, what: string): CollectionOverview {
  const found = overview.collections[collection];
  if (found === undefined) throw new InvalidPayloadError(`${what} "${collection}" doesn't exist`);
  return found;
}

function findRelation(overview: SchemaOverview, collection: string, field: string): RelationOverview | undefined {
  return overview.relations.find((r) => r.collection === collection && r.field === field);
}

/** The relation, FORBIDDEN when unknown; the catalogue's own system relations are fixed (422). */
function requireRelation(overview: SchemaOverview, collection: string, field: string): RelationOverview {
  const relation = findRelation(overview, collection, field);
  if (relation === undefined) throw new ForbiddenError();
  if (overview.collections[collection]?.isSystem === true && relation.meta?.id === null) {
    throw new UnprocessableEntityError(`System relation "${collection}.${field}" can't be changed`);
  }
  return relation;
}

function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}
