import { createHash } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { ForbiddenError, InvalidPayloadError, InvalidTokenError, TokenExpiredError } from '../errors.js';
import { TOKEN_ISSUER } from './access-token.js';
import type { AuthContext } from './auth-context.js';
import { findUserByEmail } from './auth-user.js';
import { hashPassword } from './passwords.js';
import { assertPasswordPolicy } from './password-policy.js';
import { stall } from './stall.js';

const SCOPE = 'password-reset';
const TOKEN_TTL = '1d';

/**
 * POST /auth/password/request (reference/auth.md, Password reset): e-mails a reset link to
 * an active user. Unknown and inactive users get the same 204 after the same stall, and the
 * mail is sent in the background, so the answer never tells whether the address exists.
 */
export async function requestPasswordReset(
  ctx: AuthContext,
  email: string,
  resetUrl: string | undefined,
): Promise<void> {
  if (resetUrl !== undefined && !isAllowedUrl(resetUrl, ctx.config.passwordResetUrlAllowList)) {
    throw new InvalidPayloadError(`URL "${resetUrl}" can't be used to reset passwords`);
  }
  const startedAt = performance.now();
  const user = await findUserByEmail(ctx.db, email);
  if (user?.status === 'active' && user.email !== null) {
    const token = jwt.sign(
      { email: user.email, scope: SCOPE, hash: fingerprint(user.password) },
      ctx.config.secret,
      { algorithm: 'HS256', expiresIn: TOKEN_TTL, issuer: TOKEN_ISSUER },
    );
    const link = withToken(resetUrl ?? `${ctx.config.publicUrl.replace(/\/+$/, '')}/admin/reset-password`, token);
    ctx.mailer
      .send({
        to: user.email,
        subject: 'Password Reset Request',
        text: `You requested to reset your password. Open this link to choose a new one:\n\n${link}\n\nIf you did not ask for this, ignore this e-mail.`,
        html: `<p>You requested to reset your password.</p><p><a href="${escapeHtml(link)}">Reset your password</a></p><p>If you did not ask for this, ignore this e-mail.</p>`,
      })
      .catch((error: unknown) => ctx.logger.error({ err: error }, 'password reset e-mail failed'));
  }
  await stall(ctx.config.loginStallTimeMs, startedAt);
}

/**
 * POST /auth/password/reset: a valid reset token (scope, still the current password: single
 * use) for an active user sets a new password within the password policy. The user's
 * sessions end with it.
 */
export async function resetPassword(ctx: AuthContext, token: string, password: string): Promise<void> {
  const startedAt = performance.now();
  try {
    const claims = verifyResetToken(token, ctx.config.secret);
    const user = typeof claims['email'] === 'string' ? await findUserByEmail(ctx.db, claims['email']) : undefined;
    if (claims['scope'] !== SCOPE || user?.status !== 'active' || claims['hash'] !== fingerprint(user.password)) {
      throw new ForbiddenError();
    }
    await assertPasswordPolicy(ctx.db, password);
    const hash = await hashPassword(password);
    await ctx.db.transaction(async (trx) => {
      await trx('svc_users').where('id', user.id).update({ password: hash });
      await trx('svc_sessions').where('user', user.id).delete();
    });
  } catch (error) {
    await stall(ctx.config.loginStallTimeMs, startedAt);
    throw error;
  }
}

/** Expired → TOKEN_EXPIRED; anything else unverifiable → INVALID_TOKEN (errors.md [DEVIATION]). */
function verifyResetToken(token: string, secret: string): jwt.JwtPayload {
  try {
    const payload = jwt.verify(token, secret, { algorithms: ['HS256'], issuer: TOKEN_ISSUER });
    if (typeof payload === 'string') throw new InvalidTokenError();
    return payload;
  } catch (error) {
    if (error instanceof jwt.TokenExpiredError) throw new TokenExpiredError();
    throw new InvalidTokenError();
  }
}

/** Changes whenever the password does, so a used (or outdated) token no longer matches. */
function fingerprint(passwordHash: string | null): string {
  return createHash('sha256').update(passwordHash ?? '').digest('hex');
}

/** reference/auth.md: a reset_url must match an allow-list entry on origin and path. */
function isAllowedUrl(url: string, allowList: readonly string[]): boolean {
  const target = parseUrl(url);
  if (target === undefined) return false;
  return allowList.some((entry) => {
    const allowed = parseUrl(entry);
    return allowed !== undefined && allowed.origin === target.origin && allowed.pathname === target.pathname;
  });
}

function parseUrl(url: string): URL | undefined {
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}

function withToken(url: string, token: string): string {
  return `${url}${url.includes('?') ? '&' : '?'}token=${encodeURIComponent(token)}`;
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
