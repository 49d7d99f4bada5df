import type { CommandContext } from '../../commands/types.js';
import type { AuthProviderConfig, Config } from '../../config/index.js';
import { InvalidProviderError } from '../../errors.js';
import type { AuthContext } from '../auth-context.js';
import type { RequestOrigin } from '../../access/accountability.js';
import { assertIpAllowed } from '../ip-access.js';
import { openSession } from '../login.js';
import { assertAllowedUrl } from '../mail-link.js';
import type { TokenGrant } from '../token-grant.js';
import type { ProviderClients } from './provider-clients.js';
import { signPendingLogin, type PendingLogin } from './sso-state.js';
import { resolveSsoUser } from './sso-user.js';

/** The configured provider called `name`; any other name → 403 INVALID_PROVIDER. */
export function findProvider(config: Pick<Config, 'auth'>, name: string): AuthProviderConfig {
  const provider = config.auth.providers.find((p) => p.name === name);
  if (provider === undefined) throw new InvalidProviderError();
  return provider;
}

/** Where the provider sends the browser back: PUBLIC_URL/auth/login/<name>/callback. */
function callbackUrl(config: Pick<Config, 'publicUrl'>, provider: AuthProviderConfig): string {
  return `${config.publicUrl.replace(/\/+$/, '')}/auth/login/${encodeURIComponent(provider.name)}/callback`;
}

/**
 * GET /auth/login/:provider: the provider's authorization URL (code flow, PKCE S256, state,
 * openid nonce) and the signed pending login for the state cookie. A `redirect` must match
 * REDIRECT_ALLOW_LIST on origin and path (else 400 INVALID_PAYLOAD: never an open redirect);
 * it is kept as parsed, so what the browser is sent to is what was checked.
 */
export async function beginSsoLogin(
  ctx: Pick<AuthContext, 'config'>,
  clients: ProviderClients,
  name: string,
  redirect: string | undefined,
): Promise<{ url: string; stateCookie: string }> {
  const provider = findProvider(ctx.config, name);
  assertAllowedUrl(redirect, provider.redirectAllowList, 'log in');
  const target = redirect === undefined ? undefined : new URL(redirect).href;
  const { url, checks } = await clients.authorizationUrl(provider, callbackUrl(ctx.config, provider));
  return {
    url,
    stateCookie: signPendingLogin(ctx.config.secret, { ...checks, provider: provider.name, redirect: target }),
  };
}

/**
 * GET /auth/login/:provider/callback, once the state cookie gave `pending`: the provider's
 * answer (`query`, the callback's query string) checked and exchanged, the user found or
 * created (sso-user.ts) and a session opened exactly as password login does: cookie (or
 * session) mode when a redirect was asked for, json otherwise.
 */
export async function completeSsoLogin(
  ctx: AuthContext,
  clients: ProviderClients,
  system: CommandContext,
  pending: PendingLogin,
  query: string,
  origin: RequestOrigin,
): Promise<TokenGrant> {
  const provider = findProvider(ctx.config, pending.provider);
  const currentUrl = new URL(callbackUrl(ctx.config, provider));
  currentUrl.search = query;
  const profile = await clients.completeAuthorization(provider, currentUrl, pending);
  const user = await resolveSsoUser(ctx, system, provider, profile);
  assertIpAllowed(user.ipAccess, origin.ip);
  return openSession(ctx, user, pending.redirect === undefined ? 'json' : provider.mode, origin);
}
