import type { Knex } from 'knex';
import { databaseDialectOf } from '../../src/db/dialects/index.js';
import { dialectOf } from '../../src/db/index.js';
import { InvalidPayloadError, ServiceError, UnprocessableEntityError } from '../../src/errors.js';
import { createCollections, deleteCollection, updateCollection } from '../ddl/collections.js';
import type { SchemaContext } from '../ddl/context.js';
import { assertColumnSize } from '../ddl/column-sizes.js';
import { assertDefaultFits } from '../ddl/default-values.js';
import { createField, deleteField, updateField } from '../ddl/fields.js';
import { alreadyExists, sameNameIgnoringCase } from '../ddl/names.js';
import { findChangedValue, type NumberColumn } from '../ddl/number-changes.js';
import { FIELD_TYPES } from '../overview/types.js';
import { isSystemName } from '../system/definitions.js';
import {
  parseCollectionPayload,
  parseFieldPatch,
  parseFieldPayload,
  parseRelationPatch,
  parseRelationPayload,
  type CollectionSpec,
  type FieldPatch,
  type FieldSpec,
  type RelationPatch,
  type RelationSpec,
} from '../ddl/payloads.js';
import { assertRelationHolds, createRelation, deleteRelation, updateRelation } from '../ddl/relations.js';
import { applyEntries, type DiffEntry, type SchemaDiff } from './diff.js';
import type { Snapshot, SnapshotCollection, SnapshotField, SnapshotRelation } from './snapshot.js';
import { isPlainObject } from '../../src/is-plain-object.js';

type Json = Readonly<Record<string, unknown>>;

/** One schema operation of a plan, run through the same catalog/ddl handler as its route. */
export type SchemaStep =
  | { readonly kind: 'createCollections'; readonly specs: readonly CollectionSpec[] }
  | { readonly kind: 'updateCollection'; readonly collection: string; readonly meta: Json }
  | { readonly kind: 'deleteCollection'; readonly collection: string; readonly isTable: boolean }
  | { readonly kind: 'createField'; readonly collection: string; readonly spec: FieldSpec }
  | {
      readonly kind: 'updateField';
      readonly collection: string;
      readonly field: string;
      readonly patch: FieldPatch;
      /** The column's type before and after, for the destructive check (number-changes.ts). */
      readonly from: NumberColumn;
      readonly to: NumberColumn;
    }
  | { readonly kind: 'deleteField'; readonly collection: string; readonly field: string; readonly isColumn: boolean }
  | { readonly kind: 'createRelation'; readonly spec: RelationSpec }
  | {
      readonly kind: 'updateRelation';
      readonly collection: string;
      readonly field: string;
      readonly patch: RelationPatch;
    }
  | {
      readonly kind: 'deleteRelation';
      readonly collection: string;
      readonly field: string;
      /** The relation created later in its place (another related collection): checked before this drop. */
      readonly replacedBy?: RelationSpec;
    };

/**
 * The diff against `current` as ordered steps, every target object checked by the route
 * parsers first (a type the service can't create, a bad name: INVALID_PAYLOAD before any
 * change). Order: new collections with their fields, collection meta, new and changed
 * fields, dropped relations, new and changed relations, dropped fields, dropped collections.
 */
