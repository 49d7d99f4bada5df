import { expect } from 'chai';
import { describeEachDatabase, TEST_ADMIN } from '../support/server.js';
import { call, createCaller, dataOf } from './access/permission-helpers.js';
import { sqliteTarget } from '../support/services.js';

async function errorOf(
  res: Response,
): Promise<{ status: number; code: unknown; message: unknown; extensions: Record<string, unknown> }> {
  const body = (await res.json()) as { errors: { message: string; extensions: Record<string, unknown> }[] };
  expect(body.errors).to.be.an('array').with.length.greaterThan(0);
  const [first] = body.errors;
  return {
    status: res.status,
    code: first?.extensions['code'],
    message: first?.message,
    extensions: first?.extensions ?? {},
  };
}

describeEachDatabase('HTTP foundation', (ctx) => {
  it('GET /server/ping answers pong as text/html, even with a bad token', async () => {
    const res = await ctx().api('/server/ping', { headers: { Authorization: 'Bearer not-a-token' } });
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('text/html; charset=utf-8');
    expect(await res.text()).to.equal('pong');
  });

  it('GET /server/info gives the public project settings only', async () => {
    const res = await ctx().api('/server/info');
    expect(res.status).to.equal(200);
    expect(res.headers.get('cache-control')).to.equal('no-cache');
    const body = (await res.json()) as { data: { project: Record<string, unknown> } & Record<string, unknown> };
    expect(body.data.project['project_name']).to.equal('Content Data Service');
    expect(body.data.project['default_language']).to.equal('en-US');
    expect(body.data.project['public_registration']).to.equal(false);
    expect(body.data).not.to.have.property('version');
    expect(body.data).not.to.have.property('queryLimit');
    expect(body.data).not.to.have.property('exports');
  });

  it('GET /server/info tells administrators the default export retention (EXPORT_RETENTION), no one else', async () => {
    const admin = dataOf<Record<string, unknown>>(await call(ctx(), TEST_ADMIN.token, 'GET', '/server/info'));
    expect(admin['exports']).to.deep.equal({ retention: '7d' });
    const user = await createCaller(ctx().server.db, { app: true });
    const other = dataOf<Record<string, unknown>>(await call(ctx(), user.token, 'GET', '/server/info'));
    expect(other).to.have.property('version');
    expect(other).not.to.have.property('exports');
  });

  it('GET /server/health reports ok as application/health+json', async () => {
    const res = await ctx().api('/server/health');
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^application\/health\+json/);
    expect(await res.json()).to.deep.equal({ status: 'ok' });
  });

  it('an unknown route is 404 ROUTE_NOT_FOUND naming the path', async () => {
    const e = await errorOf(await ctx().api('/no/such/route?x=1'));
    expect(e.status).to.equal(404);
    expect(e.code).to.equal('ROUTE_NOT_FOUND');
    expect(e.message).to.equal("Route /no/such/route doesn't exist.");
    expect(e.extensions['path']).to.equal('/no/such/route');
  });

  it('malformed JSON is 400 INVALID_PAYLOAD with the parser reason', async () => {
    const res = await ctx().api('/server/info', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"a":',
    });
    const e = await errorOf(res);
    expect(e.status).to.equal(400);
    expect(e.code).to.equal('INVALID_PAYLOAD');
    expect(e.message).to.match(/^Invalid payload\. .+\.$/);
    expect(e.extensions['reason']).to.be.a('string').and.not.equal('');
  });

  it('a body in an unsupported content type is 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    const res = await ctx().api('/server/info', {
      method: 'POST',
      headers: { 'Content-Type': 'text/plain' },
      body: 'hello',
    });
    const e = await errorOf(res);
    expect(e.status).to.equal(415);
    expect(e.code).to.equal('UNSUPPORTED_MEDIA_TYPE');
    expect(e.extensions).to.include({ mediaType: 'text/plain', where: 'Content-Type header' });
  });

  it('a JSON body above MAX_PAYLOAD_SIZE is 400 INVALID_PAYLOAD', async () => {
    const res = await ctx().api('/server/info', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ big: 'x'.repeat(1024 * 1024 + 10) }),
    });
    const e = await errorOf(res);
    expect(e.status).to.equal(400);
    expect(e.code).to.equal('INVALID_PAYLOAD');
    expect(e.extensions['reason']).to.equal('request entity too large');
  });

  it('a well-formed JSON body on an unknown route still reaches ROUTE_NOT_FOUND', async () => {
    const res = await ctx().api('/nothing', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"a":1}',
    });
    expect((await errorOf(res)).code).to.equal('ROUTE_NOT_FOUND');
  });

  it('the SEARCH method reaches the router (not rejected by the HTTP parser)', async () => {
    const res = await ctx().api('/no/search/route', {
      method: 'SEARCH',
      headers: { 'Content-Type': 'application/json' },
      body: '{"query":{}}',
    });
    const e = await errorOf(res);
    expect(e.status).to.equal(404);
    expect(e.extensions['path']).to.equal('/no/search/route');
  });

  it('GET / redirects to the web console (./admin) by default', async () => {
    const res = await ctx().api('/', { redirect: 'manual' });
    expect([res.status, res.headers.get('location')]).to.deep.equal([302, './admin']);
  });

  it('GET /robots.txt disallows crawling by default', async () => {
    const res = await ctx().api('/robots.txt');
    expect(res.status).to.equal(200);
    expect(await res.text()).to.equal('User-agent: *\nDisallow: /');
  });
});

