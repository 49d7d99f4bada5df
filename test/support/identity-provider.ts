import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, importJWK, SignJWT, type JWK } from 'jose';
import Provider from 'oidc-provider';

/** What the provider says about one of its users (OpenID standard claims, plus `groups`). */
export interface TestAccount {
  readonly sub: string;
  readonly email?: string;
  readonly email_verified?: boolean;
  readonly given_name?: string;
  readonly family_name?: string;
  readonly groups?: readonly string[];
}

/**
 * How the ID token of the next token responses is replaced (the attack cases): `valid` is
 * the control, a token built the same way with nothing wrong, which must be accepted.
 */
export type Forgery =
  'valid' | 'other-key' | 'alg-none' | 'expired' | 'other-audience' | 'other-issuer' | 'other-nonce';

export const TEST_CLIENT = { id: 'svc-test-client', secret: 'svc-test-client-secret' } as const;

/**
 * A real OpenID provider (oidc-provider, certified) on a random loopback port, with one
 * confidential client and the accounts of `accounts`. The login page is skipped: whoever is
 * `loginAs` is logged in and consents to everything asked. Besides the provider's own
 * endpoints: GET /profile (an OAuth 2.0 profile endpoint: the claims of the access token's
 * account), and a token endpoint that, while `forgery` is set, swaps the ID token of the real
 * answer for a forged one.
 */
export class TestIdentityProvider {
  loginAs: string | undefined;
  forgery: Forgery | undefined;
  /** The `nonce` of the last authorization request (a forged ID token echoes it). */
  #lastNonce: string | undefined;

  private constructor(
    readonly issuer: string,
    readonly accounts: Map<string, TestAccount>,
    private readonly server: Server,
    private readonly provider: Provider,
    private readonly signingKey: JWK,
  ) {}

  static async start(redirectUris: readonly string[]): Promise<TestIdentityProvider> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const { privateKey } = await generateKeyPair('RS256', { extractable: true });
    const signingKey = { ...(await exportJWK(privateKey)), kid: 'test-key', alg: 'RS256', use: 'sig' };
    const accounts = new Map<string, TestAccount>();
    const provider = new Provider(issuer, {
      clients: [
        {
          client_id: TEST_CLIENT.id,
          client_secret: TEST_CLIENT.secret,
          redirect_uris: [...redirectUris],
          grant_types: ['authorization_code'],
          response_types: ['code'],
          token_endpoint_auth_method: 'client_secret_post',
        },
      ],
      jwks: { keys: [signingKey] },
      cookies: { keys: ['test-identity-provider-cookies'] },
      claims: {
        openid: ['sub'],
        email: ['email', 'email_verified'],
        profile: ['given_name', 'family_name'],
        groups: ['groups'],
      },
      scopes: ['openid', 'email', 'profile', 'groups'],
      findAccount: (_ctx: unknown, id: string) => {
        const account = accounts.get(id);
        return account === undefined ? undefined : { accountId: id, claims: () => ({ ...account }) };
      },
      features: { devInteractions: { enabled: false } },
      interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
      pkce: { required: () => true },
      // Its own store rather than oidc-provider's default one, which warns on every start.
      adapter: testAdapter(),
      ttl: { AccessToken: 600, AuthorizationCode: 60, Grant: 600, IdToken: 600, Interaction: 600, Session: 600 },
    });
    const idp = new TestIdentityProvider(issuer, accounts, server, provider, signingKey);
    const handle = provider.callback();
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      idp.route(req, res, handle).catch((error: unknown) => {
        res.statusCode = 500;
        res.end(String(error));
      });
    });
    return idp;
  }

  addAccount(input: Omit<TestAccount, 'sub'> & { sub?: string }): TestAccount {
    const account = { ...input, sub: input.sub ?? randomUUID() };
    this.accounts.set(account.sub, account);
    return account;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async route(
    req: IncomingMessage,
    res: ServerResponse,
    handle: (req: IncomingMessage, res: ServerResponse) => void,
  ): Promise<void> {
    const url = new URL(req.url ?? '/', this.issuer);
    if (url.pathname === '/auth') this.#lastNonce = url.searchParams.get('nonce') ?? undefined;
    if (url.pathname.startsWith('/interaction/')) return this.interact(req, res);
    if (url.pathname === '/profile') return this.profile(req, res);
    if (url.pathname === '/token' && this.forgery !== undefined && req.headers['x-forwarded-by-test'] === undefined) {
      return this.forgeToken(req, res, this.forgery);
    }
    handle(req, res);
  }

  /** The login and consent pages: `loginAs` logs in, everything asked is granted. */
  private async interact(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { prompt, params, session } = await this.provider.interactionDetails(req, res);
    if (prompt.name === 'login') {
      if (this.loginAs === undefined) throw new Error('no loginAs account');
      await this.provider.interactionFinished(
        req,
        res,
        { login: { accountId: this.loginAs } },
        { mergeWithLastSubmission: false },
      );
      return;
    }
    const grant = new this.provider.Grant({
      accountId: session?.accountId ?? '',
      clientId: String(params['client_id']),
    });
    const details = prompt.details as {
      missingOIDCScope?: string[];
      missingOIDCClaims?: string[];
      missingResourceScopes?: Record<string, string[]>;
    };
    if (details.missingOIDCScope !== undefined) grant.addOIDCScope(details.missingOIDCScope.join(' '));
    if (details.missingOIDCClaims !== undefined) grant.addOIDCClaims(details.missingOIDCClaims);
    for (const [indicator, scopes] of Object.entries(details.missingResourceScopes ?? {}))
      grant.addResourceScope(indicator, scopes.join(' '));
    await this.provider.interactionFinished(
      req,
      res,
      { consent: { grantId: await grant.save() } },
      { mergeWithLastSubmission: true },
    );
  }

  /** An OAuth 2.0 profile endpoint: the claims of the bearer token's account. */
  private async profile(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const token = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
    const found = token === undefined ? undefined : await this.provider.AccessToken.find(token);
    const account = found === undefined ? undefined : this.accounts.get(found.accountId);
    if (account === undefined) {
      res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'invalid_token' }));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(account));
  }

  /** The provider's real token answer with its ID token replaced by a forged one. */
  private async forgeToken(req: IncomingMessage, res: ServerResponse, forgery: Forgery): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const real = await fetch(`${this.issuer}/token`, {
      method: 'POST',
      headers: { 'content-type': req.headers['content-type'] ?? '', 'x-forwarded-by-test': '1' },
      body: Buffer.concat(chunks),
    });
    const body = (await real.json()) as Record<string, unknown>;
    if (real.ok && this.loginAs !== undefined) body['id_token'] = await this.forgeIdToken(forgery, this.loginAs);
    res
      .writeHead(real.status, { 'content-type': 'application/json', 'cache-control': 'no-store' })
      .end(JSON.stringify(body));
  }

  private async forgeIdToken(forgery: Forgery, sub: string): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    const claims = {
      nonce: forgery === 'other-nonce' ? 'not-the-nonce' : this.#lastNonce,
      ...(forgery === 'expired' ? { iat: now - 3600, exp: now - 1800 } : { iat: now, exp: now + 300 }),
    };
    const issuer = forgery === 'other-issuer' ? 'http://127.0.0.1:9/evil' : this.issuer;
    const audience = forgery === 'other-audience' ? 'another-client' : TEST_CLIENT.id;
    if (forgery === 'alg-none') {
      const encode = (value: object): string => Buffer.from(JSON.stringify(value)).toString('base64url');
      return `${encode({ alg: 'none', typ: 'JWT' })}.${encode({ ...claims, iss: issuer, aud: audience, sub })}.`;
    }
    const key =
      forgery === 'other-key' ? (await generateKeyPair('RS256')).privateKey : await importJWK(this.signingKey, 'RS256');
    return new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid: 'test-key' })
      .setIssuer(issuer)
      .setAudience(audience)
      .setSubject(sub)
      .sign(key);
  }
}

