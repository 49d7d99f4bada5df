import { expect } from 'chai';
import { createLogger } from '../../../src/logger/index.js';
import { startServer } from '../../../src/server.js';
import { describeEachDatabase, testConfig, TEST_ADMIN } from '../../support/server.js';
import { redisUnavailable, requireOrSkip, sqliteTarget, TEST_REDIS_URL } from '../../support/services.js';
import { expectOnlyError } from '../auth/helpers.js';

type Api = (path: string, init?: RequestInit) => Promise<Response>;

// Long windows: no test depends on one ending.
// The tests name the client in X-Forwarded-For: one proxy hop (the test itself) is trusted.
const PER_IP = {
  RATE_LIMITER_ENABLED: 'true',
  RATE_LIMITER_POINTS: '3',
  RATE_LIMITER_DURATION: '600',
  IP_TRUST_PROXY: 'true',
};

// describeEachDatabase gives the suite a CACHE_NAMESPACE of its own: counters apart from other
// suites' servers on the same Redis, deleted when it ends.
const redisEnv = { ...PER_IP, REDIS: TEST_REDIS_URL, RATE_LIMITER_STORE: 'redis' };

/** A request from `ip` (with IP_TRUST_PROXY=true, X-Forwarded-For names the client). */
const from = (api: Api, ip: string, path = '/server/info') =>
  api(path, { headers: { 'X-Forwarded-For': ip, Authorization: `Bearer ${TEST_ADMIN.token}` } });

async function expectLimited(res: Response, durationSeconds: number): Promise<void> {
  const retryAfter = Number(res.headers.get('retry-after'));
  const body = await expectOnlyError(res, 429, 'REQUESTS_EXCEEDED');
  expect(retryAfter).to.be.within(1, durationSeconds);
  expect(body.errors[0]?.extensions).to.include.keys('limit', 'reset');
}

describeEachDatabase(
  'rate limiter per IP (RATE_LIMITER_*)',
  (ctx) => {
    it('answers 429 REQUESTS_EXCEEDED with Retry-After past the points of one IP', async () => {
      for (let i = 0; i < 3; i++) expect((await from(ctx().api, '10.0.0.1')).status).to.equal(200);
      const refused = await from(ctx().api, '10.0.0.1');
      await expectLimited(refused, 600);
      expect(refused.headers.get('retry-after') ?? '').to.match(/^\d+$/);
      // Every route counts, authentication included.
      await expectLimited(await from(ctx().api, '10.0.0.1', '/auth'), 600);
    });

    it('counts each IP on its own', async () => {
      for (let i = 0; i < 3; i++) expect((await from(ctx().api, '10.0.0.2')).status).to.equal(200);
      await expectLimited(await from(ctx().api, '10.0.0.2'), 600);
      expect((await from(ctx().api, '10.0.0.3')).status).to.equal(200);
    });

    it('never limits /server/ping', async () => {
      for (let i = 0; i < 5; i++) expect((await from(ctx().api, '10.0.0.1', '/server/ping')).status).to.equal(200);
    });
  },
  { targets: [sqliteTarget], env: PER_IP },
);

describeEachDatabase(
  'global rate limiter (RATE_LIMITER_GLOBAL_*)',
  (ctx) => {
    it('counts all requests together, whatever their IP', async () => {
      for (let i = 0; i < 4; i++) expect((await from(ctx().api, `10.1.0.${i}`)).status).to.equal(200);
      await expectLimited(await from(ctx().api, '10.1.0.99'), 600);
    });
  },
  {
    targets: [sqliteTarget],
    env: { RATE_LIMITER_GLOBAL_ENABLED: 'true', RATE_LIMITER_GLOBAL_POINTS: '4', RATE_LIMITER_GLOBAL_DURATION: '600' },
  },
);

describeEachDatabase(
  'rate limiter counters in Redis (RATE_LIMITER_STORE=redis)',
  (ctx) => {
    before(async function () {
      requireOrSkip(this, await redisUnavailable());
    });

    it('are shared by every instance', async () => {
      const second = await startServer(testConfig(ctx().database, ctx().env), {
        logger: createLogger({ logLevel: 'silent', logStyle: 'raw' }),
      });
      try {
        const other: Api = (path, init) => fetch(second.url + path, init);
        expect((await from(ctx().api, '10.2.0.1')).status).to.equal(200);
        expect((await from(other, '10.2.0.1')).status).to.equal(200);
        expect((await from(ctx().api, '10.2.0.1')).status).to.equal(200);
        await expectLimited(await from(other, '10.2.0.1'), 600);
        expect((await from(other, '10.2.0.2')).status).to.equal(200);
      } finally {
        await second.close();
      }
    });
  },
  { targets: [sqliteTarget], env: () => redisEnv },
);
