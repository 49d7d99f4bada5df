import type { Knex } from 'knex';
import { FULL_READ_ACCESS, canReadCollection } from '../../access/read-access.js';
import { databaseDialectOf } from '../../db/dialects/index.js';
import { ForbiddenError, InvalidQueryError } from '../../errors.js';
import { readItemsByKeys } from '../read-items.js';
import type { ReadContext, Reader } from '../read-context.js';
import { isVisibleField, requireHistoryReadable, revisionValues, storedKey, visibleValues } from './history-access.js';

export interface HistoryOptions {
  readonly limit: number;
  readonly page: number;
  /** Field-level history: only the revisions that set this field, with its value. */
  readonly field?: string;
}

/** One revision of an item: who did what when, and which fields it set. */
export interface HistoryEntry {
  readonly revision: number;
  readonly activity: number;
  readonly action: unknown;
  readonly user: unknown;
  readonly timestamp: unknown;
  /** The fields the revision set (its delta) that the caller may read now. */
  readonly fields: readonly string[];
  /** Field-level history: the value the revision set (masked fields read as the mask). */
  readonly value?: unknown;
}

/**
 * GET /items/:collection/:id/history (issue 18, History of an item): the item's revisions,
 * newest first, `limit` per `page`; with `field`, only those whose delta has that field.
 * Saves into its content versions (`version_save`) are the versions', not the item's.
 * The caller needs the item readable now (history-access.ts) and sees the revisions their
 * svc_revisions permission lets them read; who, when and the action come from the revision's
 * svc_activity row. Field names are those readable now; values never leave unmasked.
 */
export async function readItemHistory(
  ctx: ReadContext,
  reader: Reader,
  collection: string,
  key: string,
  options: HistoryOptions,
): Promise<HistoryEntry[]> {
  if (!canReadCollection(reader.access, 'svc_revisions')) throw new ForbiddenError();
  const target = await requireHistoryReadable(ctx, reader, collection, key);
  const { field } = options;
  if (field !== undefined && !isVisibleField(ctx, reader, collection, field)) throw new ForbiddenError();
  const candidates = ctx
    .db('svc_revisions')
    .where({ collection, item: storedKey(target, key) })
    // Saves into content versions are not the item's history (as for diffs and as-of reads).
    .whereNull('version')
    .orderBy('id', 'desc')
    .limit(options.limit)
    .offset((options.page - 1) * options.limit)
    .select<{ id: number | string }[]>('id');
  if (field !== undefined) candidates.whereRaw(...deltaHasField(ctx.db, field));
  const ids = (await candidates).map((r) => Number(r.id));
  // The caller's svc_revisions permission decides which of them they see.
  const allowed = await readItemsByKeys(ctx, 'svc_revisions', ids, { fields: ['id'] }, reader);
  if (allowed.length === 0) return [];
  const fields = ['id', 'delta', 'activity.id', 'activity.action', 'activity.user', 'activity.timestamp'];
  const rows = await readItemsByKeys(
    ctx,
    'svc_revisions',
    allowed.map((r) => Number(r['id'])),
    { fields },
    { ...reader, access: FULL_READ_ACCESS },
  );
  return rows.map((row) => {
    const activity = (row['activity'] ?? {}) as Record<string, unknown>;
    const delta = visibleValues(ctx, reader, collection, revisionValues(row['delta']));
    const entry: HistoryEntry = {
      revision: Number(row['id']),
      activity: Number(activity['id']),
      action: activity['action'],
      user: activity['user'],
      timestamp: activity['timestamp'],
      fields: Object.keys(delta),
    };
    return field === undefined ? entry : { ...entry, value: delta[field] ?? null };
  });
}

/** A WHERE clause true when the revision's delta has the key `field` (even with a null value). */
function deltaHasField(db: Knex | Knex.Transaction, field: string): [string, string[]] {
  const dialect = databaseDialectOf(db as Knex);
  return dialect.jsonHasKey(dialect.quoteId('delta'), field);
}

/** Revisions per page at most when QUERY_LIMIT_MAX is unlimited. */
const HISTORY_LIMIT_MAX = 1000;

/** `limit` (1 to QUERY_LIMIT_MAX or 1,000, default QUERY_LIMIT_DEFAULT) and `page` (from 1). */
export function historyOptions(ctx: ReadContext, params: Readonly<Record<string, unknown>>): HistoryOptions {
  const max =
    Number.isFinite(ctx.limits.queryLimitMax) && ctx.limits.queryLimitMax > 0
      ? ctx.limits.queryLimitMax
      : HISTORY_LIMIT_MAX;
  const limit = positiveInteger(params['limit'], 'limit', Math.min(ctx.limits.queryLimitDefault, max));
  if (limit > max) throw new InvalidQueryError(`"limit" can't be more than ${String(max)}`);
  const page = positiveInteger(params['page'], 'page', 1);
  const { field } = params;
  if (field !== undefined && typeof field !== 'string') throw new InvalidQueryError('"field" must be a field name');
  return field === undefined ? { limit, page } : { limit, page, field };
}

function positiveInteger(value: unknown, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || !/^[1-9]\d{0,8}$/.test(value))
    throw new InvalidQueryError(`"${name}" must be a positive integer`);
  return Number(value);
}
