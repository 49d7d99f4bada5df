import { randomUUID } from 'node:crypto';
import type { CollectionOverview } from '../../catalog/overview/types.js';
import type { Accountability } from '../access/accountability.js';
import { hashPassword } from '../auth/passwords.js';
import { isMaskedField, MASK } from './journal/mask.js';
import type { Item } from './types.js';

export interface SpecialContext {
  readonly action: 'create' | 'update';
  readonly accountability: Pick<Accountability, 'user' | 'role'>;
  readonly now: Date;
}

/**
 * The values the service fills itself (reference/system-collections.md, "Specials with write
 * behaviour"): a uuid for a missing uuid key (special `uuid`, or a uuid primary key) on
 * create; `date-created`, `user-created`, `role-created` on create and `date-updated`,
 * `user-updated` on update, whatever the payload says. Hashing is {@link hashSpecialFields}.
 */
export function applySpecialFields(collection: CollectionOverview, payload: Item, context: SpecialContext): Record<string, unknown> {
  const result: Record<string, unknown> = { ...payload };
  const { action, accountability, now } = context;
  for (const field of Object.values(collection.fields)) {
    const special = field.special;
    if (action === 'create') {
      const isUuidKey = special.includes('uuid') || (field.isPrimaryKey && field.type === 'uuid');
      if (isUuidKey && (result[field.field] === undefined || result[field.field] === null)) result[field.field] = randomUUID();
      if (special.includes('date-created')) result[field.field] = now.toISOString();
      if (special.includes('user-created')) result[field.field] = accountability.user;
      if (special.includes('role-created')) result[field.field] = accountability.role;
    } else {
      if (special.includes('date-updated')) result[field.field] = now.toISOString();
      if (special.includes('user-updated')) result[field.field] = accountability.user;
    }
  }
  return result;
}

/** Fields hashed with argon2 on write: type `hash` or special `hash` (svc_users.password). */
function isHashField(collection: CollectionOverview, name: string): boolean {
  const field = collection.fields[name];
  return field !== undefined && (field.type === 'hash' || field.special.includes('hash'));
}

/**
 * Drops masked fields (hash, conceal) that carry the read mask: a re-sent or reverted item
 * keeps its password hash and static token (the mask must never become a token).
 */
export function withoutMaskedValues(collection: CollectionOverview, payload: Item): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(payload).filter(([name, value]) => {
      const field = collection.fields[name];
      return !(value === MASK && field !== undefined && isMaskedField(field));
    }),
  );
}

/** Hashes the hash fields with argon2 (reference/audit-and-utils.md, "Hash"). */
export async function hashSpecialFields(collection: CollectionOverview, payload: Item): Promise<Record<string, unknown>> {
  const result: Record<string, unknown> = { ...payload };
  for (const [name, value] of Object.entries(payload)) {
    if (typeof value === 'string' && value !== '' && isHashField(collection, name)) result[name] = await hashPassword(value);
  }
  return result;
}
