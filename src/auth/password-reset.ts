import { createHash } from 'node:crypto';
import { ForbiddenError } from '../errors.js';
import { SessionModel, UserModel } from '../db/models/system-models.js';
import type { AuthContext } from './auth-context.js';
import { findUserByEmail } from './auth-user.js';
import { assertAllowedUrl, linkWithToken, sendLinkMail } from './mail-link.js';
import { hashPassword } from '../access/passwords.js';
import { assertPasswordPolicy } from '../access/password-policy.js';
import { signScopedToken, verifyScopedToken } from './scoped-token.js';
import { stall } from './stall.js';

const SCOPE = 'password-reset';
const TOKEN_TTL = '1d';

/**
 * POST /auth/password/request: e-mails a reset link to
 * an active user. Unknown and inactive users get the same 204 after the same stall, and the
 * mail is sent in the background, so the answer never tells whether the address exists.
 */
export async function requestPasswordReset(
  ctx: AuthContext,
  email: string,
  resetUrl: string | undefined,
): Promise<void> {
  assertAllowedUrl(resetUrl, ctx.config.passwordResetUrlAllowList, 'reset passwords');
  const startedAt = performance.now();
  const user = await findUserByEmail(ctx.db, email);
  // A user of an SSO provider has no password here: same answer, no mail.
  if (user?.status === 'active' && user.provider === 'default' && user.email !== null) {
    const token = signScopedToken(
      ctx.config.secret,
      { email: user.email, scope: SCOPE, hash: fingerprint(user.password) },
      TOKEN_TTL,
    );
    sendLinkMail(ctx, {
      to: user.email,
      subject: 'Password Reset Request',
      intro: 'You requested to reset your password. Open this link to choose a new one.',
      label: 'Reset your password',
      link: linkWithToken(ctx.config, resetUrl, '/admin/reset-password', token),
      outro: 'If you did not ask for this, ignore this e-mail.',
    });
  }
  await stall(ctx.config.loginStallTimeMs, startedAt);
}

/**
 * POST /auth/password/reset: a valid reset token (scope, still the current password: single
 * use, concurrent uses included) for an active user sets a new password within the password
 * policy. The user's sessions end with it.
 */
export async function resetPassword(ctx: AuthContext, token: string, password: string): Promise<void> {
  const startedAt = performance.now();
  try {
    const claims = verifyScopedToken(token, ctx.config.secret, SCOPE);
    const user = await findUserByEmail(ctx.db, claims.email);
    if (user?.status !== 'active' || user.provider !== 'default' || claims['hash'] !== fingerprint(user.password))
      throw new ForbiddenError();
    await assertPasswordPolicy(ctx.db, password);
    const hash = await hashPassword(password);
    const isChanged = await ctx.db.transaction(async (trx) => {
      // Only over the password the token pins: of concurrent resets with one token, one wins.
      const unchanged = UserModel.query(trx).findById(user.id).where({ status: 'active', provider: 'default' });
      const updated = await (
        user.password === null ? unchanged.whereNull('password') : unchanged.where('password', user.password)
      ).patch({ password: hash });
      if (updated === 0) return false;
      await SessionModel.query(trx).where('user', user.id).delete();
      return true;
    });
    if (!isChanged) throw new ForbiddenError();
    // Every instance forgets the user it read: access tokens of the old password die at once.
    await ctx.invalidation.changed(['svc_users']);
  } catch (error) {
    await stall(ctx.config.loginStallTimeMs, startedAt);
    throw error;
  }
}

/** Changes whenever the password does, so a used (or outdated) token no longer matches. */
function fingerprint(passwordHash: string | null): string {
  return createHash('sha256')
    .update(passwordHash ?? '')
    .digest('hex');
}
