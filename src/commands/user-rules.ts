import type { Knex } from 'knex';
import type { Accountability } from '../access/accountability.js';
import { assertPasswordPolicy } from '../auth/password-policy.js';
import { ForbiddenError } from '../errors.js';
import type { Item } from './types.js';

/** The collection of users, whose writes have rules of their own. */
export const USERS_COLLECTION = 'svc_users';

/**
 * What every write of a svc_users payload must also satisfy, whoever writes: a new password
 * matches settings.auth_password_policy (FAILED_VALIDATION), and `tfa_secret` is set through
 * the TFA routes only; an admin may clear it (reference/system-collections.md).
 */
export async function checkUserPayload(trx: Knex.Transaction, accountability: Accountability, payload: Item): Promise<void> {
  if ('tfa_secret' in payload && !(payload['tfa_secret'] === null && accountability.admin)) throw new ForbiddenError();
  const password = payload['password'];
  if (typeof password === 'string' && password !== '') await assertPasswordPolicy(trx, password);
}
