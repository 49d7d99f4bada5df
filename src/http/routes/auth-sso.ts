import { Router, type CookieOptions, type Request } from 'express';
import { publicAccountability, serviceAccountability } from '../../access/accountability.js';
import type { AuthContext } from '../../auth/auth-context.js';
import { ProviderClients } from '../../auth/providers/provider-clients.js';
import { beginSsoLogin, completeSsoLogin, findProvider } from '../../auth/providers/sso-login.js';
import { SSO_STATE_COOKIE, SSO_STATE_TTL_MS, takePendingLogin } from '../../auth/providers/sso-state.js';
import { commandContext, type CommandContextDeps } from '../../commands/command-context.js';
import type { Config } from '../../config/index.js';
import { InvalidPayloadError, ServiceError } from '../../errors.js';
import type { SchemaCache } from '../../cache/schema-cache.js';
import { readCookie, requestOrigin } from '../accountability.js';
import { applyGrant } from './auth.js';

export interface SsoRouteDeps extends CommandContextDeps {
  readonly auth: AuthContext;
  readonly schema: Pick<SchemaCache, 'getOverview' | 'invalidate'>;
}

/**
 * Single sign-on under /auth: GET /auth/login/:provider sends the browser to the provider with a signed
 * state cookie; GET /auth/login/:provider/callback finishes the login. Public, mounted
 * before the accountability middleware like the other auth routes.
 */
export function ssoRoutes(deps: SsoRouteDeps): Router {
  const { config } = deps.auth;
  const clients = new ProviderClients(deps.auth.logger);
  const router = Router();

  router.get('/login/:provider', async (req, res) => {
    const name = req.params['provider'];
    const { url, stateCookie } = await beginSsoLogin(deps.auth, clients, name, readRedirect(req));
    res.cookie(SSO_STATE_COOKIE, stateCookie, { ...stateCookieOptions(config, name), maxAge: SSO_STATE_TTL_MS });
    res.redirect(url);
  });

  router.get('/login/:provider/callback', async (req, res) => {
    const provider = findProvider(config, req.params['provider']);
    // One callback per state cookie, whatever its outcome.
    res.clearCookie(SSO_STATE_COOKIE, stateCookieOptions(config, provider.name));
    const pending = await takePendingLogin(
      config.secret,
      deps.auth.counters,
      readCookie(req, SSO_STATE_COOKIE),
      provider.name,
    );
    try {
      const origin = requestOrigin(config, req);
      const system = await commandContext(
        deps,
        serviceAccountability(publicAccountability(origin)),
        await deps.schema.getOverview(),
      );
      const query = req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?')) : '';
      const data = applyGrant(res, config, await completeSsoLogin(deps.auth, clients, system, pending, query, origin));
      if (pending.redirect === undefined) res.json({ data });
      else res.redirect(pending.redirect);
    } catch (error) {
      // The app that asked for the login hears why it failed, as `?reason=<code>`.
      if (pending.redirect === undefined || !(error instanceof ServiceError)) throw error;
      const target = new URL(pending.redirect);
      target.searchParams.set('reason', error.code);
      res.redirect(target.href);
    }
  });

  return router;
}

function readRedirect(req: Request): string | undefined {
  const redirect = req.query['redirect'];
  if (redirect === undefined) return undefined;
  if (typeof redirect !== 'string') throw new InvalidPayloadError('"redirect" must be a string');
  return redirect;
}

/** The state cookie goes back to this provider's callback only, and only over https when PUBLIC_URL is. */
function stateCookieOptions(config: Config, provider: string): CookieOptions {
  return {
    httpOnly: true,
    path: `/auth/login/${encodeURIComponent(provider)}`,
    secure: config.publicUrl.startsWith('https:'),
    // The provider's redirect back is a top-level GET: Lax cookies go with it.
    sameSite: 'lax',
  };
}
