import { expect } from 'chai';
import { setTimeout as sleep } from 'node:timers/promises';
import { createGuardrails, generate } from 'otplib';
import { startServer } from '../../../src/server.js';
import { createLogger } from '../../../src/logger/index.js';
import { dropNamespace, testNamespace } from '../../support/redis-namespace.js';
import { describeEachDatabase, testConfig } from '../../support/server.js';
import { redisUnavailable, requireOrSkip, TEST_REDIS_URL } from '../../support/services.js';
import { createUser, expectOnlyError, postJson } from './helpers.js';

// The tests name the client in X-Forwarded-For: one proxy hop (the test itself) is trusted.
const LIMITED = {
  LOGIN_STALL_TIME: '0',
  RATE_LIMITER_LOGIN_POINTS: '3',
  RATE_LIMITER_LOGIN_DURATION: '60',
  IP_TRUST_PROXY: 'true',
};

type Api = (path: string, init?: RequestInit) => Promise<Response>;

const loginFrom = (api: Api, ip: string, email: string, password: string, extra: Record<string, unknown> = {}) =>
  postJson(api, '/auth/login', { email, password, ...extra }, { 'X-Forwarded-For': ip });

async function failTimes(api: Api, ip: string, email: string, times: number): Promise<void> {
  for (let i = 0; i < times; i++) {
    await expectOnlyError(await loginFrom(api, ip, email, 'wrong-password'), 401, 'INVALID_CREDENTIALS');
  }
}

describeEachDatabase(
  'login limiter per (account, IP)',
  (ctx) => {
    it('after the allowed failures, the next attempt is 429 REQUESTS_EXCEEDED with Retry-After, even with the right password', async () => {
      const user = await createUser(ctx().server.db);
      await failTimes(ctx().api, '198.51.100.1', user.email, 3);
      const res = await loginFrom(ctx().api, '198.51.100.1', user.email, user.password);
      const error = await expectOnlyError(res, 429, 'REQUESTS_EXCEEDED');
      const retryAfter = Number(res.headers.get('retry-after'));
      expect(retryAfter).to.be.within(50, 60);
      expect(error.errors[0]?.message).to.equal(`Too many requests, retry after ${retryAfter}s.`);
      expect(error.errors[0]?.extensions['limit']).to.equal(3);
      expect(Date.parse(error.errors[0]?.extensions['reset'] as string)).to.be.greaterThan(Date.now() - 1000);
      expect(await ctx().server.db('svc_sessions').where('user', user.id)).to.have.length(0);
    });

    it('does not lock out the same account from another IP, nor other accounts from the same IP', async () => {
      const victim = await createUser(ctx().server.db);
      const neighbour = await createUser(ctx().server.db);
      await failTimes(ctx().api, '198.51.100.2', victim.email, 3);
      await expectOnlyError(
        await loginFrom(ctx().api, '198.51.100.2', victim.email, victim.password),
        429,
        'REQUESTS_EXCEEDED',
      );
      expect((await loginFrom(ctx().api, '198.51.100.3', victim.email, victim.password)).status).to.equal(200);
      expect((await loginFrom(ctx().api, '198.51.100.2', neighbour.email, neighbour.password)).status).to.equal(200);
    });

    it('counts unknown accounts the same way (existence is not revealed)', async () => {
      await failTimes(ctx().api, '198.51.100.4', 'no-such-user@example.com', 3);
      await expectOnlyError(
        await loginFrom(ctx().api, '198.51.100.4', 'no-such-user@example.com', 'x'),
        429,
        'REQUESTS_EXCEEDED',
      );
    });

    it('the e-mail is matched case-insensitively', async () => {
      const user = await createUser(ctx().server.db);
      await failTimes(ctx().api, '198.51.100.5', user.email.toUpperCase(), 3);
      await expectOnlyError(
        await loginFrom(ctx().api, '198.51.100.5', user.email, user.password),
        429,
        'REQUESTS_EXCEEDED',
      );
    });

    it('a success clears the count', async () => {
      const user = await createUser(ctx().server.db);
      await failTimes(ctx().api, '198.51.100.6', user.email, 2);
      expect((await loginFrom(ctx().api, '198.51.100.6', user.email, user.password)).status).to.equal(200);
      await failTimes(ctx().api, '198.51.100.6', user.email, 2);
      expect((await loginFrom(ctx().api, '198.51.100.6', user.email, user.password)).status).to.equal(200);
    });

    it('wrong one-time passwords count too', async () => {
      const secret = 'JBSWY3DPEHPK3PXP';
      const user = await createUser(ctx().server.db, { tfa_secret: secret });
      const current = await generate({ secret, guardrails: createGuardrails({ MIN_SECRET_BYTES: 10 }) });
      const wrong = current === '000000' ? '000001' : '000000';
      for (let i = 0; i < 3; i++) {
        await expectOnlyError(
          await loginFrom(ctx().api, '198.51.100.7', user.email, user.password, { otp: wrong }),
          401,
          'INVALID_OTP',
        );
      }
      await expectOnlyError(
        await loginFrom(ctx().api, '198.51.100.7', user.email, user.password, { otp: current }),
        429,
        'REQUESTS_EXCEEDED',
      );
    });
  },
  { env: LIMITED },
);

