import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '../../../src/logger/index.js';
import { startServer, type RunningServer } from '../../../src/server.js';
import { describeEachDatabase, TEST_ADMIN, testConfig } from '../../support/server.js';
import { createNotes } from '../faults/load.js';

const ADMIN = { Authorization: `Bearer ${TEST_ADMIN.token}` };
const SCRAPER = { Authorization: 'Metrics scrape-token-2' };
const METRICS_ENV = { METRICS_ENABLED: 'true', METRICS_TOKENS: 'scrape-token-1, scrape-token-2' };

/** The value of the series `name` whose labels include `labels`, 0 when there is none. */
function valueOf(text: string, name: string, labels: Readonly<Record<string, string>> = {}): number {
  for (const line of text.split('\n')) {
    const match = /^([a-z_:]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (match === null || match[1] !== name) continue;
    const found = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([key, value]) => found[key] === value)) return Number(match[3]);
  }
  return 0;
}

async function scrape(url: string): Promise<string> {
  const res = await fetch(`${url}/server/metrics`, { headers: SCRAPER });
  expect(res.status).to.equal(200);
  expect(res.headers.get('content-type')).to.match(/^text\/plain/);
  return res.text();
}

async function errorCode(res: Response): Promise<string | undefined> {
  const body = (await res.json()) as { errors: { extensions: { code: string } }[] };
  return body.errors[0]?.extensions.code;
}

describeEachDatabase(
  'GET /server/metrics',
  (ctx) => {
    const url = () => ctx().server.url;

    it('answers a METRICS_TOKENS token or an admin; anyone else is 403 FORBIDDEN', async () => {
      for (const headers of [{}, { Authorization: 'Metrics wrong' }, { Authorization: 'Metrics scrape-token-3' }]) {
        const res = await fetch(`${url()}/server/metrics`, { headers });
        expect(res.status).to.equal(403);
        expect(await errorCode(res)).to.equal('FORBIDDEN');
      }
      const admin = await fetch(`${url()}/server/metrics`, { headers: ADMIN });
      expect(admin.status).to.equal(200);
      expect(await admin.text()).to.contain('svc_http_requests_total');
      expect(await scrape(url())).to.contain('svc_process_cpu_seconds_total');
    });

    it('counts requests of both doors by route pattern and status, with their latencies', async () => {
      await createNotes(url());
      const before = await scrape(url());
      const post = (headers: Record<string, string>) =>
        fetch(`${url()}/items/notes`, {
          method: 'POST',
          headers: { ...ADMIN, 'Content-Type': 'application/json', ...headers },
          body: JSON.stringify({ title: 'counted' }),
        });
      // A plain write (answered before Express) and one with a cookie (Express answers it).
      expect((await post({})).status).to.equal(200);
      expect((await post({ Cookie: 'unrelated=1' })).status).to.equal(200);
      // A read by id: before Express on PostgreSQL, by Express elsewhere; a conditional one always by Express.
      expect((await fetch(`${url()}/items/notes/1`, { headers: ADMIN })).status).to.equal(200);
      expect(
        (await fetch(`${url()}/items/notes/1`, { headers: { ...ADMIN, 'If-None-Match': '"x"' } })).status,
      ).to.equal(200);
      expect((await fetch(`${url()}/no/such/route`)).status).to.equal(404);
      const after = await scrape(url());

      const delta = (labels: Record<string, string>) =>
        valueOf(after, 'svc_http_requests_total', labels) - valueOf(before, 'svc_http_requests_total', labels);
      expect(delta({ method: 'POST', route: '/items/:collection', status: '200' })).to.equal(2);
      expect(delta({ method: 'GET', route: '/items/:collection/:id', status: '200' })).to.equal(2);
      expect(delta({ method: 'GET', route: '(unmatched)', status: '404' })).to.equal(1);
      const latencies = (text: string) =>
        valueOf(text, 'svc_http_request_duration_seconds_count', {
          method: 'POST',
          route: '/items/:collection',
          status: '200',
        });
      expect(latencies(after) - latencies(before)).to.equal(2);
      expect(
        valueOf(after, 'svc_http_request_duration_seconds_sum', { route: '/items/:collection' }),
      ).to.be.greaterThan(0);
      // The scrape before this one was counted too, under its own route.
      expect(valueOf(after, 'svc_http_requests_total', { route: '/server/metrics', status: '200' })).to.be.at.least(2);
      expect(
        delta({ method: 'POST', route: '/collections', status: '200' }) +
          valueOf(before, 'svc_http_requests_total', { method: 'POST', route: '/collections' }),
      ).to.equal(1);
    });

    it('reports the database pool and the job queue depth', async () => {
      const text = await scrape(url());
      expect(valueOf(text, 'svc_db_pool_max')).to.be.greaterThan(0);
      expect(text).to.match(/^svc_db_pool_connections\{state="used"\} \d+$/m);
      expect(text).to.match(/^svc_db_pool_connections\{state="free"\} \d+$/m);
      expect(text).to.match(/^svc_jobs_queue_depth\{state="waiting"\} 0$/m);
      expect(text).to.match(/^svc_jobs_queue_depth\{state="active"\} 0$/m);
    });
  },
  { env: METRICS_ENV },
);

describe('GET /server/metrics: data cache hits and misses, and the route without METRICS_ENABLED', function () {
  let dir: string | undefined;
  const servers: RunningServer[] = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-metrics-'));
    const logger = createLogger({ logLevel: 'silent', logStyle: 'raw' });
    for (const [name, env] of [
      ['cached', { ...METRICS_ENV, CACHE_ENABLED: 'true' }],
      ['off', {}],
    ] as const) {
      const database = {
        dialect: 'sqlite' as const,
        env: { DB_FILENAME: join(dir, `${name}.sqlite`) },
        drop: async () => {},
      };
      servers.push(await startServer(testConfig(database, env), { logger }));
    }
  });
  after(async () => {
    for (const server of servers) await server.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('counts each data cache lookup as a hit or a miss', async () => {
    const { url } = servers[0]!;
    await createNotes(url);
    const before = await scrape(url);
    for (let i = 0; i < 3; i += 1) {
      expect((await fetch(`${url}/items/notes?limit=1`, { headers: ADMIN })).status).to.equal(200);
    }
    const after = await scrape(url);
    const delta = (result: string) =>
      valueOf(after, 'svc_data_cache_lookups_total', { result }) -
      valueOf(before, 'svc_data_cache_lookups_total', { result });
    expect(delta('miss')).to.equal(1);
    expect(delta('hit')).to.equal(2);
  });

  it('is ROUTE_NOT_FOUND when metrics are off, even for an admin', async () => {
    const res = await fetch(`${servers[1]!.url}/server/metrics`, { headers: ADMIN });
    expect(res.status).to.equal(404);
    expect(await errorCode(res)).to.equal('ROUTE_NOT_FOUND');
  });
});