export function planSteps(current: Snapshot, diff: SchemaDiff): SchemaStep[] {
  refuseSystemCollections(diff);
  const steps: SchemaStep[] = [];
  const dropped = new Set<string>();
  const created: CollectionSpec[] = [];
  const newFields = new Map<string, SnapshotField[]>();
  for (const f of diff.fields) {
    const target = targetIn(
      current.fields.find((x) => x.collection === f.collection && x.field === f.field),
      f,
      `field "${f.collection}.${f.field}"`,
    ) as SnapshotField | undefined;
    if (target !== undefined && isNew(f.diff))
      newFields.set(f.collection, [...(newFields.get(f.collection) ?? []), target]);
  }
  const collectionSteps: SchemaStep[] = [];
  for (const c of diff.collections) {
    const before = current.collections.find((x) => x.collection === c.collection);
    const target = targetIn(before, c, `collection "${c.collection}"`) as SnapshotCollection | undefined;
    if (target === undefined) {
      if (before === undefined) continue;
      dropped.add(c.collection);
      continue;
    }
    if (before === undefined) {
      const fields = target.schema === null ? [] : (newFields.get(c.collection) ?? []);
      created.push(parseCollectionPayload({ ...target, fields }));
    } else {
      collectionSteps.push({ kind: 'updateCollection', collection: c.collection, meta: target.meta ?? {} });
    }
  }
  if (created.length > 0) steps.push({ kind: 'createCollections', specs: created });
  steps.push(...collectionSteps);
  const isCreated = (collection: string) => created.some((c) => c.collection === collection);

  const fieldDrops: SchemaStep[] = [];
  const added: { collection: string; field: string }[] = [];
  for (const f of diff.fields) {
    const before = current.fields.find((x) => x.collection === f.collection && x.field === f.field);
    const target = targetIn(before, f, `field "${f.collection}.${f.field}"`) as SnapshotField | undefined;
    if (target === undefined) {
      if (before !== undefined && !dropped.has(f.collection)) {
        fieldDrops.push({
          kind: 'deleteField',
          collection: f.collection,
          field: f.field,
          isColumn: before.schema !== null,
        });
      }
    } else if (before === undefined) {
      if (!isCreated(f.collection)) {
        const spec = parseFieldPayload(target, f.collection);
        // Before any step runs: the field would clash with one of another case when its step comes.
        const taken = [...current.fields, ...added].filter((x) => x.collection === f.collection).map((x) => x.field);
        const existing = sameNameIgnoringCase(spec.field, taken);
        if (existing !== undefined) {
          throw new InvalidPayloadError(
            alreadyExists('Field', spec.field, existing, ` in collection "${f.collection}"`),
          );
        }
        added.push({ collection: f.collection, field: spec.field });
        steps.push({ kind: 'createField', collection: f.collection, spec });
      }
    } else {
      steps.push({
        kind: 'updateField',
        collection: f.collection,
        field: f.field,
        patch: fieldPatch(before, target),
        from: numberColumnOf(before),
        to: numberColumnOf(target),
      });
    }
  }

  const relationSteps: SchemaStep[] = [];
  for (const r of diff.relations) {
    const before = current.relations.find((x) => x.collection === r.collection && x.field === r.field);
    const target = targetIn(before, r, `relation "${r.collection}.${r.field}"`) as SnapshotRelation | undefined;
    if (target === undefined) {
      if (before !== undefined && !dropped.has(r.collection))
        steps.push({ kind: 'deleteRelation', collection: r.collection, field: r.field });
    } else if (before === undefined) {
      relationSteps.push({ kind: 'createRelation', spec: parseRelationPayload(target) });
    } else if (before.related_collection !== target.related_collection) {
      // Another related collection is another foreign key: the old one goes first, once the
      // rows are known to hold the new one (SQLite and MariaDB keep a step done before a failure).
      const spec = parseRelationPayload(target);
      steps.push({ kind: 'deleteRelation', collection: r.collection, field: r.field, replacedBy: spec });
      relationSteps.push({ kind: 'createRelation', spec });
    } else {
      relationSteps.push({
        kind: 'updateRelation',
        collection: r.collection,
        field: r.field,
        patch: relationPatch(before, target),
      });
    }
  }
  steps.push(...relationSteps, ...fieldDrops);
  for (const collection of dropped) {
    const before = current.collections.find((x) => x.collection === collection);
    steps.push({ kind: 'deleteCollection', collection, isTable: before?.schema != null });
  }
  return steps;
}

function isNew(entries: readonly DiffEntry[]): boolean {
  return entries.length === 1 && entries[0]?.kind === 'N' && entries[0].path === undefined;
}

/** The object after the diff, undefined when the diff removes it. */
function targetOf(before: object | undefined, entries: readonly DiffEntry[], what: string): unknown {
  if (before === undefined && !isNew(entries))
    throw new InvalidPayloadError(`The diff changes ${what}, which doesn't exist`);
  const after = applyEntries(before, entries);
  if (after !== undefined && !isPlainObject(after))
    throw new InvalidPayloadError(`The diff leaves ${what} without an object`);
  return after;
}

/**
 * The object after an entry's diff, which must stay where the entry says: an `rhs` naming
 * another collection or field would change what the entry does not name (a system one).
 */
function targetIn(
  before: object | undefined,
  entry: { readonly collection: string; readonly field?: string; readonly diff: readonly DiffEntry[] },
  what: string,
): unknown {
  const after = targetOf(before, entry.diff, what);
  if (after === undefined) return after;
  const { collection, field } = after as { collection?: unknown; field?: unknown };
  if (collection !== entry.collection || (entry.field !== undefined && field !== entry.field)) {
    throw new InvalidPayloadError(
      `The diff of ${what} describes another one ("${String(collection)}.${String(field)}")`,
    );
  }
  return after;
}

/**
 * System collections are not the snapshot's to change (a snapshot holds none of them, nor
 * their fields or the relations they hold, as in Directus 10): a diff entry naming one is
 * refused before any step, as the routes refuse altering them (422). A user collection's
 * relation to a system collection (`author` → svc_users) is the user collection's.
 */
