import type { Knex } from 'knex';
import { SettingsModel } from '../db/models/system-models.js';
import { FailedValidationError } from '../errors.js';

/**
 * FAILED_VALIDATION unless `password` matches settings.auth_password_policy, a regex literal
 * such as `/^.{8,}$/`. No policy: anything.
 */
export async function assertPasswordPolicy(db: Knex, password: string): Promise<void> {
  const row = await SettingsModel.query(db).select('auth_password_policy').first();
  const policy = toRegExp(row?.authPasswordPolicy ?? null);
  if (policy === undefined || policy.test(password)) return;
  throw new FailedValidationError(
    { field: 'password', type: 'regex' },
    'Validation failed for field "password". Value doesn\'t have the correct format.',
  );
}

function toRegExp(policy: string | null): RegExp | undefined {
  if (policy === null || policy.trim() === '') return undefined;
  const literal = /^\/(.*)\/([dgimsuvy]*)$/s.exec(policy);
  return literal === null ? new RegExp(policy) : new RegExp(literal[1] ?? '', literal[2]);
}
