import type { Knex } from 'knex';
import { requireCollection } from '../../catalog/overview/lookup.js';
import { UnprocessableEntityError } from '../errors.js';
import {
  isVisibleField,
  readItems,
  revisionValues,
  stateOfRevisionData,
  visibleValues,
  type Filter,
  type ReadContext,
  type Reader,
} from '../query/index.js';
import { restorePayload, revertiblePayload } from './revert.js';
import { requirePrimaryKey } from './primary-key.js';
import { runWrite } from './run-write.js';
import { isServerOwned } from './special-fields.js';
import type { CommandContext, Item } from './types.js';

/** Issue 18, Restore: undo the writes of the svc_activity rows `filter` selects. */
export interface UndoCommand {
  readonly kind: 'undo';
  readonly filter: Filter;
  /** Answer the plan, write nothing. */
  readonly dryRun: boolean;
  /** Undo even where later changes outside the selection touched the same fields. */
  readonly force: boolean;
}

/** What undoing does to one item. */
export interface UndoStep {
  readonly collection: string;
  readonly item: string;
  /** `update`: the fields back to their values before the selection; `delete`: an item the selection created; `create`: one it deleted. */
  readonly action: 'update' | 'delete' | 'create';
  readonly fields: readonly string[];
  /** The values written back (those the caller may read now). */
  readonly values: Item;
  /** Fields that later changes outside the selection touched too ("deleted": the item was deleted since). */
  readonly conflicts: readonly string[];
}

const UNDOABLE: ReadonlySet<string> = new Set(['create', 'update', 'delete']);

interface JournalRow {
  readonly activity: number;
  readonly action: string;
  readonly user: string | null;
  readonly revision: number | null;
  readonly data: unknown;
  readonly delta: unknown;
}

/**
 * POST /utils/undo `{filter, dry_run, force}`: the activity rows the caller may read that the
 * filter selects (creates, updates, deletes), per item: the fields those writes set go back
 * to their values in the item's last revision before the first of them; an item they created
 * is deleted, one they deleted is created again from that revision. Later writes outside the
 * selection by other users touching the same fields (or deleting the item) refuse the whole undo with
 * UNPROCESSABLE_ENTITY naming them, unless `force`. All in one transaction, through the
 * writer (permissions, journal); latest items first. Answers the plan, written or not.
 */
export async function handleUndo(cmd: UndoCommand, ctx: CommandContext): Promise<UndoStep[]> {
  let steps: UndoStep[] = [];
  await runWrite(ctx, async (writer, trx) => {
    const read: ReadContext = { db: trx, overview: ctx.overview, limits: ctx.readLimits };
    const reader: Reader = { accountability: ctx.accountability, access: ctx.readAccess };
    const selected = await readItems(
      read,
      'svc_activity',
      { filter: cmd.filter, fields: ['id', 'action', 'collection', 'item'], sort: ['id'], limit: -1 },
      reader,
    );
    const groups = new Map<string, { collection: string; item: string; activities: Set<number> }>();
    for (const row of selected) {
      const collection = String(row['collection']);
      // Collections dropped since have nothing left to undo.
      if (!UNDOABLE.has(String(row['action'])) || !Object.hasOwn(ctx.overview.collections, collection)) continue;
      const key = JSON.stringify([collection, String(row['item'])]);
      const group = groups.get(key) ?? { collection, item: String(row['item']), activities: new Set<number>() };
      group.activities.add(Number(row['id']));
      groups.set(key, group);
    }
    const planned = [];
    for (const group of groups.values()) {
      const target = requireCollection(ctx.overview, group.collection);
      // Fields the server sets on every write (date_updated, ...) are nobody's change to undo.
      const isUndoable = (field: string): boolean => !isServerOwned(target, field, 'update');
      // The values before the selection as the as-of read shows them: a field the prior
      // revision does not hold (set first by the selection) goes back to its default or null.
      const stateOf = (data: Readonly<Record<string, unknown>>): Item =>
        stateOfRevisionData(read, group.collection, data);
      const journal = await journalOf(trx, group.collection, group.item);
      const step = planItem(journal, group.activities, isUndoable, stateOf);
      if (step !== undefined) planned.push({ ...group, ...step, first: Math.min(...group.activities) });
    }
    planned.sort((a, b) => b.first - a.first);
    // The plan names and shows only fields the caller may read, as every read of the journal does.
    const visible = (collection: string, names: readonly string[]): string[] =>
      names.filter((name) => isVisibleField(read, reader, collection, name));
    steps = planned.map((p) => ({
      collection: p.collection,
      item: p.item,
      action: p.action,
      fields: visible(p.collection, p.fields),
      values: visibleValues(read, reader, p.collection, p.values),
      conflicts: visible(p.collection, p.conflicts),
    }));
    const conflicting = planned.filter((p) => p.conflicts.length > 0);
    if (cmd.dryRun) return;
    if (conflicting.length > 0 && !cmd.force) {
      const names = (p: (typeof conflicting)[number]): string =>
        visible(p.collection, p.conflicts).join(', ') || 'fields it may not read';
      const named = conflicting.map((p) => `"${p.collection}" ${p.item}: ${names(p)}`).join('; ');
      throw new UnprocessableEntityError(
        `Later changes by others touch the same fields (${named}); send "force": true to undo anyway`,
      );
    }
    for (const p of planned) {
      const collection = writer.collection(p.collection);
      if (p.action === 'delete') {
        const [exists] = await writer.filterExisting(collection, [p.item]);
        if (exists !== undefined) await writer.delete(p.collection, [p.item]);
      } else if (p.action === 'create') {
        await writer.create(p.collection, {
          ...(await revertiblePayload(writer, ctx.overview, collection, p.values)),
          [collection.primary]: p.item,
        });
      } else {
        // Only the fields that would change: one the caller may not update refuses the undo
        // (FORBIDDEN) only then, and an unchanged item gets no revision.
        const key = requirePrimaryKey(collection, p.item);
        const payload = await restorePayload(writer, trx, ctx, collection, key, p.values);
        if (Object.keys(payload).length > 0) await writer.update(p.collection, key, payload);
      }
    }
  });
  return steps;
}