describeEachDatabase(
  'login limiter window (RATE_LIMITER_LOGIN_DURATION)',
  (ctx) => {
    it('lets the caller try again once the window has passed', async () => {
      // Unknown accounts fail fast (no password hash to check), well inside the short window.
      const email = `gone-${Date.now()}@example.com`;
      for (let i = 0; i < 3; i++) await loginFrom(ctx().api, '198.51.100.8', email, 'x');
      const blocked = await loginFrom(ctx().api, '198.51.100.8', email, 'x');
      expect(blocked.status).to.equal(429);
      expect(Number(blocked.headers.get('retry-after'))).to.be.within(1, 2);
      await sleep(2100);
      await expectOnlyError(await loginFrom(ctx().api, '198.51.100.8', email, 'x'), 401, 'INVALID_CREDENTIALS');
    });
  },
  { env: { ...LIMITED, RATE_LIMITER_LOGIN_DURATION: '2' } },
);

describeEachDatabase(
  'login limiter disabled (RATE_LIMITER_LOGIN_ENABLED=false)',
  (ctx) => {
    it('never answers 429', async () => {
      await ctx().server.db('svc_settings').update({ auth_login_attempts: null });
      const user = await createUser(ctx().server.db);
      await failTimes(ctx().api, '198.51.100.9', user.email, 5);
      expect((await loginFrom(ctx().api, '198.51.100.9', user.email, user.password)).status).to.equal(200);
    });
  },
  { env: { ...LIMITED, RATE_LIMITER_LOGIN_ENABLED: 'false' } },
);

describeEachDatabase(
  'login limiter in Redis, shared by instances',
  (ctx) => {
    before(async function () {
      requireOrSkip(this, await redisUnavailable());
    });

    it('failures on one instance are refused on another', async () => {
      const second = await startServer(testConfig(ctx().database, ctx().env), {
        logger: createLogger({ logLevel: 'silent', logStyle: 'raw' }),
      });
      try {
        const api: Api = (path, init) => fetch(second.url + path, init);
        const user = await createUser(ctx().server.db);
        await failTimes(ctx().api, '198.51.100.10', user.email, 3);
        await expectOnlyError(
          await loginFrom(api, '198.51.100.10', user.email, user.password),
          429,
          'REQUESTS_EXCEEDED',
        );
        expect((await loginFrom(api, '198.51.100.11', user.email, user.password)).status).to.equal(200);
      } finally {
        await second.close();
      }
    });

    it('another deployment on the same Redis (its own CACHE_NAMESPACE) keeps its own counters', async () => {
      const namespace = testNamespace('test');
      const other = await startServer(testConfig(ctx().database, { ...ctx().env, CACHE_NAMESPACE: namespace }), {
        logger: createLogger({ logLevel: 'silent', logStyle: 'raw' }),
      });
      try {
        const api: Api = (path, init) => fetch(other.url + path, init);
        const user = await createUser(ctx().server.db);
        await failTimes(ctx().api, '198.51.100.14', user.email, 3);
        expect((await loginFrom(api, '198.51.100.14', user.email, user.password)).status).to.equal(200);
      } finally {
        await other.close();
        await dropNamespace(namespace);
      }
    });

    it('the suspension count (auth_login_attempts) is shared too', async () => {
      await ctx().server.db('svc_settings').update({ auth_login_attempts: 4 });
      const second = await startServer(testConfig(ctx().database, ctx().env), {
        logger: createLogger({ logLevel: 'silent', logStyle: 'raw' }),
      });
      try {
        const api: Api = (path, init) => fetch(second.url + path, init);
        const user = await createUser(ctx().server.db);
        await failTimes(ctx().api, '198.51.100.12', user.email, 2);
        await failTimes(api, '198.51.100.13', user.email, 2);
        const row = await ctx().server.db('svc_users').where('id', user.id).first('status');
        expect(row.status).to.equal('suspended');
      } finally {
        await second.close();
        await ctx().server.db('svc_settings').update({ auth_login_attempts: 25 });
      }
    });
  },
  { env: () => ({ ...LIMITED, REDIS: TEST_REDIS_URL }) },
);
