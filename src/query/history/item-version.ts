import { createHash } from 'node:crypto';
import { getFieldRelation, requireCollection } from '../../../catalog/overview/lookup.js';
import { FULL_READ_ACCESS, canReadCollection } from '../../access/read-access.js';
import { ForbiddenError, InvalidQueryError } from '../../errors.js';
import type { Query } from '../query.js';
import { readItemByKey, readItems, readItemsByKeys } from '../read-items.js';
import type { ReadContext, Reader } from '../read-context.js';
import type { Item } from '../shape/shape-rows.js';
import { revisionValues, storedKey, visibleValues } from './history-access.js';

/** The version key that names the live item, in any case (Directus reserves it too). */
export const MAIN_VERSION_KEY = 'main';

/** A svc_versions row as the history code uses it. */
export interface VersionRow {
  readonly id: string;
  readonly key: string;
  readonly collection: string;
  readonly item: string;
  readonly hash: string | null;
  /** The values saved into the version so far (field → value). */
  readonly delta: Readonly<Record<string, unknown>>;
  readonly dateCreated: Date | null;
}

const VERSION_FIELDS = ['id', 'key', 'collection', 'item', 'hash', 'delta', 'date_created'];

/** A version the caller may read (their svc_versions read permission), else FORBIDDEN like a missing one. */
export async function readVersionRow(ctx: ReadContext, reader: Reader, id: string): Promise<VersionRow> {
  const row = await readItemByKey(ctx, 'svc_versions', id, { fields: VERSION_FIELDS }, fullFieldsOf(reader));
  return toVersionRow(row);
}

/**
 * The hash of the live item (compare's `mainHash`, promote's guard): SHA-1 of its own
 * fields as any reader sees them (masked values as the mask), keys sorted, so every caller
 * and every dialect get the same hash for the same item. Undefined when the item is gone.
 */
export async function mainItemHash(
  ctx: ReadContext,
  reader: Reader,
  collection: string,
  key: string,
): Promise<string | undefined> {
  const everything = { ...reader, access: FULL_READ_ACCESS };
  const [item] = await readItemsByKeys(ctx, collection, [key], { fields: ['*'] }, everything);
  return item === undefined ? undefined : createHash('sha1').update(stableJson(item)).digest('hex');
}

/**
 * GET /items/:collection/:id?version=<key> (issue 18, content versions): the live item read
 * with the caller's query, the version's saved values over the fields the answer has. A
 * many-to-one the version points elsewhere is read with the same nested fields. `main` is
 * the live item; keys match ignoring case; a key the item has no version of (or one the
 * caller may not read) is FORBIDDEN, like a missing item.
 */
export async function readItemVersion(
  ctx: ReadContext,
  reader: Reader,
  collection: string,
  key: string,
  query: Query,
  versionKey: string,
): Promise<Item> {
  const item = await readItemByKey(ctx, collection, key, query, reader);
  const wanted = versionKey.toLowerCase();
  if (wanted === MAIN_VERSION_KEY) return item;
  const target = requireCollection(ctx.overview, collection);
  // Keys are unique per item ignoring case (commands/version-keys.ts), and found so on every
  // database: a filter's _eq ignores case on MariaDB only. An item has a handful of versions.
  const versions = await readItems(
    ctx,
    'svc_versions',
    {
      fields: VERSION_FIELDS,
      filter: { _and: [{ collection: { _eq: collection } }, { item: { _eq: storedKey(target, key) } }] },
      limit: -1,
    },
    fullFieldsOf(reader),
  );
  const row = versions.find((v) => String(v['key']).toLowerCase() === wanted);
  if (row === undefined) throw new ForbiddenError();
  return applyVersion(ctx, reader, collection, item, toVersionRow(row).delta, query);
}

/** `item` with the version's values over the fields it has (those the caller may read). */
async function applyVersion(
  ctx: ReadContext,
  reader: Reader,
  collection: string,
  item: Item,
  delta: Readonly<Record<string, unknown>>,
  query: Query,
): Promise<Item> {
  const values = visibleValues(ctx, reader, collection, delta);
  const result: Record<string, unknown> = { ...item };
  for (const [name, value] of Object.entries(values)) {
    if (!Object.hasOwn(item, name)) continue;
    const current = item[name];
    const relation = getFieldRelation(ctx.overview, collection, name);
    const isNested = current !== null && typeof current === 'object' && !Array.isArray(current);
    if (relation?.kind === 'm2o' && isNested && (typeof value === 'string' || typeof value === 'number')) {
      result[name] = await relatedItem(ctx, reader, relation.related, value, nestedFields(query, name));
    } else {
      result[name] = value;
    }
  }
  return result;
}

async function relatedItem(
  ctx: ReadContext,
  reader: Reader,
  collection: string,
  key: string | number,
  fields: readonly string[],
): Promise<unknown> {
  const [related] = await readItemsByKeys(ctx, collection, [key], { fields: [...fields] }, reader);
  return related ?? null;
}

/** The paths of `query.fields` under `name` (`author.name` → `name`), `*` when it names none. */
function nestedFields(query: Query, name: string): string[] {
  const prefix = `${name}.`;
  const nested = (query.fields ?? []).filter((f) => f.startsWith(prefix)).map((f) => f.slice(prefix.length));
  const wildcard = (query.fields ?? []).filter((f) => f.startsWith('*.')).map((f) => f.slice(2));
  const all = [...nested, ...wildcard];
  return all.length > 0 ? all : ['*'];
}

/** The `version` parameter: a key, or INVALID_QUERY. */
export function parseVersionKey(value: unknown): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > 64)
    throw new InvalidQueryError('"version" must be a version key');
  return value;
}

function toVersionRow(row: Item): VersionRow {
  return {
    id: String(row['id']),
    key: String(row['key']),
    collection: String(row['collection']),
    item: String(row['item']),
    hash: typeof row['hash'] === 'string' ? row['hash'] : null,
    delta: revisionValues(row['delta']),
    dateCreated: typeof row['date_created'] === 'string' ? new Date(row['date_created']) : null,
  };
}

/**
 * The caller's svc_versions read permission decides which rows they see; once a row is theirs
 * to see, its bookkeeping columns (hash, delta) are read whole: the values in `delta` are
 * filtered by the item collection's read permission wherever they are shown.
 */
function fullFieldsOf(reader: Reader): Reader {
  const { access } = reader;
  return {
    ...reader,
    access: {
      rowFilter: (collection) => access.rowFilter(collection),
      readableFields: (collection) =>
        collection === 'svc_versions' && canReadCollection(access, collection)
          ? '*'
          : access.readableFields(collection),
    },
  };
}

/** JSON with object keys sorted at every level. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}
