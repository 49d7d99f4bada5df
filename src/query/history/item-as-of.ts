import type { Knex } from 'knex';
import { findField, getFieldRelation, requireCollection } from '../../../catalog/overview/lookup.js';
import { canReadCollection, canReadField } from '../../access/read-access.js';
import { dialectOf } from '../../db/index.js';
import { toDatabaseTimestamp } from '../../db/to-database-timestamp.js';
import { ForbiddenError, InvalidQueryError } from '../../errors.js';
import { isCalendarMoment } from '../../../catalog/overview/value-forms.js';
import { integerRange, isIntegerInRange } from '../validate/numbers.js';
import type { Query } from '../query.js';
import { checkRelationalDepth } from '../validate/relational-depth.js';
import type { ReadContext, Reader } from '../read-context.js';
import type { Item } from '../shape/shape-rows.js';
import { requireHistoryReadable, revisionValues, storedKey, visibleValues } from './history-access.js';

/** `as_of`: a moment (ISO 8601) or a revision id (the moment that revision was written). */
export type AsOf = { readonly kind: 'time'; readonly at: Date } | { readonly kind: 'revision'; readonly id: number };

const ISO_TIMESTAMP =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;

/**
 * The moments every database compares timestamps with: a zone offset can carry a moment of
 * 9999-12-31 into year 10000 (or of 0001-01-01 into year 0), which SQLite's text and MariaDB's
 * DATETIME cannot hold, so it would find nothing where PostgreSQL finds the latest revision.
 * Nothing is journaled outside them, so a moment beyond is the same as the bound.
 */
const FIRST_MOMENT = Date.parse('0001-01-01T00:00:00.000Z');
const LAST_MOMENT = Date.parse('9999-12-31T23:59:59.999Z');

/**
 * The `as_of` parameter, or INVALID_QUERY when it is neither a timestamp on a day the calendar
 * has (value-forms.ts: 2026-02-30 is not March 2nd) nor a revision id.
 */
export function parseAsOf(value: unknown): AsOf {
  if (typeof value === 'string' && /^\d{1,15}$/.test(value)) return { kind: 'revision', id: Number(value) };
  const parts = typeof value === 'string' ? ISO_TIMESTAMP.exec(value) : null;
  const at = parts !== null && isCalendarMoment(parts) ? new Date(parts[0]) : undefined;
  if (at === undefined || Number.isNaN(at.getTime()))
    throw new InvalidQueryError('"as_of" must be an ISO 8601 timestamp or a revision id');
  return { kind: 'time', at: new Date(Math.min(Math.max(at.getTime(), FIRST_MOMENT), LAST_MOMENT)) };
}

/** Field tree of a `fields` list: `null` = the value itself, a list = the related item's fields. */
type FieldTree = Map<string, string[] | null>;

/**
 * GET /items/:collection/:id?as_of= (issue 18, An item at a point in time): the item as its
 * last revision at or before the moment had it, from svc_revisions; deleted by then, not
 * created yet, or not readable by the caller now (history-access.ts): FORBIDDEN. `fields` as
 * in any read; relational paths (`author.name`, `comments.*`) read the related items as of
 * the same moment, or leave their key when no revision of them is visible then. Fields the
 * caller may not read now are refused when asked by name, left out of `*`; masks stay.
 */
export async function readItemAsOf(
  ctx: ReadContext,
  reader: Reader,
  collection: string,
  key: string,
  query: Query,
  asOf: AsOf,
): Promise<Item> {
  checkRelationalDepth(query, ctx.limits.maxRelationalDepth);
  const cutoff = await cutoffOf(ctx, asOf);
  await requireHistoryReadable(ctx, reader, collection, key);
  const item = await snapshotOf(ctx, reader, collection, key, query.fields ?? ['*'], cutoff);
  if (item === undefined) throw new ForbiddenError();
  return item;
}

type Cutoff = (builder: Knex.QueryBuilder) => void;

/** The journal rows written at or before the moment: by timestamp, or up to a revision's activity. */
async function cutoffOf(ctx: ReadContext, asOf: AsOf): Promise<Cutoff> {
  if (asOf.kind === 'time') {
    const at = toDatabaseTimestamp(asOf.at, dialectOf(ctx.db as Knex));
    return (builder) => void builder.where('a.timestamp', '<=', at);
  }
  // An id the key column cannot hold names no revision; PostgreSQL would fail the statement on it.
  const key = requireCollection(ctx.overview, 'svc_revisions').fields['id'];
  if (key === undefined || !isIntegerInRange(asOf.id, integerRange(key))) throw new ForbiddenError();
  const revision = await ctx
    .db('svc_revisions')
    .where({ id: asOf.id })
    .first<{ activity: number | string } | undefined>('activity');
  if (revision === undefined) throw new ForbiddenError();
  return (builder) => void builder.where('a.id', '<=', Number(revision.activity));
}

async function snapshotOf(
  ctx: ReadContext,
  reader: Reader,
  collection: string,
  key: string,
  fields: readonly string[],
  cutoff: Cutoff,
): Promise<Item | undefined> {
  const data = await lastData(ctx, collection, key, cutoff);
  if (data === undefined) return undefined;
  const values = visibleValues(ctx, reader, collection, data);
  const result: Item = {};
  for (const [name, nested] of fieldTree(ctx, reader, collection, fields)) {
    const relation = getFieldRelation(ctx.overview, collection, name);
    const value = valueAsOf(ctx, collection, name, values);
    if (nested === null || relation === undefined || relation.kind === 'a2o' || value === null) {
      result[name] = value;
    } else if (Array.isArray(value)) {
      const related = await Promise.all(
        value.map((k) => relatedAsOf(ctx, reader, relation.related, k, nested, cutoff)),
      );
      result[name] = related.filter((r) => r !== null);
    } else {
      result[name] = await relatedAsOf(ctx, reader, relation.related, value, nested, cutoff);
    }
  }
  return result;
}

