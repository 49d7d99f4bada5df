import { randomUUID } from 'node:crypto';
import type { CollectionOverview } from '../../catalog/overview/types.js';
import type { Accountability } from '../access/accountability.js';
import { hashPassword } from '../access/passwords.js';
import { isMaskedField, MASK } from './journal/mask.js';
import { setOwn } from '../query/index.js';
import type { Item } from './types.js';

export interface SpecialContext {
  readonly action: 'create' | 'update';
  readonly accountability: Pick<Accountability, 'user' | 'role'>;
  readonly now: Date;
}

/** Authorship specials: the service's values, set on the action they name, never the client's. */
const CREATED_SPECIALS: readonly string[] = ['date-created', 'user-created', 'role-created'];
const UPDATED_SPECIALS: readonly string[] = ['date-updated', 'user-updated', 'role-updated'];
const AUTHORSHIP_SPECIALS: readonly string[] = [...CREATED_SPECIALS, ...UPDATED_SPECIALS];

/**
 * svc_files fields that describe the stored content:
 * only the file library writes them, through a command's `serverValues`. `storage` may be
 * named on a create (a metadata-only row has no content; an upload's location is checked by
 * the library), never changed by an update: the row would point into another location.
 */
const FILE_CONTENT_FIELDS: Readonly<Record<'create' | 'update', readonly string[]>> = {
  create: ['filename_disk', 'filesize', 'uploaded_on'],
  update: ['filename_disk', 'filesize', 'uploaded_on', 'storage'],
};

/**
 * Whether the service alone writes `field` on `action`: the authorship specials (on every
 * write: a create sets the `*-created` ones and leaves the `*-updated` ones alone, an update
 * the other way round) and the content fields of svc_files. A client's value is dropped.
 */
export function isServerOwned(collection: CollectionOverview, field: string, action: 'create' | 'update'): boolean {
  return serverOwnedFields(collection)[action].has(field);
}

/** Per collection of a schema, its server-owned fields by action, found once: every write asks of each key. */
const SERVER_OWNED = new WeakMap<CollectionOverview, Readonly<Record<'create' | 'update', ReadonlySet<string>>>>();

function serverOwnedFields(collection: CollectionOverview): Readonly<Record<'create' | 'update', ReadonlySet<string>>> {
  let owned = SERVER_OWNED.get(collection);
  if (owned === undefined) {
    const authorship = Object.values(collection.fields)
      .filter((field) => field.special.some((s) => AUTHORSHIP_SPECIALS.includes(s)))
      .map((field) => field.field);
    const files = (action: 'create' | 'update') =>
      collection.collection === 'svc_files' ? FILE_CONTENT_FIELDS[action] : [];
    owned = {
      create: new Set([...authorship, ...files('create')]),
      update: new Set([...authorship, ...files('update')]),
    };
    SERVER_OWNED.set(collection, owned);
  }
  return owned;
}

/**
 * The payload without its server-owned fields ({@link isServerOwned}): what a client may not
 * write is ignored, like Directus ignores a `user_created` it overwrites (forged authorship,
 * a `filename_disk` pointing at another user's content).
 */
export function withoutServerOwned(
  collection: CollectionOverview,
  payload: Item,
  action: 'create' | 'update',
): Record<string, unknown> {
  const owned = serverOwnedFields(collection)[action];
  const kept: Record<string, unknown> = {};
  for (const name in payload) if (!owned.has(name)) setOwn(kept, name, payload[name]);
  return kept;
}

/**
 * The values the service fills itself: a uuid for a missing uuid key (special `uuid`, or a uuid
 * primary key) on create; `date-created`, `user-created`, `role-created` on create and
 * `date-updated`, `user-updated` on update, whatever the payload says; the authorship specials
 * of the other action are left out (their stored value stays). Hashing is
 * {@link hashSpecialFields}. A new object, or the payload itself for a collection without them.
 */
export function applySpecialFields(
  collection: CollectionOverview,
  payload: Item,
  context: SpecialContext,
): Record<string, unknown> {
  const steps = specialSteps(collection);
  if (steps.length === 0) return payload;
  const result: Record<string, unknown> = { ...payload };
  const { action, accountability, now } = context;
  for (const step of steps) {
    const { field } = step;
    if (action === 'create') {
      if (step.uuidKey && (result[field] === undefined || result[field] === null)) result[field] = randomUUID();
      if (step.updated && !step.created) Reflect.deleteProperty(result, field);
      if (step.has.has('date-created')) result[field] = now.toISOString();
      if (step.has.has('user-created')) result[field] = accountability.user;
      if (step.has.has('role-created')) result[field] = accountability.role;
    } else {
      if (step.created && !step.updated) Reflect.deleteProperty(result, field);
      if (step.has.has('date-updated')) result[field] = now.toISOString();
      if (step.has.has('user-updated')) result[field] = accountability.user;
    }
  }
  return result;
}

/** What `applySpecialFields` looks at in one field: its specials, and whether it is a uuid key. */
interface SpecialStep {
  readonly field: string;
  readonly has: ReadonlySet<string>;
  readonly uuidKey: boolean;
  /** It has a `*-created` special. */
  readonly created: boolean;
  /** It has a `*-updated` special. */
  readonly updated: boolean;
}

/** Each collection's fields with a special (or a uuid key), found once per schema: an import fills every row. */
const SPECIAL_STEPS = new WeakMap<CollectionOverview, readonly SpecialStep[]>();

function specialSteps(collection: CollectionOverview): readonly SpecialStep[] {
  let steps = SPECIAL_STEPS.get(collection);
  if (steps === undefined) {
    steps = Object.values(collection.fields)
      .filter((field) => field.special.length > 0 || (field.isPrimaryKey && field.type === 'uuid'))
      .map((field) => ({
        field: field.field,
        has: new Set(field.special),
        uuidKey: field.special.includes('uuid') || (field.isPrimaryKey && field.type === 'uuid'),
        created: field.special.some((s) => CREATED_SPECIALS.includes(s)),
        updated: field.special.some((s) => UPDATED_SPECIALS.includes(s)),
      }));
    SPECIAL_STEPS.set(collection, steps);
  }
  return steps;
}

/** Fields hashed with argon2 on write: type `hash` or special `hash` (svc_users.password). */
export function isHashField(collection: CollectionOverview, name: string): boolean {
  const field = collection.fields[name];
  return field !== undefined && (field.type === 'hash' || field.special.includes('hash'));
}

/**
 * Drops masked fields (hash, conceal) that carry the read mask: a re-sent or reverted item
 * keeps its password hash and static token (the mask must never become a token). The payload
 * itself when none carries it.
 */
export function withoutMaskedValues(collection: CollectionOverview, payload: Item): Record<string, unknown> {
  let masked = false;
  for (const name in payload) masked ||= carriesMask(collection, payload, name);
  if (!masked) return payload;
  const kept: Record<string, unknown> = {};
  for (const name in payload) if (!carriesMask(collection, payload, name)) setOwn(kept, name, payload[name]);
  return kept;
}

function carriesMask(collection: CollectionOverview, payload: Item, name: string): boolean {
  if (payload[name] !== MASK) return false;
  const field = collection.fields[name];
  return field !== undefined && isMaskedField(field);
}

/** Hashes the hash fields with argon2. */
export async function hashSpecialFields(
  collection: CollectionOverview,
  payload: Item,
): Promise<Record<string, unknown>> {
  const result: Record<string, unknown> = { ...payload };
  for (const [name, value] of Object.entries(payload)) {
    if (typeof value === 'string' && value !== '' && isHashField(collection, name))
      result[name] = await hashPassword(value);
  }
  return result;
}
