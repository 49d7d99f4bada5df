import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { createLogger } from '../../../src/logger/index.js';
import { startServer, type RunningServer } from '../../../src/server.js';
import { TEST_ADMIN, describeEachDatabase, testConfig, type ServerContext } from '../../support/server.js';
import { createQueryFixture } from '../query/fixture-schema.js';

const APP = 'https://app.example.com';
const OTHER = 'https://evil.example.net';
const admin = { Authorization: `Bearer ${TEST_ADMIN.token}` };
const json = { ...admin, 'Content-Type': 'application/json' };
const ENV = { CORS_ENABLED: 'true', CORS_ORIGIN: `${APP},https://admin.example.com` };

/** The CORS headers of an answer, by lower-case name; absent ones left out. */
function corsHeaders(res: Response): Record<string, string> {
  const found: Record<string, string> = {};
  for (const [name, value] of res.headers) if (name.startsWith('access-control-')) found[name] = value;
  return found;
}

/** What an actual request's answer carries for an allowed origin (docs/configuration.md defaults). */
function actual(origin: string): Record<string, string> {
  return {
    'access-control-allow-origin': origin,
    'access-control-allow-credentials': 'true',
    'access-control-expose-headers': 'Content-Range,Location,X-Export-Job,Idempotent-Replayed',
  };
}

async function startWith(c: ServerContext, env: Record<string, string>, fastPath = true): Promise<RunningServer> {
  return startServer(testConfig(c.database, env), {
    logger: createLogger({ logLevel: 'silent', logStyle: 'raw' }),
    fastPath,
  });
}

/**
 * CORS_* (docs/configuration.md) through the `cors` package in request-door.ts: every answer,
 * whoever gives it (fast-path.ts or Express) and errors included, carries the headers; a
 * preflight is answered 204 before any route.
 */
