import { validateFilter } from '../access/validate-filter.js';
import { handleCreate } from '../commands/create.js';
import { handleUpdate } from '../commands/update.js';
import type { CommandContext } from '../commands/types.js';
import { USERS_COLLECTION } from '../commands/user-rules.js';
import { SettingsModel } from '../db/models/system-models.js';
import { ForbiddenError, InvalidPayloadError } from '../errors.js';
import type { AuthContext } from './auth-context.js';
import { findUserByEmail } from './auth-user.js';
import { assertAllowedUrl, linkWithToken, sendLinkMail } from './mail-link.js';
import { countRegistrationAttempt } from './registration-limiter.js';
import { signScopedToken, verifyScopedToken } from './scoped-token.js';
import { stall } from './stall.js';

const SCOPE = 'pending-registration';
const TOKEN_TTL = '7d';

export interface Registration {
  readonly email: string;
  readonly password: string;
  /** Where the mailed link leads instead of PUBLIC_URL/users/register/verify-email. */
  readonly verificationUrl: string | undefined;
  readonly firstName: string | undefined;
  readonly lastName: string | undefined;
}

interface RegistrationSettings {
  readonly isOpen: boolean;
  readonly verifyEmail: boolean;
  readonly role: string | null;
  readonly emailFilter: unknown;
}

/**
 * POST /users/register (svc_settings' public_registration*
 * fields), written by the service in `system`'s context (audited, the caller's IP kept):
 * counted per IP (RATE_LIMITER_REGISTRATION_*); 403 unless registration is open or when the
 * address fails public_registration_email_filter; a new address becomes a user of
 * public_registration_role, `unverified` with a mailed verification link when
 * public_registration_verify_email, else `active`. A registered address answers the same
 * (after the same stall) and changes nothing; an unverified one is mailed again.
 */
export async function registerUser(
  ctx: AuthContext,
  system: CommandContext,
  registration: Registration,
): Promise<void> {
  await countRegistrationAttempt(ctx, system.accountability.ip);
  const { email, verificationUrl } = registration;
  assertAllowedUrl(verificationUrl, ctx.config.userRegisterUrlAllowList, 'verify registered users');
  const settings = await readRegistrationSettings(ctx);
  if (!settings.isOpen) throw new ForbiddenError();
  const startedAt = performance.now();
  try {
    const variables = { now: new Date(), user: null, role: null };
    if (validateFilter(settings.emailFilter, { email }, variables).length > 0) throw new ForbiddenError();
    const user = await findUserByEmail(ctx.db, email);
    if (user === undefined) {
      const data = {
        email,
        password: registration.password,
        role: settings.role,
        status: settings.verifyEmail ? 'unverified' : 'active',
        first_name: registration.firstName ?? null,
        last_name: registration.lastName ?? null,
      };
      await handleCreate({ kind: 'create', collection: USERS_COLLECTION, data: [data] }, system);
    }
    if (settings.verifyEmail && (user === undefined || user.status === 'unverified')) {
      const claims = {
        email,
        scope: SCOPE,
        ...(verificationUrl === undefined ? {} : { verification_url: verificationUrl }),
      } as const;
      sendLinkMail(ctx, {
        to: email,
        subject: 'Verify your email address',
        intro: 'Thanks for registering. Open this link to verify your e-mail address.',
        label: 'Verify your e-mail address',
        link: linkWithToken(
          ctx.config,
          verificationUrl,
          '/users/register/verify-email',
          signScopedToken(ctx.config.secret, claims, TOKEN_TTL),
        ),
        outro: 'If you did not register, ignore this e-mail.',
      });
    }
  } finally {
    await stall(ctx.config.loginStallTimeMs, startedAt);
  }
}

/**
 * GET /users/register/verify-email: a registration token (scope `pending-registration`, else
 * FORBIDDEN) of a user still `unverified` makes them active (INVALID_PAYLOAD otherwise).
 * Returns the verification_url given at registration, if any (where the route redirects).
 */
export async function verifyRegistration(
  ctx: AuthContext,
  system: CommandContext,
  token: string,
): Promise<string | undefined> {
  const claims = verifyScopedToken(token, ctx.config.secret, SCOPE);
  const user = await findUserByEmail(ctx.db, claims.email);
  if (user?.status !== 'unverified') throw new InvalidPayloadError('Invalid verification code');
  await handleUpdate(
    { kind: 'update', collection: USERS_COLLECTION, keys: [user.id], data: { status: 'active' } },
    system,
  );
  const url = claims['verification_url'];
  return typeof url === 'string' ? url : undefined;
}

async function readRegistrationSettings(ctx: AuthContext): Promise<RegistrationSettings> {
  const row = await SettingsModel.query(ctx.db)
    .select(
      'public_registration',
      'public_registration_verify_email',
      'public_registration_role',
      'public_registration_email_filter',
    )
    .first();
  // No settings row: the column defaults.
  return {
    isOpen: row?.publicRegistration ?? false,
    verifyEmail: row?.publicRegistrationVerifyEmail ?? true,
    role: row?.publicRegistrationRole ?? null,
    emailFilter: row?.publicRegistrationEmailFilter ?? null,
  };
}
