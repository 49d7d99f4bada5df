import type { Knex } from 'knex';
import type { Accountability } from '../access/accountability.js';
import { assertPasswordPolicy } from '../access/password-policy.js';
import { SessionModel } from '../db/models/system-models.js';
import { ForbiddenError } from '../errors.js';
import type { Item, PrimaryKey } from './types.js';

/** The collection of users, whose writes have rules of their own. */
export const USERS_COLLECTION = 'svc_users';

/**
 * What every write of a svc_users payload must also satisfy, whoever writes: a new password
 * matches settings.auth_password_policy (FAILED_VALIDATION), and `tfa_secret` is set through
 * the TFA routes only; an admin may clear it (reference/system-collections.md).
 */
export async function checkUserPayload(
  trx: Knex.Transaction,
  accountability: Accountability,
  payload: Item,
): Promise<void> {
  if ('tfa_secret' in payload && !(payload['tfa_secret'] === null && accountability.admin)) throw new ForbiddenError();
  const password = payload['password'];
  if (typeof password === 'string' && password !== '') await assertPasswordPolicy(trx, password);
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
