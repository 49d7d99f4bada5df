import type { Knex } from 'knex';
import { requireCollection } from '../../../catalog/overview/lookup.js';
import { dialectOf } from '../../db/index.js';
import { toDatabaseTimestamp } from '../../db/to-database-timestamp.js';
import { readItemByKey } from '../read-items.js';
import type { ReadContext, Reader } from '../read-context.js';
import type { Item } from '../shape/shape-rows.js';
import { revisionValues, visibleValues } from './history-access.js';
import { mainItemHash, readVersionRow, type VersionRow } from './item-version.js';

/** GET /versions/:id/compare: Directus's four keys, plus which fields differ and which conflict. */
export interface VersionComparison {
  /** The live item changed since the version began (its hash then is not its hash now). */
  readonly outdated: boolean;
  /** The live item's hash now: what promote's `mainHash` must be. */
  readonly mainHash: string;
  /** The values saved into the version (fields the caller may read). */
  readonly current: Item;
  /** The live item's values of the same fields. */
  readonly main: Item;
  /** The fields whose version value differs from the live one. */
  readonly fields: readonly string[];
  /** Fields the version saved that the live item also changed since the version began. */
  readonly conflicts: readonly string[];
}

/**
 * The comparison of a version with its live item (issue 18, content versions): the caller
 * reads the version (svc_versions permission) and the item (FORBIDDEN otherwise); values are
 * those of fields they may read now, masks never lifted.
 */
export async function compareVersion(ctx: ReadContext, reader: Reader, id: string): Promise<VersionComparison> {
  const version = await readVersionRow(ctx, reader, id);
  const target = requireCollection(ctx.overview, version.collection);
  await readItemByKey(ctx, version.collection, version.item, { fields: [target.primary] }, reader);
  const mainHash = (await mainItemHash(ctx, reader, version.collection, version.item)) ?? '';
  const current = visibleValues(ctx, reader, version.collection, version.delta);
  const names = Object.keys(current);
  const main =
    names.length === 0 ? {} : await readItemByKey(ctx, version.collection, version.item, { fields: names }, reader);
  const fields = names.filter((name) => JSON.stringify(current[name] ?? null) !== JSON.stringify(main[name] ?? null));
  const changed = await liveChangesSince(ctx, version);
  return {
    outdated: version.hash !== mainHash,
    mainHash,
    current,
    main,
    fields,
    conflicts: names.filter((name) => changed.has(name)),
  };
}

/**
 * The fields updates of the live item set since the version began: the delta of every
 * revision of the item outside any version written after the version's own creation
 * (its svc_activity row; once pruned, its `date_created`).
 */
export async function liveChangesSince(ctx: ReadContext, version: VersionRow): Promise<Set<string>> {
  const created = await ctx
    .db('svc_activity')
    .where({ collection: 'svc_versions', item: version.id, action: 'create' })
    .first<{ id: number | string } | undefined>('id');
  const rows = await ctx
    .db('svc_revisions as r')
    .join('svc_activity as a', 'a.id', 'r.activity')
    .where({ 'r.collection': version.collection, 'r.item': version.item, 'a.action': 'update' })
    .whereNull('r.version')
    .modify((builder: Knex.QueryBuilder) => {
      if (created !== undefined) builder.where('a.id', '>', Number(created.id));
      else if (version.dateCreated !== null)
        builder.where('a.timestamp', '>=', toDatabaseTimestamp(version.dateCreated, dialectOf(ctx.db as Knex)));
    })
    .select<{ delta: unknown }[]>('r.delta');
  return new Set(rows.flatMap((r) => Object.keys(revisionValues(r.delta))));
}
