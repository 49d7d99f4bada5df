import { requireCollection } from '../../catalog/overview/lookup.js';
import { canReadCollection } from '../access/read-access.js';
import type { CollectionOverview } from '../../catalog/overview/types.js';
import { insertReturningKeys } from '../db/insert-returning-keys.js';
import { dialectOf } from '../db/index.js';
import { ForbiddenError, InvalidPayloadError, UnprocessableEntityError } from '../errors.js';
import {
  liveChangesSince,
  mainItemHash,
  readItemByKey,
  readVersionRow,
  storedItemKey,
  type ReadContext,
  type Reader,
  type VersionRow,
} from '../query/index.js';
import { activityRow } from './journal/journal.js';
import { isMaskedField } from './journal/mask.js';
import { requirePrimaryKey } from './primary-key.js';
import { runWrite } from './run-write.js';
import { isServerOwned } from './special-fields.js';
import { toDatabaseTimestamp } from './to-database-value.js';
import { checkVersionKey, VERSIONS_COLLECTION } from './version-keys.js';
import type { CommandContext, Item, PrimaryKey } from './types.js';
import { validatePayload } from './validate-payload.js';

export { VERSIONS_COLLECTION } from './version-keys.js';

/** POST /versions: a named version of an item (Directus 10.7+: key, name, collection, item). */
export interface CreateVersionCommand {
  readonly kind: 'create-version';
  readonly key: string;
  readonly name: string | null;
  readonly collection: string;
  readonly item: PrimaryKey;
}

/** POST /versions/:id/promote: the version's values written to the live item. */
export interface PromoteVersionCommand {
  readonly kind: 'promote-version';
  readonly version: string;
  /** The live item's hash the caller compared against (GET /versions/:id/compare). */
  readonly mainHash: string;
  /** Only these fields of the version (the caller's choice per field: the others keep the live value). */
  readonly fields?: readonly string[];
  /** Fields both sides changed: `version` writes the version's value, `main` keeps the live one. */
  readonly keep?: 'version' | 'main';
}

/**
 * A version of an item of a collection with `meta.versioning` (else UNPROCESSABLE_ENTITY);
 * permission first (issue 36): a caller who may not create versions or read the collection
 * is FORBIDDEN before the collection is looked at, as for a missing one. The item must be
 * readable by the caller (else FORBIDDEN), the key unused for it and not `main`. The version row is an ordinary create of svc_versions (the caller's create
 * permission, the journal) with the live item's hash of now. Answers the version's id.
 */
export function handleCreateVersion(cmd: CreateVersionCommand, ctx: CommandContext): Promise<PrimaryKey> {
  checkVersionKey(cmd.key);
  if (!ctx.permissions.allows(VERSIONS_COLLECTION, 'create') || !canReadCollection(ctx.readAccess, cmd.collection))
    throw new ForbiddenError();
  return runWrite(ctx, async (writer, trx) => {
    const read = readContextOf(ctx, trx);
    const target = versionedCollection(ctx, cmd.collection);
    const key = requirePrimaryKey(target, cmd.item);
    await readItemByKey(read, target.collection, key, { fields: [target.primary] }, readerOf(ctx));
    const item = storedItemKey(target, String(key));
    // A key the item's versions already have (in any case) is refused by the svc_versions rule (version-keys.ts).
    const hash = await mainItemHash(read, readerOf(ctx), target.collection, item);
    const payload = { key: cmd.key, name: cmd.name, collection: target.collection, item, hash };
    return (await writer.create(VERSIONS_COLLECTION, payload)).key;
  });
}

/**
 * POST /versions/:id/save: `delta` saved into the version, the live item untouched. Checked
 * as an update of the item (its update permission: item filter, fields, validation; the
 * values' types), written as a `version_save` activity with a revision whose `version` is
 * the version (Directus), and merged into the version's `delta`. Concealed fields (hash,
 * conceal) are refused: a version keeps its values readable, and those may never be.
 */
