import type { Knex } from 'knex';
import type { Accountability } from '../access/accountability.js';
import { assertPasswordPolicy } from '../access/password-policy.js';
import { SessionModel } from '../db/models/system-models.js';
import { FailedValidationError, ForbiddenError, RecordNotUniqueError, UnprocessableEntityError } from '../errors.js';
import type { Item, PrimaryKey } from './types.js';

/** The collection of users, whose writes have rules of their own. */
export const USERS_COLLECTION = 'svc_users';

/** svc_users.status values; only `active` may log in. */
const USER_STATUSES = ['draft', 'invited', 'unverified', 'active', 'suspended', 'archived'] as const;

/** Something@somewhere, without spaces or control characters: what can receive a mail and be told apart. */
const EMAIL = /^[^\s@\p{Cc}]+@[^\s@\p{Cc}]+$/u;

/** Whether a user may have this e-mail address (every door that writes one: API, CLI). */
export function isEmailAddress(value: string): boolean {
  return EMAIL.test(value);
}

/**
 * Directus 10 stores e-mail addresses lower-cased, so that they are unique and looked up
 * (login, password reset, invites: auth/auth-user.ts) regardless of case.
 */
export function normalizeUserPayload(payload: Item): Item {
  const email = payload['email'];
  return typeof email === 'string' ? { ...payload, email: email.trim().toLowerCase() } : payload;
}

/**
 * What every write of a svc_users payload must also satisfy, whoever writes: a new password
 * matches settings.auth_password_policy (FAILED_VALIDATION), and `tfa_secret` is set through
 * the TFA routes only; an admin may clear it. `email` is an
 * e-mail address no other user has in any case (RECORD_NOT_UNIQUE, also against rows written
 * before addresses were lower-cased), `status` one of {@link USER_STATUSES}.
 */
export async function checkUserPayload(
  trx: Knex.Transaction,
  accountability: Accountability,
  payload: Item,
  key: PrimaryKey | undefined,
): Promise<void> {
  if ('tfa_secret' in payload && !(payload['tfa_secret'] === null && accountability.admin)) throw new ForbiddenError();
  if ('status' in payload && !(USER_STATUSES as readonly unknown[]).includes(payload['status'])) {
    throw new FailedValidationError(
      { field: 'status', type: 'in', valid: USER_STATUSES },
      `Validation failed for field "status". Value has to be one of ${USER_STATUSES.join(', ')}.`,
    );
  }
  const email = payload['email'];
  if (typeof email === 'string') {
    if (!isEmailAddress(email)) {
      throw new FailedValidationError(
        { field: 'email', type: 'email' },
        'Validation failed for field "email". Value has to be a valid email address.',
      );
    }
    const sameAddress = trx(USERS_COLLECTION).whereRaw('LOWER(??) = ?', ['email', email.toLowerCase()]);
    const taken = await (key === undefined ? sameAddress : sameAddress.whereNot('id', key)).first<
      Record<string, unknown> | undefined
    >('id');
    if (taken !== undefined) {
      throw new RecordNotUniqueError({ collection: USERS_COLLECTION, field: 'email' });
    }
  }
  const password = payload['password'];
  if (typeof password === 'string' && password !== '') await assertPasswordPolicy(trx, password);
}

/**
 * docs/errors.md: removing the last administrator is UNPROCESSABLE_ENTITY. Run inside the
 * write's transaction after a write that can take admin access away (a user's role or status
 * changed or a user deleted; a role's admin_access changed or a role deleted, its users
 * losing it), whichever door it came through (REST, GraphQL, batches, nested writes): the
 * write is refused, and rolled back, when no active user with an admin_access role is left.
 */
export async function assertAdminRemains(trx: Knex.Transaction): Promise<void> {
  const admin = await trx(USERS_COLLECTION)
    .join('svc_roles', `${USERS_COLLECTION}.role`, 'svc_roles.id')
    .where(`${USERS_COLLECTION}.status`, 'active')
    .where('svc_roles.admin_access', true)
    .first<Record<string, unknown> | undefined>(`${USERS_COLLECTION}.id`);
  if (admin === undefined) {
    throw new UnprocessableEntityError("The last active administrator can't be removed");
  }
}

/** Whether a svc_users update can take admin access away from its user. */
export function mayRemoveAdmin(data: Item): boolean {
  return 'role' in data || 'status' in data;
}

/**
 * A user who leaves `active` (suspended, archived, any other status) or whose password changes
 * or is removed, by themselves or by an admin, keeps no session: their refresh tokens and
 * session-mode tokens die with the write, in its transaction. A deleted user's sessions go
 * with the row (svc_sessions.user ON DELETE CASCADE). Access tokens already issued are
 * refused by authentication once the user is not active (auth/authenticate.ts).
 */
export async function endSessionsOnUserWrite(trx: Knex.Transaction, key: PrimaryKey, data: Item): Promise<void> {
  const leavesActive = 'status' in data && data['status'] !== 'active';
  if (leavesActive || 'password' in data) await SessionModel.query(trx).where('user', key).delete();
}