describeEachDatabase('token resolution', (ctx) => {
  it('the admin static token opens admin-only details of /server/health', async () => {
    const res = await ctx().api('/server/health', { headers: { Authorization: 'Bearer test-admin-static-token' } });
    const body = (await res.json()) as Record<string, unknown>;
    expect(body['status']).to.equal('ok');
    expect(body).to.have.property('checks');
    expect(body).to.have.property('releaseId');
  });

  it('an unknown static token is 401 INVALID_CREDENTIALS', async () => {
    const res = await ctx().api('/server/info', { headers: { Authorization: 'Bearer nobody-has-this' } });
    expect(res.status).to.equal(401);
    const body = (await res.json()) as { errors: { extensions: { code: string } }[] };
    expect(body.errors[0]?.extensions.code).to.equal('INVALID_CREDENTIALS');
  });

  it('a token in both the header and the query is 400 INVALID_PAYLOAD', async () => {
    const res = await ctx().api('/server/info?access_token=a', { headers: { Authorization: 'Bearer b' } });
    expect(res.status).to.equal(400);
    const body = (await res.json()) as { errors: { extensions: { code: string; reason: string } }[] };
    expect(body.errors[0]?.extensions.code).to.equal('INVALID_PAYLOAD');
  });

  it('an authenticated caller sees version and query limits in /server/info', async () => {
    const res = await ctx().api('/server/info?access_token=test-admin-static-token');
    const body = (await res.json()) as { data: Record<string, unknown> };
    expect(body.data['queryLimit']).to.deep.equal({ default: 100, max: -1 });
    expect(body.data['version']).to.be.a('string');
  });
});

describeEachDatabase(
  'ROOT_REDIRECT set',
  (ctx) => {
    it('GET / redirects to it', async () => {
      const res = await ctx().api('/', { redirect: 'manual' });
      expect([res.status, res.headers.get('location')]).to.deep.equal([302, '/docs']);
    });
  },
  { targets: [sqliteTarget], env: { ROOT_REDIRECT: '/docs' } },
);

describeEachDatabase(
  'ROOT_REDIRECT=false',
  (ctx) => {
    it('GET / is 404 ROUTE_NOT_FOUND', async () => {
      const res = await ctx().api('/', { redirect: 'manual' });
      expect(res.headers.get('location')).to.equal(null);
      const e = await errorOf(res);
      expect([e.status, e.code, e.message]).to.deep.equal([404, 'ROUTE_NOT_FOUND', "Route / doesn't exist."]);
    });
  },
  { targets: [sqliteTarget], env: { ROOT_REDIRECT: 'false' } },
);