describeEachDatabase(
  'http: CORS',
  (ctx) => {
    before(async () => {
      await createQueryFixture(ctx());
    });

    it('a preflight is answered 204 with the configured methods, headers, credentials and max age', async () => {
      for (const path of ['/items/articles', '/items/articles/1', '/graphql', '/auth/login', '/no/such/route']) {
        const res = await ctx().api(path, {
          method: 'OPTIONS',
          headers: { Origin: APP, 'Access-Control-Request-Method': 'PATCH', 'Access-Control-Request-Headers': 'x-a' },
        });
        expect([res.status, await res.text()], path).to.deep.equal([204, '']);
        expect(corsHeaders(res), path).to.deep.equal({
          'access-control-allow-origin': APP,
          'access-control-allow-credentials': 'true',
          'access-control-allow-methods': 'GET,POST,PATCH,DELETE',
          'access-control-allow-headers': 'Content-Type,Authorization,Idempotency-Key',
          'access-control-max-age': '18000',
          'access-control-expose-headers': 'Content-Range,Location,X-Export-Job,Idempotent-Replayed',
        });
        expect(res.headers.get('vary'), path).to.match(/\bOrigin\b/);
      }
    });

    it('a GET from an allowed origin carries the headers (each listed origin is reflected)', async () => {
      for (const origin of [APP, 'https://admin.example.com']) {
        const res = await ctx().api('/items/articles?limit=1', { headers: { ...admin, Origin: origin } });
        expect(res.status).to.equal(200);
        expect(corsHeaders(res)).to.deep.equal(actual(origin));
        expect(res.headers.get('vary')).to.equal('Origin, Cache-Control');
      }
    });

    it('writes answered before Express carry them too, errors included', async () => {
      const api = ctx().api;
      const created = await api('/items/articles', {
        method: 'POST',
        headers: { ...json, Origin: APP },
        body: '{"title":"CORS"}',
      });
      expect(created.status).to.equal(200);
      expect(corsHeaders(created)).to.deep.equal(actual(APP));
      const malformed = await api('/items/articles/1', {
        method: 'PATCH',
        headers: { ...json, Origin: APP },
        body: '{',
      });
      expect(malformed.status).to.equal(400);
      expect(corsHeaders(malformed)).to.deep.equal(actual(APP));
      const anonymous = await api('/items/articles/1', {
        method: 'PATCH',
        headers: { 'Content-Type': 'application/json', Origin: APP },
        body: '{"title":"x"}',
      });
      expect(anonymous.status).to.equal(403);
      expect(corsHeaders(anonymous)).to.deep.equal(actual(APP));
    });

    it('error answers carry them, on every route: 401, 403, 404, 405', async () => {
      const api = ctx().api;
      const origin = { Origin: APP };
      const answers: [string, Response, number][] = [
        ['bad token', await api('/items/articles', { headers: { ...origin, Authorization: 'Bearer nope' } }), 401],
        ['no permission', await api('/items/articles', { headers: origin }), 403],
        ['unknown route', await api('/no/such/route', { headers: origin }), 404],
        ['wrong method', await api('/items/articles', { method: 'PUT', headers: origin }), 405],
        [
          'graphql, bad token',
          await api('/graphql?query={__typename}', { headers: { ...origin, Authorization: 'Bearer nope' } }),
          401,
        ],
        ['asset, no permission', await api(`/assets/${randomUUID()}`, { headers: origin }), 403],
        [
          'login, wrong password',
          await api('/auth/login', {
            method: 'POST',
            headers: { ...origin, 'Content-Type': 'application/json' },
            body: JSON.stringify({ email: TEST_ADMIN.email, password: 'wrong' }),
          }),
          401,
        ],
      ];
      for (const [label, res, status] of answers) {
        expect(res.status, label).to.equal(status);
        expect(corsHeaders(res), label).to.deep.equal(actual(APP));
      }
    });

    it('an origin not listed gets no Access-Control-Allow-Origin, on a preflight or a request', async () => {
      const preflight = await ctx().api('/items/articles', {
        method: 'OPTIONS',
        headers: { Origin: OTHER, 'Access-Control-Request-Method': 'PATCH' },
      });
      expect(preflight.status).to.equal(204);
      expect(preflight.headers.get('access-control-allow-origin')).to.equal(null);
      const get = await ctx().api('/items/articles?limit=1', { headers: { ...admin, Origin: OTHER } });
      expect(get.status).to.equal(200);
      expect(get.headers.get('access-control-allow-origin')).to.equal(null);
    });

    it('an OPTIONS that is no preflight is answered by the routes, with Allow', async () => {
      const res = await ctx().api('/items/articles', { method: 'OPTIONS', headers: { Origin: APP } });
      expect([res.status, res.headers.get('allow')]).to.deep.equal([204, 'DELETE, GET, HEAD, PATCH, POST, SEARCH']);
      expect(res.headers.get('access-control-allow-origin')).to.equal(APP);
    });

    it('both ways give the same headers: a server with every request through Express', async () => {
      const viaExpress = await startWith(ctx(), ENV, false);
      try {
        const request = { method: 'PATCH', headers: { ...json, Origin: APP }, body: '{"title":"Same"}' };
        const fast = await ctx().api('/items/articles/1', request);
        const slow = await fetch(`${viaExpress.url}/items/articles/1`, request);
        expect([fast.status, corsHeaders(fast)]).to.deep.equal([slow.status, corsHeaders(slow)]);
        expect(corsHeaders(fast)).to.deep.equal(actual(APP));
      } finally {
        await viaExpress.close();
      }
    });

    it('CORS_ORIGIN=true reflects any origin, with credentials: a cookie login is readable', async () => {
      const reflecting = await startWith(ctx(), { CORS_ENABLED: 'true', CORS_ORIGIN: 'true' });
      try {
        const preflight = await fetch(`${reflecting.url}/auth/login`, {
          method: 'OPTIONS',
          headers: { Origin: OTHER, 'Access-Control-Request-Method': 'POST' },
        });
        expect(preflight.headers.get('access-control-allow-origin')).to.equal(OTHER);
        expect(preflight.headers.get('access-control-allow-credentials')).to.equal('true');
        const login = await fetch(`${reflecting.url}/auth/login`, {
          method: 'POST',
          headers: { Origin: OTHER, 'Content-Type': 'application/json' },
          body: JSON.stringify({ email: TEST_ADMIN.email, password: TEST_ADMIN.password, mode: 'cookie' }),
        });
        expect(login.status).to.equal(200);
        expect(login.headers.getSetCookie()).to.have.length.greaterThan(0);
        expect(corsHeaders(login)).to.deep.equal(actual(OTHER));
      } finally {
        await reflecting.close();
      }
    });

    it('CORS_ORIGIN=regex:... matches origins; the other settings shape the answers', async () => {
      const server = await startWith(ctx(), {
        CORS_ENABLED: 'true',
        CORS_ORIGIN: 'regex:^https://[a-z]+\\.example\\.org$',
        CORS_METHODS: 'GET,POST',
        CORS_ALLOWED_HEADERS: 'Content-Type',
        CORS_EXPOSED_HEADERS: 'Content-Range,ETag',
        CORS_CREDENTIALS: 'false',
        CORS_MAX_AGE: '60',
      });
      try {
        const preflight = await fetch(`${server.url}/items/articles`, {
          method: 'OPTIONS',
          headers: { Origin: 'https://shop.example.org', 'Access-Control-Request-Method': 'POST' },
        });
        expect(corsHeaders(preflight)).to.deep.equal({
          'access-control-allow-origin': 'https://shop.example.org',
          'access-control-allow-methods': 'GET,POST',
          'access-control-allow-headers': 'Content-Type',
          'access-control-max-age': '60',
          'access-control-expose-headers': 'Content-Range,ETag',
        });
        const other = await fetch(`${server.url}/items/articles`, {
          headers: { Origin: 'https://shop.example.org.evil' },
        });
        expect(other.headers.get('access-control-allow-origin')).to.equal(null);
      } finally {
        await server.close();
      }
    });

    it("CORS_ENABLED=false (the default): no CORS headers, and OPTIONS is the routes' Allow", async () => {
      const server = await startWith(ctx(), { CORS_ORIGIN: 'true' });
      try {
        const preflight = await fetch(`${server.url}/items/articles`, {
          method: 'OPTIONS',
          headers: { Origin: APP, 'Access-Control-Request-Method': 'PATCH' },
        });
        expect([preflight.status, preflight.headers.get('allow')]).to.deep.equal([
          204,
          'DELETE, GET, HEAD, PATCH, POST, SEARCH',
        ]);
        expect(corsHeaders(preflight)).to.deep.equal({});
        const get = await fetch(`${server.url}/items/articles?limit=1`, { headers: { ...admin, Origin: APP } });
        expect([get.status, corsHeaders(get)]).to.deep.equal([200, {}]);
        const error = await fetch(`${server.url}/items/articles`, { headers: { Origin: APP } });
        expect([error.status, corsHeaders(error)]).to.deep.equal([403, {}]);
      } finally {
        await server.close();
      }
    });
  },
  { env: ENV },
);
