import { expect } from 'chai';
import { TEST_ADMIN, describeEachDatabase } from '../../support/server.js';
import { servedRoutes } from '../../support/served-routes.js';
import { createQueryFixture } from '../query/fixture-schema.js';

const admin = { Authorization: `Bearer ${TEST_ADMIN.token}` };
const json = { ...admin, 'Content-Type': 'application/json' };

interface MethodError {
  readonly status: number;
  readonly allow: string | null;
  readonly errors: { message: string; extensions: Record<string, unknown> }[];
}

async function answerOf(res: Response): Promise<MethodError> {
  const text = await res.text();
  const body = text === '' ? { errors: [] } : (JSON.parse(text) as Pick<MethodError, 'errors'>);
  return { status: res.status, allow: res.headers.get('allow'), errors: body.errors };
}

/** A served path with its parameters filled in: `/items/{collection}/{id}` → `/items/x1/x1`. */
function concrete(path: string): string {
  return path.replace(/\{\*\w+\}/g, 'x1/x2').replace(/\{\w+\}/g, 'x1');
}

/**
 * docs/errors.md: a route that exists but not for the method is 405 METHOD_NOT_ALLOWED with
 * `Allow`; OPTIONS lists the same methods. Both come from the app's own routes
 * (src/http/route-methods.ts), including the writes fast-path.ts answers before Express.
 */
describeEachDatabase('http: Allow, OPTIONS and METHOD_NOT_ALLOWED', (ctx) => {
  before(async () => {
    await createQueryFixture(ctx());
  });

  const ITEMS = 'DELETE, GET, HEAD, PATCH, POST, SEARCH';
  const ITEM = 'DELETE, GET, HEAD, PATCH';

  it('PUT /items/articles is 405 with Allow listing the methods the collection route takes', async () => {
    const answer = await answerOf(await ctx().api('/items/articles', { method: 'PUT', headers: json, body: '{}' }));
    expect([answer.status, answer.allow]).to.deep.equal([405, ITEMS]);
    expect(answer.errors).to.deep.equal([
      {
        message: 'Invalid method "PUT" used. Should be one of "DELETE", "GET", "HEAD", "PATCH", "POST", "SEARCH".',
        extensions: { current: 'PUT', allowed: ITEMS.split(', '), code: 'METHOD_NOT_ALLOWED' },
      },
    ]);
  });

  it('PUT and POST /items/articles/1 are 405 with the item route methods', async () => {
    for (const method of ['PUT', 'POST']) {
      const answer = await answerOf(await ctx().api('/items/articles/1', { method, headers: json, body: '{}' }));
      expect([answer.status, answer.allow, answer.errors[0]?.extensions['code']], method).to.deep.equal([
        405,
        ITEM,
        'METHOD_NOT_ALLOWED',
      ]);
    }
  });

  it('OPTIONS lists every method that works, the writes included', async () => {
    for (const [path, allow] of [
      ['/items/articles', ITEMS],
      ['/items/articles/1', ITEM],
      ['/users/me', 'GET, HEAD, PATCH'],
      ['/server/ping', 'GET, HEAD'],
      ['/auth/login', 'POST'],
    ] as const) {
      const res = await ctx().api(path, { method: 'OPTIONS' });
      expect([res.status, res.headers.get('allow'), await res.text()], path).to.deep.equal([204, allow, '']);
    }
  });

  it('the listed methods work', async () => {
    const api = ctx().api;
    const created = await api('/items/articles', { method: 'POST', headers: json, body: '{"title":"Allow"}' });
    expect(created.status).to.equal(200);
    const { id } = ((await created.json()) as { data: { id: number } }).data;
    const answers = [
      await api(`/items/articles/${String(id)}`, { method: 'HEAD', headers: admin }),
      await api(`/items/articles/${String(id)}`, { method: 'PATCH', headers: json, body: '{"title":"A"}' }),
      await api('/items/articles', { method: 'SEARCH', headers: json, body: '{"query":{"limit":1}}' }),
      await api(`/items/articles/${String(id)}`, { method: 'DELETE', headers: admin }),
    ];
    expect(answers.map((r) => r.status)).to.deep.equal([200, 200, 200, 204]);
  });

  it('an unknown path stays 404 ROUTE_NOT_FOUND, whatever the method', async () => {
    for (const method of ['GET', 'PUT', 'OPTIONS']) {
      const answer = await answerOf(await ctx().api('/no/such/route', { method, headers: admin }));
      expect([answer.status, answer.allow, answer.errors[0]?.extensions['code']], method).to.deep.equal([
        404,
        null,
        'ROUTE_NOT_FOUND',
      ]);
    }
  });

  it('GraphQL keeps its own methods: OPTIONS lists them, others are 405', async () => {
    const options = await ctx().api('/graphql', { method: 'OPTIONS' });
    expect([options.status, options.headers.get('allow')]).to.deep.equal([204, 'GET, POST']);
    const put = await answerOf(await ctx().api('/graphql/system', { method: 'PUT', headers: json, body: '{}' }));
    expect([put.status, put.allow]).to.deep.equal([405, 'GET, POST']);
  });

  it('at every served route, OPTIONS lists its method and a method not listed is 405 with that Allow', async () => {
    const routes = servedRoutes(ctx().server.app).filter((r) => r.method !== 'all');
    expect(routes.length).to.be.greaterThan(100);
    const byPath = new Map<string, Set<string>>();
    for (const route of routes) {
      const path = concrete(route.path);
      byPath.set(path, (byPath.get(path) ?? new Set()).add(route.method.toUpperCase()));
    }
    const problems: string[] = [];
    for (const [path, methods] of byPath) {
      const options = await ctx().api(path, { method: 'OPTIONS' });
      const allow = options.headers.get('allow');
      const listed = allow?.split(', ') ?? [];
      const missing = [...methods].filter((m) => !listed.includes(m));
      if (options.status !== 204 || missing.length > 0) problems.push(`OPTIONS ${path}: ${options.status} ${allow}`);
      if (listed.includes('PUT') || path.startsWith('/graphql')) continue;
      const put = await ctx().api(path, { method: 'PUT', headers: json, body: '{}' });
      if (put.status !== 405 || put.headers.get('allow') !== allow)
        problems.push(`PUT ${path}: ${put.status} ${put.headers.get('allow')}`);
    }
    expect(problems).to.deep.equal([]);
  });
});