export function handleSaveVersion(id: string, delta: unknown, ctx: CommandContext): Promise<VersionRow> {
  if (typeof delta !== 'object' || delta === null || Array.isArray(delta))
    throw new InvalidPayloadError('"value" must be of type object');
  return runWrite(ctx, async (writer, trx, now) => {
    const read = readContextOf(ctx, trx);
    const version = await readVersionRow(read, readerOf(ctx), id);
    const target = versionedCollection(ctx, version.collection, false);
    const data = savedValues(target, delta as Item);
    await ctx.permissions.checkItems(trx, 'update', target.collection, [version.item]);
    ctx.permissions.checkPayload('update', target.collection, data);
    const variables = { now, user: ctx.accountability.user, role: ctx.accountability.role };
    validatePayload(ctx.overview, target, data, { action: 'update', variables });
    await readItemByKey(read, target.collection, version.item, { fields: [target.primary] }, readerOf(ctx));
    const dialect = dialectOf(trx);
    if (target.accountability !== null) {
      const activity = activityRow('version_save', target.collection, version.item, ctx.accountability, now, dialect);
      const [activityId] = await insertReturningKeys(trx, 'svc_activity', [activity], 'id', {
        hasIncreasingKeys: true,
      });
      if (target.accountability === 'all') {
        const values = JSON.stringify(data);
        const revision = { activity: activityId, collection: target.collection, item: version.item, data: values };
        await trx('svc_revisions').insert({ ...revision, delta: values, version: version.id });
      }
      writer.touched.add('svc_activity');
    }
    const merged = { ...version.delta, ...data };
    await trx(VERSIONS_COLLECTION)
      .where({ id: version.id })
      .update({
        delta: JSON.stringify(merged),
        date_updated: toDatabaseTimestamp(now, dialect),
        user_updated: ctx.accountability.user,
      });
    writer.touched.add(VERSIONS_COLLECTION);
    writer.touched.add(target.collection);
    return { ...version, delta: merged };
  });
}

/**
 * POST /versions/:id/promote: the version's values (or `fields` of them) written to the live
 * item by the normal update (permissions, validation, journal), in one transaction. Refused
 * with UNPROCESSABLE_ENTITY when the live item changed since the caller's compare (`mainHash`
 * is not its hash now, as in Directus), and when, without `fields`, the live item changed
 * fields the version also saved since it began, unless `keep` says which side wins.
 */
export function handlePromoteVersion(cmd: PromoteVersionCommand, ctx: CommandContext): Promise<PrimaryKey> {
  return runWrite(ctx, async (writer, trx) => {
    const read = readContextOf(ctx, trx);
    const version = await readVersionRow(read, readerOf(ctx), cmd.version);
    const target = versionedCollection(ctx, version.collection, false);
    await readItemByKey(read, target.collection, version.item, { fields: [target.primary] }, readerOf(ctx));
    const mainHash = await mainItemHash(read, readerOf(ctx), target.collection, version.item);
    if (mainHash !== cmd.mainHash) {
      throw new UnprocessableEntityError(
        'Main item has changed since this version was compared; compare again and send its "mainHash"',
      );
    }
    // Fields dropped since the save are no change to promote (compare leaves them out too).
    const saved = Object.keys(version.delta).filter((name) => Object.hasOwn(target.fields, name));
    for (const field of cmd.fields ?? []) {
      if (!saved.includes(field)) throw new InvalidPayloadError(`Field "${field}" has no value in this version`);
    }
    let names = cmd.fields ?? saved;
    if (cmd.fields === undefined) {
      const changed = await liveChangesSince(read, version);
      const conflicts = names.filter((name) => changed.has(name));
      if (conflicts.length > 0 && cmd.keep === undefined) {
        throw new UnprocessableEntityError(
          `The live item changed ${conflicts.map((c) => `"${c}"`).join(', ')} since this version began; ` +
            'send "keep": "version" or "main", or the "fields" to promote',
        );
      }
      if (cmd.keep === 'main') names = names.filter((name) => !changed.has(name));
    }
    if (names.length === 0) throw new UnprocessableEntityError('No changes to promote');
    const payload = Object.fromEntries(names.map((name) => [name, version.delta[name]]));
    return (await writer.update(target.collection, version.item, payload)).key;
  });
}