type Stored = Record<string, unknown> & { grantId?: string; uid?: string; userCode?: string; consumed?: number };

/**
 * oidc-provider's storage (its adapter interface: one instance per model), in a Map of this
 * provider: what a test provider needs, without the warning its quick-start store prints.
 */
function testAdapter(): new (model: string) => object {
  const rows = new Map<string, { value: Stored; expires: number | undefined }>();
  const live = (key: string) => {
    const row = rows.get(key);
    if (row?.expires !== undefined && row.expires < Date.now()) rows.delete(key);
    return rows.get(key)?.value;
  };
  return class {
    constructor(private readonly model: string) {}
    async upsert(id: string, value: Stored, expiresIn?: number) {
      rows.set(`${this.model}:${id}`, {
        value,
        expires: expiresIn === undefined ? undefined : Date.now() + expiresIn * 1000,
      });
    }
    async find(id: string) {
      return live(`${this.model}:${id}`);
    }
    async findByUid(uid: string) {
      return this.findBy((value) => value.uid === uid);
    }
    async findByUserCode(userCode: string) {
      return this.findBy((value) => value.userCode === userCode);
    }
    async consume(id: string) {
      const value = live(`${this.model}:${id}`);
      if (value !== undefined) value.consumed = Math.floor(Date.now() / 1000);
    }
    async destroy(id: string) {
      rows.delete(`${this.model}:${id}`);
    }
    async revokeByGrantId(grantId: string) {
      for (const [key, row] of rows) if (row.value.grantId === grantId) rows.delete(key);
    }
    private async findBy(match: (value: Stored) => boolean) {
      for (const key of rows.keys()) {
        const value = key.startsWith(`${this.model}:`) ? live(key) : undefined;
        if (value !== undefined && match(value)) return value;
      }
      return undefined;
    }
  };
}