/**
 * The `data` of the item's last revision at the moment (everything it holds, masked values
 * as stored), or undefined when it had none then or had been deleted since.
 */
async function lastData(
  ctx: ReadContext,
  collection: string,
  key: string,
  cutoff: Cutoff,
): Promise<Readonly<Record<string, unknown>> | undefined> {
  const item = storedKey(requireCollection(ctx.overview, collection), key);
  const last = await ctx
    .db('svc_revisions as r')
    .join('svc_activity as a', 'a.id', 'r.activity')
    .where({ 'r.collection': collection, 'r.item': item })
    // Saves into content versions are not the item's state.
    .whereNull('r.version')
    .modify(cutoff)
    .orderBy('r.id', 'desc')
    .first<{ data: unknown; activity: number | string } | undefined>('r.data', 'r.activity');
  if (last === undefined) return undefined;
  const deleted = await ctx
    .db('svc_activity as a')
    .where({ 'a.collection': collection, 'a.item': item, 'a.action': 'delete' })
    .where('a.id', '>', Number(last.activity))
    .modify(cutoff)
    .first<{ id: number } | undefined>('a.id');
  return deleted === undefined ? revisionValues(last.data) : undefined;
}

/**
 * A field's value in the state of a revision's `data`: the value recorded, or, when the
 * revision holds none (a create records only what was sent, a field added since), the
 * column's constant default (what the database filled in), else null; a one-to-many alias
 * with no keys recorded holds none ([]). The as-of read and a restore (POST /utils/revert,
 * /utils/undo) both take values from here, so what a restore writes is what the read shows.
 */
function valueAsOf(
  ctx: ReadContext,
  collection: string,
  name: string,
  values: Readonly<Record<string, unknown>>,
): unknown {
  const recorded = values[name];
  if (recorded !== undefined && recorded !== null) return recorded;
  if (getFieldRelation(ctx.overview, collection, name)?.kind === 'o2m') return [];
  if (recorded === null) return null;
  const fallback = findField(ctx.overview, collection, name)?.defaultValue;
  // A function default (now(), a sequence) has no value of the moment to show.
  return fallback === undefined || (typeof fallback === 'object' && fallback !== null) ? null : fallback;
}

/** The state of a revision's `data`: every field the collection has now, by {@link valueAsOf}; unmasked, unfiltered. */
export function stateOfRevisionData(
  ctx: ReadContext,
  collection: string,
  data: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const state: Record<string, unknown> = {};
  for (const name of Object.keys(requireCollection(ctx.overview, collection).fields))
    state[name] = valueAsOf(ctx, collection, name, data);
  return state;
}

/**
 * What a restore to a moment writes back (POST /utils/revert with `as_of`, or of a revision):
 * the item's state then, every field it has now as the as-of read shows it (masked values
 * as stored); the item readable by the caller now, else FORBIDDEN, as is a moment when it
 * did not exist. The write itself checks the caller's update permission.
 */
export async function readItemStateAsOf(
  ctx: ReadContext,
  reader: Reader,
  collection: string,
  key: string,
  asOf: AsOf,
): Promise<Record<string, unknown>> {
  const cutoff = await cutoffOf(ctx, asOf);
  await requireHistoryReadable(ctx, reader, collection, key);
  const data = await lastData(ctx, collection, key, cutoff);
  if (data === undefined) throw new ForbiddenError();
  return stateOfRevisionData(ctx, collection, data);
}

/** A related item as of the moment; its key when it has no revision then; null when the caller may not read it now. */
async function relatedAsOf(
  ctx: ReadContext,
  reader: Reader,
  collection: string,
  key: unknown,
  fields: readonly string[],
  cutoff: Cutoff,
): Promise<unknown> {
  if (typeof key !== 'string' && typeof key !== 'number') return key;
  try {
    await requireHistoryReadable(ctx, reader, collection, String(key));
  } catch (error) {
    if (error instanceof ForbiddenError) return null;
    throw error;
  }
  return (await snapshotOf(ctx, reader, collection, String(key), fields, cutoff)) ?? key;
}

/**
 * The fields of one level: `*` = every field readable now; a named field must exist and be
 * readable (FORBIDDEN otherwise; unknown names are dropped for admins, as reads do).
 */
function fieldTree(ctx: ReadContext, reader: Reader, collection: string, fields: readonly string[]): FieldTree {
  if (!canReadCollection(reader.access, collection)) throw new ForbiddenError();
  const tree: FieldTree = new Map();
  const add = (name: string, rest: string | undefined): void => {
    if (rest === undefined) {
      if (!tree.has(name)) tree.set(name, null);
      return;
    }
    const nested = tree.get(name) ?? [];
    nested.push(rest);
    tree.set(name, nested);
  };
  for (const path of fields) {
    const dot = path.indexOf('.');
    const name = dot === -1 ? path : path.slice(0, dot);
    const rest = dot === -1 ? undefined : path.slice(dot + 1);
    if (name === '*') {
      const all = Object.keys(requireCollection(ctx.overview, collection).fields).filter((f) =>
        canReadField(reader.access, collection, f),
      );
      for (const field of all) add(field, rest);
    } else if (findField(ctx.overview, collection, name) === undefined) {
      if (!reader.accountability.admin) throw new ForbiddenError();
    } else if (!canReadField(reader.access, collection, name)) {
      throw new ForbiddenError();
    } else {
      add(name, rest);
    }
  }
  return tree;
}
