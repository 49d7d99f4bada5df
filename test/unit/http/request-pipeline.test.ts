import { expect } from 'chai';
import type { IncomingMessage } from 'node:http';
import type { Knex } from 'knex';
import type { AuthUser } from '../../../src/auth/auth-user.js';
import { loadConfig } from '../../../src/config/index.js';
import { InvalidPayloadError } from '../../../src/errors.js';
import {
  authenticateRequest,
  mayNameParameter,
  requestParams,
  requestQuery,
  requestSearch,
  type AuthenticateDeps,
} from '../../../src/http/request-pipeline.js';

const NO_FILE = { defaultConfigPath: '/nonexistent/.env' };
const config = loadConfig({}, NO_FILE);
const COOKIE = config.sessionCookie.name;

function user(id: string): AuthUser {
  return {
    id,
    email: null,
    password: null,
    status: 'active',
    provider: 'default',
    tfaSecret: null,
    role: null,
    adminAccess: false,
    appAccess: false,
    ipAccess: null,
  };
}

/** Static tokens `token-<id>` of active users; every lookup is counted. */
function lookups(): { deps: AuthenticateDeps; looked: string[] } {
  const looked: string[] = [];
  const users = {
    userById: () => Promise.resolve(undefined),
    userByStaticToken: (token: string) => {
      looked.push(token);
      return Promise.resolve(token.startsWith('token-') ? user(token.slice('token-'.length)) : undefined);
    },
  };
  return { deps: { config, db: {} as Knex, auth: { users } }, looked };
}

function request(url: string, headers: Record<string, string> = {}): IncomingMessage {
  return { url, headers, socket: { remoteAddress: '127.0.0.1' } } as unknown as IncomingMessage;
}

describe('the request pipeline: authenticate and parse, once per request (http/request-pipeline.ts)', () => {
  it('authenticates a request once, whoever asks (the fast path, then the Express middleware)', async () => {
    const { deps, looked } = lookups();
    const req = request('/items/a', { authorization: 'Bearer token-1' });
    const first = authenticateRequest(deps, req);
    const second = authenticateRequest(deps, req);
    expect(second).to.equal(first);
    expect((await second).user).to.equal('1');
    expect(looked).to.deep.equal(['token-1']);
    // Another request is another caller.
    expect((await authenticateRequest(deps, request('/items/a'))).user).to.equal(null);
  });

  it('reads the token from the query string (also percent-encoded), the bearer header or the session cookie', async () => {
    const { deps } = lookups();
    const userOf = async (url: string, headers: Record<string, string> = {}) =>
      (await authenticateRequest(deps, request(url, headers))).user;
    expect(await userOf('/items/a?access_token=token-2')).to.equal('2');
    expect(await userOf('/items/a?fields=id&access%5Ftoken=token-3')).to.equal('3');
    expect(await userOf('/items/a', { cookie: `${COOKIE}=token-4; other=x` })).to.equal('4');
    // The header wins over the cookie; the query token's array form is no token.
    expect(await userOf('/items/a', { authorization: 'Bearer token-5', cookie: `${COOKIE}=token-4` })).to.equal('5');
    expect(await userOf('/items/a?access_token[]=token-6')).to.equal(null);
  });

  it('refuses a token in both the query string and the header, to every asker alike', async () => {
    const { deps, looked } = lookups();
    const req = request('/items/a?access_token=token-1', { authorization: 'Bearer token-2' });
    for (let i = 0; i < 2; i += 1) {
      const error: unknown = await authenticateRequest(deps, req).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).to.be.instanceOf(InvalidPayloadError);
    }
    expect(looked).to.deep.equal([]);
  });

  it('parses the query string once, from the URL as the client sent it (Express rewrites req.url)', () => {
    const req = request('/articles?fields=id,title&limit=2');
    (req as { originalUrl?: string }).originalUrl = '/items/articles?fields=id,title&limit=2';
    req.url = '/?fields=id,title&limit=2';
    expect(requestSearch(req)).to.equal('?fields=id,title&limit=2');
    const query = requestQuery(req);
    expect(query.fields).to.deep.equal(['id', 'title']);
    expect(query.limit).to.equal(2);
    expect(requestQuery(req)).to.equal(query);
    expect(requestParams(req)).to.equal(requestParams(req));
    expect(requestParams(request('/items/a?as%5Fof=2024-01-01'))['as_of']).to.equal('2024-01-01');
  });

  it('looks for a parameter without parsing only where it cannot be there', () => {
    expect(mayNameParameter('', ['as_of'])).to.equal(false);
    expect(mayNameParameter('?fields=id%2Ctitle', ['as_of'])).to.equal(false);
    expect(mayNameParameter('?as_of=1', ['as_of'])).to.equal(true);
    expect(mayNameParameter('?as%5Fof=1', ['as_of'])).to.equal(true);
    expect(mayNameParameter('?%ZZ=1', ['as_of'])).to.equal(false);
  });
});
