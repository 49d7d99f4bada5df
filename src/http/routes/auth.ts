import { Router, type CookieOptions, type Request, type Response } from 'express';
import { verifyAccessToken } from '../../auth/access-token.js';
import type { AuthContext } from '../../auth/auth-context.js';
import { login } from '../../auth/login.js';
import { requestPasswordReset, resetPassword } from '../../auth/password-reset.js';
import { refresh } from '../../auth/refresh.js';
import { deleteSession } from '../../auth/sessions.js';
import { AUTH_MODES, type AuthMode, type TokenGrant } from '../../auth/token-grant.js';
import type { Config } from '../../config/index.js';
import { InvalidPayloadError, InvalidTokenError } from '../../errors.js';
import { readCookie, requestOrigin } from '../accountability.js';
import { readBody, readEmail, readOptionalString, readRequiredString } from '../payload.js';

// Joi's wording, as the convention's clients see it.
const MODE_REASON = `"mode" must be one of [${AUTH_MODES.join(', ')}]`;
const MISSING_REFRESH_TOKEN = 'The refresh token is required in either the payload or cookie';

/**
 * /auth. Mounted before the
 * accountability middleware: every auth route is public, and a stale or expired token sent
 * along must not stand in the way of logging in or refreshing.
 */
export function authRoutes(ctx: AuthContext): Router {
  const { config } = ctx;
  const router = Router();

  router.get('/', (_req, res) => {
    res.json({
      data: config.auth.providers.map((p) => ({
        name: p.name,
        driver: p.driver,
        ...(p.icon === undefined ? {} : { icon: p.icon }),
        ...(p.label === undefined ? {} : { label: p.label }),
      })),
      disableDefault: config.auth.disableDefault,
    });
  });

  // AUTH_DISABLE_DEFAULT turns /auth/login into ROUTE_NOT_FOUND.
  if (!config.auth.disableDefault) {
    router.post('/login', async (req, res) => {
      res.json({ data: await loginFrom(ctx, req, res, readBody(req)) });
    });
  }

  router.post('/refresh', async (req, res) => {
    res.json({ data: await refreshFrom(ctx, req, res, readBody(req)) });
  });

  router.post('/password/request', async (req, res) => {
    await passwordRequestFrom(ctx, readBody(req));
    res.status(204).end();
  });

  router.post('/password/reset', async (req, res) => {
    await passwordResetFrom(ctx, readBody(req));
    res.status(204).end();
  });

  router.post('/logout', async (req, res) => {
    await logoutFrom(ctx, req, res, readBody(req));
    res.status(204).end();
  });

  return router;
}

/*
 * The auth operations on a request body, shared by the routes above and GraphQL's auth
 * mutations: same checks, same errors, cookies set on `res`; each
 * login or refresh answers the token response's `data`.
 */

/**
 * How a login reads a malformed e-mail: `refuse` (POST /auth/login: 400 INVALID_PAYLOAD
 * naming it) or `unknown` (GraphQL's auth_login, as Directus answers it:
 * an e-mail no user has, so 401 INVALID_CREDENTIALS after the same stall, no hint which part
 * was wrong).
 */
export type MalformedEmail = 'refuse' | 'unknown';

export async function loginFrom(
  ctx: AuthContext,
  req: Request,
  res: Response,
  body: Record<string, unknown>,
  malformedEmail: MalformedEmail = 'refuse',
): Promise<GrantData> {
  const email = body['email'];
  const credentials = {
    email: malformedEmail === 'unknown' && typeof email === 'string' ? email : readEmail(body),
    password: readRequiredString(body, 'password'),
    otp: readOptionalString(body, 'otp'),
  };
  const mode = readMode(body) ?? 'json';
  return applyGrant(res, ctx.config, await login(ctx, credentials, mode, requestOrigin(ctx.config, req)));
}

export async function refreshFrom(
  ctx: AuthContext,
  req: Request,
  res: Response,
  body: Record<string, unknown>,
): Promise<GrantData> {
  const mode = resolveMode(body);
  const token = readRefreshToken(req, body, mode, ctx.config);
  return applyGrant(res, ctx.config, await refresh(ctx, token, mode, requestOrigin(ctx.config, req)));
}

