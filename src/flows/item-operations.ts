import type { Accountability } from '../access/accountability.js';
import { requireCollection } from '../../catalog/overview/lookup.js';
import type { Item, PrimaryKey, Selection } from '../commands/types.js';
import { InvalidPayloadError } from '../errors.js';
import { ItemsService } from '../items/items-service.js';
import { parseQuery, queryLimits, readerOf, readItems, readItemsByKeys } from '../query/index.js';
import type { OperationContext, OperationHandler } from './types.js';

/**
 * Who an item operation acts as, by its `permissions` option as Directus names it: `$trigger`
 * (the default: the caller who triggered the run; the public role when none), `$public`,
 * `$full` (every permission), or a role's id.
 */
function operationAccountability(permissions: unknown, context: OperationContext): Accountability {
  const base = context.accountability;
  const where = { ip: base?.ip ?? null, userAgent: base?.userAgent ?? null, origin: base?.origin ?? null };
  if (permissions === '$full') return { user: null, role: null, admin: true, app: false, ...where };
  if (permissions === '$public') return { user: null, role: null, admin: false, app: false, ...where };
  if (typeof permissions === 'string' && permissions !== '' && permissions !== '$trigger') {
    return { user: null, role: permissions, admin: false, app: false, ...where };
  }
  return base ?? { user: null, role: null, admin: false, app: false, ...where };
}

async function setup(options: Record<string, unknown>, context: OperationContext) {
  const { deps } = context;
  const collection = options['collection'];
  if (typeof collection !== 'string' || collection === '') throw new InvalidPayloadError('"collection" is required');
  const overview = await deps.schema.getOverview();
  const accountability = operationAccountability(options['permissions'], context);
  return { deps, collection: requireCollection(overview, collection).collection, overview, accountability };
}

/** `key`: one key, a list of keys, or none (then `query` selects). */
function keysOf(value: unknown): PrimaryKey[] | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const list = Array.isArray(value) ? value : [value];
  return list.map((key) => {
    if (typeof key !== 'string' && typeof key !== 'number')
      throw new InvalidPayloadError('"key" must hold primary keys');
    return key;
  });
}

function objectOf(value: unknown, name: string): Record<string, unknown> {
  const parsed: unknown = typeof value === 'string' && value.trim() !== '' ? JSON.parse(value) : (value ?? {});
  if (typeof parsed !== 'object' || parsed === null) throw new InvalidPayloadError(`"${name}" must be an object`);
  return parsed as Record<string, unknown>;
}

function selectionOf(options: Record<string, unknown>): Selection {
  const keys = keysOf(options['key']);
  if (keys !== undefined) return { keys };
  return { query: objectOf(options['query'], 'query') };
}

/**
 * The items service an item-create, -update or -delete operation writes through, as Directus's
 * do: permissions, validation, the journal, and with `emitEvents` (Directus's option, off by
 * default) the items' filters and actions, so the write starts other flows' event triggers
 * (one deeper in the chain: chain-depth.ts). Without it the write fires no event.
 */
async function writer(options: Record<string, unknown>, context: OperationContext): Promise<ItemsService> {
  const { deps, collection, overview, accountability } = await setup(options, context);
  const hooks = options['emitEvents'] === true ? deps.hooks : undefined;
  return new ItemsService(collection, { ...deps, hooks }, { accountability, schema: overview });
}

const itemCreate: OperationHandler = async (options, context) => {
  const payload: unknown = typeof options['payload'] === 'string' ? JSON.parse(options['payload']) : options['payload'];
  const items = (Array.isArray(payload) ? payload : [payload ?? {}]) as Item[];
  const keys = await (await writer(options, context)).createMany(items);
  return Array.isArray(payload) ? keys : keys[0];
};

const itemRead: OperationHandler = async (options, context) => {
  const { deps, collection, overview, accountability } = await setup(options, context);
  const query = parseQuery(objectOf(options['query'], 'query'));
  const reader = await readerOf(deps, overview, accountability);
  const ctx = { db: deps.db, overview, limits: queryLimits(deps.config) };
  const keys = keysOf(options['key']);
  const items =
    keys === undefined
      ? await readItems(ctx, collection, query, reader)
      : await readItemsByKeys(ctx, collection, keys, query, reader);
  return !Array.isArray(options['key']) && keys?.length === 1 ? (items[0] ?? null) : items;
};

const itemUpdate: OperationHandler = async (options, context) => {
  const data = objectOf(options['payload'], 'payload') as Item;
  return (await writer(options, context)).update({ ...selectionOf(options), data });
};

const itemDelete: OperationHandler = async (options, context) => {
  const selection = selectionOf(options);
  await (await writer(options, context)).delete(selection);
  return 'keys' in selection ? selection.keys : null;
};

/** The item operations, by Directus's ids. */
export const ITEM_OPERATIONS: Readonly<Record<string, OperationHandler>> = {
  'item-create': itemCreate,
  'item-read': itemRead,
  'item-update': itemUpdate,
  'item-delete': itemDelete,
};
