import { diffLines, diffWords } from 'diff';
import type { Knex } from 'knex';
import { findField, getFieldRelation } from '../../../catalog/overview/lookup.js';
import { ForbiddenError, InvalidQueryError } from '../../errors.js';
import { readItemByKey } from '../read-items.js';
import type { ReadContext, Reader } from '../read-context.js';
import { requireHistoryReadable, revisionValues, visibleValues } from './history-access.js';

/** One part of a text diff: unchanged, added or removed text (jsdiff's change objects). */
interface TextChange {
  readonly value: string;
  readonly added: boolean;
  readonly removed: boolean;
}

/** What changed in one field between two revisions. */
interface FieldDiff {
  readonly before: unknown;
  readonly after: unknown;
  /** Text fields: word changes, or line changes when either side has several lines. */
  readonly changes?: readonly TextChange[];
  /** One-to-many fields (arrays of keys): the keys that came and went. */
  readonly added?: readonly unknown[];
  readonly removed?: readonly unknown[];
}

export interface RevisionDiff {
  readonly collection: string;
  readonly item: string;
  /** The revision the values come from (null: before the item existed). */
  readonly from: number | null;
  readonly to: number;
  /** Only the fields that differ and the caller may read now. */
  readonly fields: Readonly<Record<string, FieldDiff>>;
}

interface RevisionRow {
  /** The content version the revision saved into; null for the live item's. */
  readonly version: string | null;
  readonly id: number;
  readonly collection: string;
  readonly item: string;
  readonly data: Readonly<Record<string, unknown>>;
}

const TEXT_TYPES: ReadonlySet<string> = new Set(['string', 'text']);

/**
 * GET /revisions/:id/diff?to= (issue 18, Diffs): without `to`, the previous revision of the
 * same item (none: a creation, every value `before` null) against `revision`; with `to`,
 * `revision` against `to`, which must be a revision of the same item (else INVALID_QUERY).
 * Both revisions are read with the caller's svc_revisions permission and the item must be
 * readable now (history-access.ts); values are those the caller may read now.
 */
export async function readRevisionDiff(
  ctx: ReadContext,
  reader: Reader,
  revision: string,
  to: string | undefined,
): Promise<RevisionDiff> {
  const first = await readRevision(ctx, reader, revision);
  let before: RevisionRow | undefined;
  let after: RevisionRow;
  if (to === undefined) {
    after = first;
    const previous = await ctx
      .db('svc_revisions')
      .where({ collection: first.collection, item: first.item })
      .where('id', '<', first.id)
      // The same line of revisions: the live item's, or the same content version's saves.
      .modify(
        (b: Knex.QueryBuilder) =>
          void (first.version === null ? b.whereNull('version') : b.where({ version: first.version })),
      )
      .max({ id: 'id' })
      .first<{ id: number | string | null } | undefined>();
    before = previous?.id == null ? undefined : await readRevision(ctx, reader, String(previous.id));
  } else {
    before = first;
    after = await readRevision(ctx, reader, to);
    if (after.collection !== first.collection || after.item !== first.item) {
      throw new InvalidQueryError('"to" must be a revision of the same item');
    }
  }
  await requireHistoryReadable(ctx, reader, after.collection, after.item);
  const oldValues = visibleValues(ctx, reader, after.collection, before?.data ?? {});
  const newValues = visibleValues(ctx, reader, after.collection, after.data);
  const fields: Record<string, FieldDiff> = {};
  for (const name of new Set([...Object.keys(oldValues), ...Object.keys(newValues)])) {
    const diff = diffField(ctx, after.collection, name, oldValues[name] ?? null, newValues[name] ?? null);
    if (diff !== undefined) fields[name] = diff;
  }
  return { collection: after.collection, item: after.item, from: before?.id ?? null, to: after.id, fields };
}

async function readRevision(ctx: ReadContext, reader: Reader, id: string): Promise<RevisionRow> {
  if (!/^\d+$/.test(id)) throw new ForbiddenError();
  const row = await readItemByKey(ctx, 'svc_revisions', id, { fields: ['id', 'collection', 'item', 'data'] }, reader);
  // Which line of revisions it belongs to is bookkeeping, not a field the caller asked for.
  const line = await ctx
    .db('svc_revisions')
    .where({ id: Number(id) })
    .first<{ version: string | null } | undefined>('version');
  return {
    version: line?.version ?? null,
    id: Number(row['id']),
    collection: String(row['collection']),
    item: String(row['item']),
    data: revisionValues(row['data']),
  };
}

function diffField(
  ctx: ReadContext,
  collection: string,
  name: string,
  before: unknown,
  after: unknown,
): FieldDiff | undefined {
  if (JSON.stringify(before) === JSON.stringify(after)) return undefined;
  const type = findField(ctx.overview, collection, name)?.type;
  if (typeof before === 'string' && typeof after === 'string' && type !== undefined && TEXT_TYPES.has(type)) {
    const isMultiline = before.includes('\n') || after.includes('\n');
    const changes = (isMultiline ? diffLines(before, after) : diffWords(before, after)).map((c) => ({
      value: c.value,
      added: c.added,
      removed: c.removed,
    }));
    return { before, after, changes };
  }
  if (getFieldRelation(ctx.overview, collection, name)?.kind === 'o2m') {
    // A creation's data has no to-many arrays: none there is the same as an empty set.
    const oldKeys = Array.isArray(before) ? before : [];
    const newKeys = Array.isArray(after) ? after : [];
    const has = (keys: readonly unknown[], key: unknown) => keys.some((k) => String(k) === String(key));
    const added = newKeys.filter((k) => !has(oldKeys, k));
    const removed = oldKeys.filter((k) => !has(newKeys, k));
    return added.length === 0 && removed.length === 0 ? undefined : { before, after, added, removed };
  }
  return { before, after };
}