export async function logoutFrom(
  ctx: AuthContext,
  req: Request,
  res: Response,
  body: Record<string, unknown>,
): Promise<void> {
  const mode = resolveMode(body);
  let token: string | undefined;
  try {
    token = readRefreshToken(req, body, mode, ctx.config);
  } catch (error) {
    // An unknown token still logs out. A session cookie that no longer
    // verifies (signed with a former SECRET) names no session, and is cleared, not left to
    // make every request of the browser 403 INVALID_TOKEN.
    if (!(mode === 'session' && error instanceof InvalidTokenError)) throw error;
  }
  if (token !== undefined) await deleteSession(ctx.db, token);
  res.clearCookie(ctx.config.refreshTokenCookie.name, refreshCookieOptions(ctx.config));
  res.clearCookie(ctx.config.sessionCookie.name, sessionCookieOptions(ctx.config));
}

export async function passwordRequestFrom(ctx: AuthContext, body: Record<string, unknown>): Promise<void> {
  const email = readEmail(body);
  await requestPasswordReset(ctx, email, readOptionalString(body, 'reset_url'));
}

export async function passwordResetFrom(ctx: AuthContext, body: Record<string, unknown>): Promise<void> {
  const token = readRequiredString(body, 'token');
  await resetPassword(ctx, token, readRequiredString(body, 'password'));
}

/** The token response's `data`. */
export interface GrantData {
  readonly access_token?: string;
  readonly expires: number;
  readonly refresh_token?: string;
}

/** The token response by mode; its cookie set on `res`. */
export function applyGrant(res: Response, config: Config, grant: TokenGrant): GrantData {
  switch (grant.mode) {
    case 'json':
      return { access_token: grant.accessToken, expires: grant.expires, refresh_token: grant.refreshToken };
    case 'cookie':
      res.cookie(config.refreshTokenCookie.name, grant.refreshToken, {
        ...refreshCookieOptions(config),
        maxAge: config.refreshTokenTtlMs,
      });
      return { access_token: grant.accessToken, expires: grant.expires };
    case 'session':
      res.cookie(config.sessionCookie.name, grant.accessToken, {
        ...sessionCookieOptions(config),
        maxAge: config.sessionCookie.ttlMs,
      });
      return { expires: grant.expires };
  }
}

function refreshCookieOptions(config: Config): CookieOptions {
  const { domain, secure, sameSite } = config.refreshTokenCookie;
  return { httpOnly: true, path: '/', secure, sameSite, ...(domain === undefined ? {} : { domain }) };
}

function sessionCookieOptions(config: Config): CookieOptions {
  const { domain, secure, sameSite } = config.sessionCookie;
  return { httpOnly: true, path: '/', secure, sameSite, ...(domain === undefined ? {} : { domain }) };
}

/** Refresh: body.mode, else json when the body has the token, else cookie. */
function resolveMode(body: Record<string, unknown>): AuthMode {
  return readMode(body) ?? (body['refresh_token'] !== undefined ? 'json' : 'cookie');
}

function readRefreshToken(req: Request, body: Record<string, unknown>, mode: AuthMode, config: Config): string {
  const token =
    mode === 'json'
      ? readOptionalString(body, 'refresh_token')
      : mode === 'cookie'
        ? readCookie(req, config.refreshTokenCookie.name)
        : readSessionOfCookie(req, config);
  if (token === undefined || token === '') throw new InvalidPayloadError(MISSING_REFRESH_TOKEN);
  return token;
}

/** Session mode: the session is named inside the session cookie's access token. */
function readSessionOfCookie(req: Request, config: Config): string | undefined {
  const cookie = readCookie(req, config.sessionCookie.name);
  if (cookie === undefined) return undefined;
  return verifyAccessToken(cookie, config.secret, { ignoreExpiration: true }).session;
}

function readMode(body: Record<string, unknown>): AuthMode | undefined {
  const mode = body['mode'];
  if (mode === undefined) return undefined;
  if (!(AUTH_MODES as readonly unknown[]).includes(mode)) throw new InvalidPayloadError(MODE_REASON);
  return mode as AuthMode;
}