function refuseSystemCollections(diff: SchemaDiff): void {
  const lists = [
    ['collections', diff.collections],
    ['fields', diff.fields],
    ['relations', diff.relations],
  ] as const;
  for (const [key, entries] of lists) {
    entries.forEach((entry: { readonly collection: string }, i) => {
      if (isSystemName(entry.collection)) {
        throw new UnprocessableEntityError(
          `System collection "${entry.collection}" is not a snapshot's to change (diff.${key}[${String(i)}])`,
        );
      }
    });
  }
}

/** Only what changed: an unchanged column is not altered. */
function fieldPatch(before: SnapshotField, after: SnapshotField): FieldPatch {
  const body: Record<string, unknown> = { field: after.field };
  if (after.type !== before.type) body['type'] = after.type;
  if (JSON.stringify(after.meta) !== JSON.stringify(before.meta)) body['meta'] = after.meta ?? {};
  if (after.schema !== null) {
    const changed = Object.entries(after.schema).filter(
      ([k, v]) => JSON.stringify(before.schema?.[k]) !== JSON.stringify(v),
    );
    if (changed.length > 0) body['schema'] = Object.fromEntries(changed);
  }
  const patch = parseFieldPatch(body, after.field);
  // Before any step runs (SQLite and MariaDB keep the steps before a failing one).
  const [precision, scale] = [after.schema?.['numeric_precision'], after.schema?.['numeric_scale']];
  const isResized = ['maxLength', 'numericPrecision', 'numericScale'].some((k) => k in (patch.schema ?? {}));
  if (patch.type !== undefined || isResized) {
    const maxLength = after.schema?.['max_length'];
    assertColumnSize(after.collection, after.field, after.type, {
      maxLength: typeof maxLength === 'number' ? maxLength : null,
      precision: typeof precision === 'number' ? precision : null,
      scale: typeof scale === 'number' ? scale : null,
    });
  }
  // The default asked for, or the one kept under a new type or size (updateField checks it too).
  const asked = patch.schema !== undefined && 'defaultValue' in patch.schema;
  if (asked || patch.type !== undefined || isResized) {
    const value = asked ? patch.schema.defaultValue : after.schema?.['default_value'];
    assertDefaultFits(after.collection, after.field, after.type, value, {
      precision: typeof precision === 'number' ? precision : null,
      scale: typeof scale === 'number' ? scale : null,
    });
  }
  return patch;
}

function numberColumnOf(field: SnapshotField): NumberColumn {
  const size = (key: string) => {
    const value = field.schema?.[key];
    return typeof value === 'number' ? value : null;
  };
  const type = FIELD_TYPES.find((t) => t === field.type) ?? 'unknown';
  return { type, precision: size('numeric_precision'), scale: size('numeric_scale') };
}

function relationPatch(before: SnapshotRelation, after: SnapshotRelation): RelationPatch {
  const onDelete = after.schema?.['on_delete'];
  const body: Record<string, unknown> = { meta: after.meta ?? {} };
  if (onDelete !== undefined && onDelete !== before.schema?.['on_delete']) body['schema'] = { on_delete: onDelete };
  return parseRelationPatch(body);
}

/** A step in words, for plans and failure reports. */
export function describeStep(step: SchemaStep): string {
  switch (step.kind) {
    case 'createCollections':
      return `create collection${step.specs.length > 1 ? 's' : ''} ${step.specs.map((s) => `"${s.collection}"`).join(', ')}`;
    case 'updateCollection':
      return `update collection "${step.collection}"`;
    case 'deleteCollection':
      return `delete collection "${step.collection}"`;
    case 'createField':
      return `create field "${step.collection}.${step.spec.field}"`;
    case 'updateField':
      return `update field "${step.collection}.${step.field}"`;
    case 'deleteField':
      return `delete field "${step.collection}.${step.field}"`;
    case 'createRelation':
      return `create relation "${step.spec.collection}.${step.spec.field}"`;
    case 'updateRelation':
      return `update relation "${step.collection}.${step.field}"`;
    case 'deleteRelation':
      return `delete relation "${step.collection}.${step.field}"`;
  }
}

/**
 * The steps that drop or change stored data: a table with rows, a column holding a value, a
 * new type, precision or scale that would store a number as another value (a fraction
 * dropped, digits rounded). Checked when the diff is made and again when it is applied (rows
 * may have come in between); the field's own change checks once more, in its transaction.
 */
export async function destructiveSteps(db: Knex, steps: readonly SchemaStep[]): Promise<SchemaStep[]> {
  const out: SchemaStep[] = [];
  for (const step of steps) {
    if (step.kind === 'deleteCollection' && step.isTable) {
      if ((await db(step.collection).first(db.raw('1 as one'))) !== undefined) out.push(step);
    } else if (step.kind === 'deleteField' && step.isColumn) {
      if ((await db(step.collection).whereNotNull(step.field).first(db.raw('1 as one'))) !== undefined) out.push(step);
    } else if (step.kind === 'updateField') {
      if ((await changedValue(db, step)) !== undefined) out.push(step);
    }
  }
  return out;
}