type Plan = Pick<UndoStep, 'action' | 'fields' | 'values' | 'conflicts'>;

/** One item's undo from its journal (oldest first) and the selected activity ids. */
function planItem(
  journal: readonly JournalRow[],
  selected: ReadonlySet<number>,
  isUndoable: (field: string) => boolean,
  stateOf: (data: Readonly<Record<string, unknown>>) => Item,
): Plan | undefined {
  const first = Math.min(...selected);
  const before = journal.filter((j) => j.activity < first && j.revision !== null).at(-1);
  const prior = before === undefined ? undefined : revisionValues(before.data);
  const mine = journal.filter((j) => selected.has(j.activity));
  const users = new Set(mine.map((j) => j.user));
  // Later writes outside the selection by someone else: theirs to keep (a deletion by anyone).
  const later = journal.filter(
    (j) => j.activity > first && !selected.has(j.activity) && (j.action === 'delete' || !users.has(j.user)),
  );
  const touched = [...new Set(mine.flatMap((j) => Object.keys(revisionValues(j.delta))))].filter(isUndoable);
  const deletedSince = later.some((j) => j.action === 'delete');
  const conflicts = deletedSince
    ? ['deleted']
    : [...new Set(later.flatMap((j) => Object.keys(revisionValues(j.delta))))].filter((f) => touched.includes(f));
  if (mine[0]?.action === 'create') {
    return mine.some((j) => j.action === 'delete')
      ? undefined
      : { action: 'delete', fields: [], values: {}, conflicts };
  }
  // No revision before the selection (accountability `activity`): nothing to go back to.
  if (prior === undefined) return undefined;
  if (mine.some((j) => j.action === 'delete') && !deletedSince) {
    return { action: 'create', fields: Object.keys(prior), values: prior, conflicts: [] };
  }
  if (touched.length === 0) return undefined;
  const state = stateOf(prior);
  const values: Item = Object.fromEntries(touched.filter((f) => Object.hasOwn(state, f)).map((f) => [f, state[f]]));
  return { action: 'update', fields: Object.keys(values), values, conflicts };
}

/** An item's svc_activity rows with their revisions, oldest first. */
async function journalOf(trx: Knex.Transaction, collection: string, item: string): Promise<JournalRow[]> {
  const rows = await trx('svc_activity as a')
    .leftJoin('svc_revisions as r', 'r.activity', 'a.id')
    .where({ 'a.collection': collection, 'a.item': item })
    .whereIn('a.action', [...UNDOABLE])
    .orderBy('a.id')
    .select<Record<string, unknown>[]>(
      'a.id as activity',
      'a.action',
      'a.user',
      'r.id as revision',
      'r.data',
      'r.delta',
    );
  return rows.map((r) => ({
    activity: Number(r['activity']),
    action: String(r['action']),
    user: typeof r['user'] === 'string' ? r['user'].toLowerCase() : null,
    revision: r['revision'] == null ? null : Number(r['revision']),
    data: r['data'],
    delta: r['delta'],
  }));
}
