import type { Knex } from 'knex';
import { SettingsModel, UserModel } from '../db/models/system-models.js';
import { createGuardrails, generateSecret, verify } from 'otplib';
import { ForbiddenError, InvalidCredentialsError, InvalidPayloadError } from '../errors.js';
import { findUserById, isUserId } from './auth-user.js';
import { verifyPassword } from '../access/passwords.js';
import type { CounterStore } from './counter-store.js';

// 16-char base32 secrets are 10 bytes, below otplib's default minimum.
const SECRET_BYTES = 10;
const guardrails = createGuardrails({ MIN_SECRET_BYTES: SECRET_BYTES });
const PERIOD_SECONDS = 30;
const INVALID_OTP_REASON = '"otp" is invalid';
const TFA_ALREADY_SET = 'TFA Secret is already set for this user';

/** True when `otp` is the TOTP of `secret` (SHA1, 6 digits, 30 s) within ±1 step. */
async function isValidOtp(secret: string, otp: string): Promise<boolean> {
  if (!/^\d{6}$/.test(otp)) return false;
  try {
    const result = await verify({ secret, token: otp, guardrails, epochTolerance: PERIOD_SECONDS });
    return result.valid;
  } catch {
    return false;
  }
}

/** How long an accepted OTP stays refused: the ±1 step around its own that it is valid for. */
const USED_OTP_WINDOW_MS = 3 * PERIOD_SECONDS * 1000;

/**
 * True when `otp` is valid for the user's `secret` ({@link isValidOtp}) and was not accepted
 * for them before (RFC 6238, 5.2: the verifier must not accept an OTP a second time after a
 * successful validation), so an intercepted or overseen code opens no second session.
 * Counted in `counters`, shared by every instance with Redis; concurrent uses: one wins.
 */
export async function acceptOtp(counters: CounterStore, userId: string, secret: string, otp: string): Promise<boolean> {
  if (!(await isValidOtp(secret, otp))) return false;
  const { count } = await counters.increment(`tfa-otp-used:${userId}:${otp}`, USED_OTP_WINDOW_MS);
  return count === 1;
}

export interface TfaSetup {
  readonly secret: string;
  readonly otpauth_url: string;
}

/**
 * POST /users/me/tfa/generate: a new secret and its otpauth URL for the user, once the
 * password is confirmed. Nothing is stored until `enableTfa`.
 */
export async function generateTfa(db: Knex, userId: string, password: string): Promise<TfaSetup> {
  const user = await findUserById(db, userId);
  if (user?.password == null || !(await verifyPassword(user.password, password))) {
    throw new InvalidCredentialsError();
  }
  if (user.tfaSecret !== null) throw new InvalidPayloadError(TFA_ALREADY_SET);
  if (user.email === null) throw new InvalidPayloadError('User must have a valid email to enable TFA');
  const secret = generateSecret({ length: SECRET_BYTES });
  const project = encodeURIComponent(await readProjectName(db));
  const label = `${project}:${encodeURIComponent(user.email)}`;
  const query = `secret=${secret}&period=${PERIOD_SECONDS}&digits=6&algorithm=SHA1&issuer=${project}`;
  return { secret, otpauth_url: `otpauth://totp/${label}?${query}` };
}

/**
 * Where TFA secrets are written, and who is told: a changed `tfa_secret` reads differently
 * (null or masked), so cached reads of svc_users must not keep the old one.
 */
export interface TfaStore {
  readonly db: Knex;
  /** DataInvalidation.changed, or a command context's purgeCache. */
  readonly changed: (collections: readonly string[]) => Promise<void>;
}

/** Sets the secret (`isFirst`: only where none is set yet); the number of users written. */
async function setTfaSecret(
  store: TfaStore,
  userId: string,
  secret: string | null,
  options: { readonly isFirst?: boolean } = {},
): Promise<number> {
  const user = UserModel.query(store.db).findById(userId);
  const updated = await (options.isFirst === true ? user.whereNull('tfa_secret') : user).patch({ tfaSecret: secret });
  if (updated > 0) await store.changed(['svc_users']);
  return updated;
}

/** POST /users/me/tfa/enable: stores `secret` once `otp` proves the authenticator has it. */
export async function enableTfa(store: TfaStore, userId: string, secret: string, otp: string): Promise<void> {
  const { db } = store;
  const user = await findUserById(db, userId);
  if (user === undefined) throw new InvalidCredentialsError();
  if (user.tfaSecret !== null) throw new InvalidPayloadError(TFA_ALREADY_SET);
  if (!(await isValidOtp(secret, otp))) throw new InvalidPayloadError(INVALID_OTP_REASON);
  // Of concurrent enables (two secrets generated), one is stored: the others are told so.
  if ((await setTfaSecret(store, userId, secret, { isFirst: true })) === 0) {
    throw new InvalidPayloadError(TFA_ALREADY_SET);
  }
}

/** POST /users/me/tfa/disable: clears the secret, proven by a current OTP. */
export async function disableTfa(store: TfaStore, userId: string, otp: string): Promise<void> {
  const user = await findUserById(store.db, userId);
  if (user === undefined) throw new InvalidCredentialsError();
  if (user.tfaSecret === null || !(await isValidOtp(user.tfaSecret, otp))) {
    throw new InvalidPayloadError(INVALID_OTP_REASON);
  }
  await setTfaSecret(store, userId, null);
}

/** POST /users/:id/tfa/disable (admin): clears the secret; unknown users are FORBIDDEN. */
export async function disableTfaOf(store: TfaStore, userId: string): Promise<void> {
  // PostgreSQL rejects a malformed uuid outright; it names no user either way.
  if (!isUserId(userId)) throw new ForbiddenError();
  if ((await setTfaSecret(store, userId, null)) === 0) throw new ForbiddenError();
}

async function readProjectName(db: Knex): Promise<string> {
  const row = await SettingsModel.query(db).select('project_name').first();
  return row?.projectName ?? 'Content Data Service';
}