/** A value the step would change; none when the values can't be converted at all (the step's own refusal). */
async function changedValue(db: Knex, step: SchemaStep & { kind: 'updateField' }) {
  const dialect = dialectOf(db);
  try {
    return await findChangedValue(db, dialect, step, step.from, step.to);
  } catch (error) {
    if (typeof error === 'object' && error !== null && databaseDialectOf(db).isConversionError(error)) return undefined;
    throw error;
  }
}

/** What the apply needs beyond the schema context: a fresh overview inside a transaction. */
export interface ApplyOptions {
  /** Builds the overview from the given connection (catalog/overview/build.ts with the config's exclusions). */
  readonly buildOverview: (db: Knex) => ReturnType<SchemaContext['schema']['getOverview']>;
  /** Field changes may change stored numbers (the caller allowed destructive steps). */
  readonly allowDestructive?: boolean;
}

/**
 * Runs the steps through the catalog/ddl handlers. PostgreSQL: all in one transaction (DDL is
 * transactional there): a failure leaves nothing applied. MySQL/MariaDB and SQLite: each step
 * is all or nothing, in order; the first failure stops the run and its error says which steps
 * were applied and which were not.
 */
export async function runSteps(ctx: SchemaContext, steps: readonly SchemaStep[], options: ApplyOptions): Promise<void> {
  if (steps.length === 0) return;
  if (databaseDialectOf(ctx.db).schemaChanges === 'transaction') {
    let index = 0;
    try {
      await ctx.db.transaction(async (trx) => {
        const inner: SchemaContext = {
          db: trx,
          schema: { getOverview: () => options.buildOverview(trx), invalidate: () => Promise.resolve() },
          ...(ctx.reporter === undefined ? {} : { reporter: ctx.reporter }),
        };
        for (const step of steps) {
          await runStep(inner, step, options);
          index += 1;
        }
      });
    } catch (error) {
      throw withProgress(error, steps, index, 'nothing was applied (one transaction)');
    } finally {
      await ctx.schema.invalidate();
    }
    return;
  }
  let index = 0;
  try {
    for (const step of steps) {
      await runStep(ctx, step, options);
      index += 1;
    }
  } catch (error) {
    const done = steps.slice(0, index).map(describeStep);
    const rest = steps.slice(index + 1).map(describeStep);
    throw withProgress(
      error,
      steps,
      index,
      `applied: ${done.length === 0 ? 'none' : done.join('; ')}; not applied: this step${rest.length === 0 ? '' : `, ${rest.join('; ')}`}`,
    );
  }
}

async function runStep(ctx: SchemaContext, step: SchemaStep, options: ApplyOptions): Promise<void> {
  switch (step.kind) {
    case 'createCollections':
      return createCollections(ctx, step.specs);
    case 'updateCollection':
      return updateCollection(ctx, step.collection, step.meta);
    case 'deleteCollection':
      return deleteCollection(ctx, step.collection);
    case 'createField':
      return createField(ctx, step.collection, step.spec);
    case 'updateField':
      return updateField(ctx, step.collection, step.field, step.patch, {
        allowDestructive: options.allowDestructive === true,
      });
    case 'deleteField':
      return ifStillThere(ctx, step.collection, step.field, () => deleteField(ctx, step.collection, step.field));
    case 'createRelation':
      return createRelation(ctx, step.spec);
    case 'updateRelation':
      return updateRelation(ctx, step.collection, step.field, step.patch);
    case 'deleteRelation':
      if (step.replacedBy !== undefined) await assertRelationHolds(ctx, step.replacedBy);
      return deleteRelation(ctx, step.collection, step.field);
  }
}

/** Dropping a relation takes its o2m alias along: the alias's own drop step then has nothing to do. */
async function ifStillThere(
  ctx: SchemaContext,
  collection: string,
  field: string,
  run: () => Promise<void>,
): Promise<void> {
  const overview = await ctx.schema.getOverview();
  if (overview.collections[collection]?.fields[field] === undefined) return;
  await run();
}

/** The step's own error (its code and status), its message telling where the apply stopped. */
function withProgress(error: unknown, steps: readonly SchemaStep[], index: number, progress: string): unknown {
  const step = steps[index];
  if (!(error instanceof ServiceError) || step === undefined) return error;
  error.message = `Schema apply stopped at step ${String(index + 1)} of ${String(steps.length)} (${describeStep(step)}): ${error.message} ${capitalize(progress)}.`;
  return error;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