/** The collection of a new or existing version: it must have versioning on (a new one: a collection at all). */
function versionedCollection(ctx: CommandContext, name: string, isNew = true): CollectionOverview {
  const target = Object.hasOwn(ctx.overview.collections, name) ? ctx.overview.collections[name] : undefined;
  if (target === undefined) {
    if (isNew) throw new ForbiddenError();
    throw new UnprocessableEntityError(`Collection "${name}" no longer exists`);
  }
  if (target.meta?.['versioning'] !== true || target.singleton) {
    throw new UnprocessableEntityError(`Content Versioning is not enabled for collection "${name}"`);
  }
  return requireCollection(ctx.overview, name);
}

/** A save's payload: the primary key and server-owned fields dropped; concealed fields refused. */
function savedValues(collection: CollectionOverview, delta: Item): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(delta)) {
    if (name === collection.primary || isServerOwned(collection, name, 'update')) continue;
    const field = collection.fields[name];
    if (field !== undefined && isMaskedField(field))
      throw new InvalidPayloadError(`Field "${name}" is concealed: write it to the item, not to a version`);
    data[name] = value;
  }
  if (Object.keys(data).length === 0) throw new InvalidPayloadError('Nothing to save: the payload has no fields');
  return data;
}

function readContextOf(ctx: CommandContext, trx: ReadContext['db']): ReadContext {
  return { db: trx, overview: ctx.overview, limits: ctx.readLimits };
}

function readerOf(ctx: CommandContext): Reader {
  return { accountability: ctx.accountability, access: ctx.readAccess };
}

function bodyObject(value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new InvalidPayloadError('"value" must be of type object');
  return value as Record<string, unknown>;
}

function onlyKeys(body: Record<string, unknown>, allowed: readonly string[]): void {
  const extra = Object.keys(body).find((name) => !allowed.includes(name));
  if (extra !== undefined) throw new InvalidPayloadError(`"${extra}" is not allowed`);
}

function checkName(name: unknown): string | null {
  if (name === undefined || name === null) return null;
  if (typeof name !== 'string' || name.length > 255)
    throw new InvalidPayloadError('"name" must be a string of at most 255 characters');
  return name;
}

/** The body of POST /versions: `{key, name?, collection, item}`, nothing else. */
export function parseNewVersion(body: unknown): CreateVersionCommand {
  const value = bodyObject(body);
  onlyKeys(value, ['key', 'name', 'collection', 'item']);
  const { collection, item } = value;
  if (typeof collection !== 'string') throw new InvalidPayloadError('"collection" is required');
  if (typeof item !== 'string' && typeof item !== 'number') throw new InvalidPayloadError('"item" is required');
  return {
    kind: 'create-version',
    key: checkVersionKey(value['key']),
    name: checkName(value['name']),
    collection,
    item,
  };
}

/** The data of PATCH /versions[/:id]: a new `key` and/or `name`; what it versions is fixed. */
export function parseVersionPatch(data: unknown): Item {
  const value = bodyObject(data);
  onlyKeys(value, ['key', 'name']);
  return {
    ...(value['key'] === undefined ? {} : { key: checkVersionKey(value['key']) }),
    ...(value['name'] === undefined ? {} : { name: checkName(value['name']) }),
  };
}

/** The body of POST /versions/:id/promote: `{mainHash, fields?, keep?}`. */
export function parsePromotion(version: string, body: unknown): PromoteVersionCommand {
  const value = bodyObject(body ?? {});
  onlyKeys(value, ['mainHash', 'fields', 'keep']);
  const { mainHash, fields, keep } = value;
  if (typeof mainHash !== 'string') throw new InvalidPayloadError('"mainHash" is required');
  if (fields !== undefined && (!Array.isArray(fields) || !fields.every((f) => typeof f === 'string')))
    throw new InvalidPayloadError('"fields" must be an array of field names');
  if (keep !== undefined && keep !== 'version' && keep !== 'main')
    throw new InvalidPayloadError('"keep" must be "version" or "main"');
  return {
    kind: 'promote-version',
    version,
    mainHash,
    ...(fields === undefined ? {} : { fields: fields }),
    ...(keep === undefined ? {} : { keep }),
  };
}
