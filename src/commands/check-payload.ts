import type { Knex } from 'knex';
import type { CollectionOverview } from '../../catalog/overview/types.js';
import type { WritePermissions } from '../access/write-permissions.js';
import { rulesOf } from './collection-rules.js';
import type { CommentTargetContext } from './comment-target.js';
import { setOwn } from '../query/index.js';
import { applySpecialFields, withoutMaskedValues, withoutServerOwned } from './special-fields.js';
import type { DebugLog, Item, PrimaryKey } from './types.js';
import { validatePayload } from './validate-payload.js';

/** What a payload is checked against: the caller's permissions, schema and read access. */
export interface PayloadCheckContext extends CommentTargetContext {
  readonly permissions: WritePermissions;
  readonly log?: DebugLog;
}

/** One payload to check: `key` is the item updated, undefined for a create. */
export interface PayloadToCheck {
  readonly action: 'create' | 'update';
  readonly payload: Item;
  /** The service's own values over the client's (types.ts, CreateCommand `serverValues`). */
  readonly serverValues?: Item;
  readonly key?: PrimaryKey;
}

/**
 * Steps 1–2 of the algorithm in commands/README.md for one item: the client's server-owned
 * fields dropped, the permission hook (fields, presets, validation), keys that are not fields
 * dropped, specials, the collection's normal form, column validation and the collection's own
 * rules (collection-rules.ts).
 * Returns the data to write, or throws the refusal.
 */
export async function checkWritePayload(
  trx: Knex.Transaction,
  ctx: PayloadCheckContext,
  collection: CollectionOverview,
  toCheck: PayloadToCheck,
  now: Date,
): Promise<Item> {
  const written = checkedPayload(ctx, collection, toCheck, now);
  const { check } = rulesOf(collection.collection);
  if (check !== undefined) await check(trx, ctx, collection, written, toCheck.key);
  return written;
}

/**
 * {@link checkWritePayload} but for the collection's own check (collection-rules.ts `check`,
 * which reads the database): every other step, synchronously. For the writers that take only
 * collections without rules (an import's batches, a one-statement write), which check every
 * row without a promise each.
 */
export function checkedPayload(
  ctx: PayloadCheckContext,
  collection: CollectionOverview,
  toCheck: PayloadToCheck,
  now: Date,
): Item {
  const { action, serverValues } = toCheck;
  // The one copy of the client's payload; each step after it hands back what it was given
  // when it changes nothing (an import checks every row).
  const client = withoutServerOwned(collection, toCheck.payload, action);
  for (const name in serverValues) setOwn(client, name, serverValues[name]);
  const checked = ctx.permissions.checkPayload(action, collection.collection, client);
  const special = applySpecialFields(
    collection,
    withoutMaskedValues(collection, withoutUnknownKeys(ctx, collection, checked)),
    {
      action,
      accountability: ctx.accountability,
      now,
    },
  );
  const data = rulesOf(collection.collection).normalize?.(special, ctx.overview) ?? special;
  const { user, role } = ctx.accountability;
  validatePayload(ctx.overview, collection, data, { action, variables: { now, user, role } });
  return action === 'create' ? withoutNullGeneratedKey(collection, data) : data;
}

/**
 * A generated key given as null on create is the database's to generate, on every database
 * (PostgreSQL would refuse the null where MariaDB and SQLite generate one).
 */
function withoutNullGeneratedKey(collection: CollectionOverview, data: Item): Item {
  const { primary } = collection;
  if (data[primary] !== null || collection.fields[primary]?.isGenerated !== true) return data;
  const kept: Item = {};
  for (const name in data) if (name !== primary) setOwn(kept, name, data[name]);
  return kept;
}

/**
 * Directus 10 drops payload keys that are not fields of the collection (columns or
 * aliases) instead of refusing them; they are noted at debug level. After the permission
 * check, as there: a role limited to some fields is refused any other key (403).
 */
function withoutUnknownKeys(ctx: PayloadCheckContext, collection: CollectionOverview, payload: Item): Item {
  let isKnown = true;
  for (const name in payload) isKnown &&= collection.fields[name] !== undefined;
  if (isKnown) return payload;
  const unknown = Object.keys(payload).filter((name) => collection.fields[name] === undefined);
  ctx.log?.debug({ collection: collection.collection, keys: unknown }, 'payload keys that are not fields dropped');
  return Object.fromEntries(Object.entries(payload).filter(([name]) => collection.fields[name] !== undefined));
}
