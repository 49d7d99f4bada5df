import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { createLogger } from '../../../src/logger/index.js';
import { startServer } from '../../../src/server.js';
import { describeEachDatabase, testConfig, type ServerContext } from '../../support/server.js';
import { redisUnavailable, requireOrSkip, sqliteTarget, TEST_REDIS_URL } from '../../support/services.js';
import { SmtpInbox } from '../../support/smtp-inbox.js';
import { createRole, createUser, expectOnlyError, postJson } from './helpers.js';

const SECRET = 'test-secret';

interface RegistrationSettings {
  readonly public_registration?: boolean;
  readonly public_registration_verify_email?: boolean;
  readonly public_registration_role?: string | null;
  readonly public_registration_email_filter?: Record<string, unknown> | null;
}

/** Sets svc_settings' public_registration* fields for one test. */
async function setRegistration(ctx: ServerContext, settings: RegistrationSettings): Promise<void> {
  const { public_registration_email_filter: filter, ...rest } = settings;
  await ctx.server.db('svc_settings').update({
    public_registration: false,
    public_registration_verify_email: true,
    public_registration_role: null,
    public_registration_email_filter: filter == null ? null : JSON.stringify(filter),
    ...rest,
  });
}

const newEmail = () => `registrant-${randomUUID().slice(0, 8)}@example.com`;

describe('public registration', () => {
  const inbox = new SmtpInbox();
  before(() => inbox.start());
  after(() => inbox.stop());

  describeEachDatabase(
    'POST /users/register and GET /users/register/verify-email',
    (ctx) => {
      const db = () => ctx().server.db;
      const register = (body: Record<string, unknown>) => postJson(ctx().api, '/users/register', body);
      const verify = (token: string) =>
        ctx().api(`/users/register/verify-email?token=${encodeURIComponent(token)}`, { redirect: 'manual' });
      const login = (email: string, password: string) => postJson(ctx().api, '/auth/login', { email, password });
      const userRow = (email: string) =>
        db()('svc_users').where('email', email).first<Record<string, unknown> | undefined>();

      afterEach(() => setRegistration(ctx(), {}));

      it('is 403 FORBIDDEN while settings.public_registration is off, and writes nothing', async () => {
        const email = newEmail();
        await expectOnlyError(await register({ email, password: 'a-password-1' }), 403, 'FORBIDDEN');
        expect(await userRow(email)).to.equal(undefined);
      });

      it('without e-mail verification: an active user of public_registration_role, audited, who can log in', async () => {
        const role = await createRole(db());
        await setRegistration(ctx(), {
          public_registration: true,
          public_registration_verify_email: false,
          public_registration_role: role,
        });
        const email = newEmail();
        const res = await register({ email, password: 'a-password-1', first_name: 'Ada', last_name: 'Lovelace' });
        expect(res.status).to.equal(204);
        const row = await userRow(email);
        expect(row).to.include({ role, status: 'active', first_name: 'Ada', last_name: 'Lovelace' });
        expect(row?.['password']).to.match(/^\$argon2id\$/);
        const activity = await db()('svc_activity')
          .where({ collection: 'svc_users', item: String(row?.['id']) })
          .select('action', 'user', 'ip');
        expect(activity).to.have.length(1);
        expect(activity[0]).to.include({ action: 'create', user: null });
        expect(activity[0]?.['ip']).to.be.a('string');
        expect((await login(email, 'a-password-1')).status).to.equal(200);
      });

      it('with e-mail verification: unverified until the mailed link is followed, then active', async () => {
        await setRegistration(ctx(), { public_registration: true });
        const email = newEmail();
        expect((await register({ email, password: 'a-password-1' })).status).to.equal(204);
        expect(await userRow(email)).to.include({ status: 'unverified', role: null });
        await expectOnlyError(await login(email, 'a-password-1'), 401, 'INVALID_CREDENTIALS');
        const link = await inbox.nextLink(email);
        expect(link.origin + link.pathname).to.equal('http://cds.test/users/register/verify-email');
        const token = link.searchParams.get('token') ?? '';
        const claims = jwt.verify(token, SECRET, { issuer: 'svc' }) as jwt.JwtPayload;
        expect(claims).to.include({ email, scope: 'pending-registration' });
        const res = await verify(token);
        expect(res.status).to.equal(204);
        expect(await userRow(email)).to.include({ status: 'active' });
        expect((await login(email, 'a-password-1')).status).to.equal(200);
        const again = await expectOnlyError(await verify(token), 400, 'INVALID_PAYLOAD');
        expect(again.errors[0]?.extensions['reason']).to.equal('Invalid verification code');
      });

      it('the mailed link opened in a browser (Accept: text/html) goes to the console page, which verifies', async () => {
        await setRegistration(ctx(), { public_registration: true });
        const email = newEmail();
        expect((await register({ email, password: 'a-password-1' })).status).to.equal(204);
        const token = (await inbox.nextLink(email)).searchParams.get('token') ?? '';
        const res = await ctx().api(`/users/register/verify-email?token=${encodeURIComponent(token)}`, {
          redirect: 'manual',
          headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' },
        });
        expect(res.status).to.equal(303);
        const target = new URL(res.headers.get('location') ?? '', `${ctx().server.url}/users/register/verify-email`);
        expect(target.pathname + target.search).to.equal(`/admin/verify-email?token=${encodeURIComponent(token)}`);
        expect(await userRow(email)).to.include({ status: 'unverified' });
        expect((await verify(token)).status).to.equal(204);
        expect(await userRow(email)).to.include({ status: 'active' });
      });

      it('a verification_url must be in USER_REGISTER_URL_ALLOW_LIST; allowed, the link leads there and verifying redirects to it', async () => {
        await setRegistration(ctx(), { public_registration: true });
        const email = newEmail();
        const refused = await expectOnlyError(
          await register({ email, password: 'a-password-1', verification_url: 'https://evil.test/v' }),
          400,
          'INVALID_PAYLOAD',
        );
        expect(refused.errors[0]?.extensions['reason']).to.equal(
          'URL "https://evil.test/v" can\'t be used to verify registered users',
        );
        expect(await userRow(email)).to.equal(undefined);
        expect(
          (await register({ email, password: 'a-password-1', verification_url: 'https://app.test/verify' })).status,
        ).to.equal(204);
        const link = await inbox.nextLink(email);
        expect(link.origin + link.pathname).to.equal('https://app.test/verify');
        const res = await verify(link.searchParams.get('token') ?? '');
        expect(res.status).to.equal(302);
        expect(res.headers.get('location')).to.equal('https://app.test/verify');
        expect(await userRow(email)).to.include({ status: 'active' });
      });

      it('an address already registered answers 204 and changes nothing; an unverified one is mailed again', async () => {
        await setRegistration(ctx(), { public_registration: true });
        const existing = await createUser(db());
        const res = await register({ email: existing.email, password: 'taken-over-1' });
        expect(res.status).to.equal(204);
        expect((await login(existing.email, existing.password)).status).to.equal(200);
        const unverified = newEmail();
        expect((await register({ email: unverified, password: 'a-password-1' })).status).to.equal(204);
        await inbox.nextLink(unverified);
        expect((await register({ email: unverified, password: 'other-password-2' })).status).to.equal(204);
        const token = (await inbox.nextLink(unverified)).searchParams.get('token') ?? '';
        expect((await verify(token)).status).to.equal(204);
        expect((await login(unverified, 'a-password-1')).status, 'first password kept').to.equal(200);
        expect(inbox.mailsTo(existing.email)).to.have.length(0);
      });

      it('settings.public_registration_email_filter refuses other addresses (403 FORBIDDEN)', async () => {
        await setRegistration(ctx(), {
          public_registration: true,
          public_registration_verify_email: false,
          public_registration_email_filter: { _and: [{ email: { _ends_with: '@allowed.test' } }] },
        });
        const refused = newEmail();
        await expectOnlyError(await register({ email: refused, password: 'a-password-1' }), 403, 'FORBIDDEN');
        expect(await userRow(refused)).to.equal(undefined);
        const allowed = `someone-${randomUUID().slice(0, 8)}@allowed.test`;
        expect((await register({ email: allowed, password: 'a-password-1' })).status).to.equal(204);
        expect(await userRow(allowed)).to.include({ status: 'active' });
      });

      it('settings.auth_password_policy applies (400 FAILED_VALIDATION, nothing written)', async () => {
        await setRegistration(ctx(), { public_registration: true, public_registration_verify_email: false });
        await db()('svc_settings').update({ auth_password_policy: '/^.{16,}$/' });
        try {
          const email = newEmail();
          const error = await expectOnlyError(await register({ email, password: 'short' }), 400, 'FAILED_VALIDATION');
          expect(error.errors[0]?.extensions).to.include({ field: 'password', type: 'regex' });
          expect(await userRow(email)).to.equal(undefined);
        } finally {
          await db()('svc_settings').update({ auth_password_policy: null });
        }
      });

      it('refuses bad verification tokens: other scope 403 FORBIDDEN, not a JWT 403 INVALID_TOKEN, expired 401 TOKEN_EXPIRED', async () => {
        await setRegistration(ctx(), { public_registration: true });
        const email = newEmail();
        expect((await register({ email, password: 'a-password-1' })).status).to.equal(204);
        await inbox.nextLink(email);
        await expectOnlyError(
          await verify(jwt.sign({ email, scope: 'invite' }, SECRET, { issuer: 'svc', expiresIn: 60 })),
          403,
          'FORBIDDEN',
        );
        await expectOnlyError(await verify('not-a-jwt'), 403, 'INVALID_TOKEN');
        const now = Math.floor(Date.now() / 1000);
        const expired = jwt.sign({ email, scope: 'pending-registration', iat: now - 700000, exp: now - 10 }, SECRET, {
          issuer: 'svc',
        });
        await expectOnlyError(await verify(expired), 401, 'TOKEN_EXPIRED');
        await expectOnlyError(await ctx().api('/users/register/verify-email'), 400, 'INVALID_PAYLOAD');
        expect(await userRow(email)).to.include({ status: 'unverified' });
      });

      it('validates the body (400 INVALID_PAYLOAD)', async () => {
        await setRegistration(ctx(), { public_registration: true });
        const cases: [Record<string, unknown>, string][] = [
          [{ password: 'a-password-1' }, '"email" is required'],
          [{ email: 'nope', password: 'a-password-1' }, '"email" must be a valid email'],
          [{ email: newEmail() }, '"password" is required'],
          [{ email: newEmail(), password: 'a-password-1', first_name: 4 }, '"first_name" must be a string'],
        ];
        for (const [body, reason] of cases) {
          const error = await expectOnlyError(await register(body), 400, 'INVALID_PAYLOAD');
          expect(error.errors[0]?.extensions['reason']).to.equal(reason);
        }
      });
    },
    {
      env: () => ({
        ...inbox.env(),
        PUBLIC_URL: 'http://cds.test',
        USER_REGISTER_URL_ALLOW_LIST: 'https://app.test/verify',
        LOGIN_STALL_TIME: '20',
        RATE_LIMITER_REGISTRATION_ENABLED: 'false',
      }),
    },
  );

  // The tests name the client in X-Forwarded-For: one proxy hop (the test itself) is trusted.
  const LIMITED = {
    LOGIN_STALL_TIME: '20',
    RATE_LIMITER_REGISTRATION_POINTS: '2',
    RATE_LIMITER_REGISTRATION_DURATION: '60',
    IP_TRUST_PROXY: 'true',
  };
  // A fresh address per run: Redis keeps the counters between runs.
  const randomIp = () => `2001:db8::${randomUUID().slice(0, 4)}:${randomUUID().slice(0, 4)}`;
  const registerFrom = (api: ServerContext['api'], ip: string) =>
    postJson(api, '/users/register', { email: newEmail(), password: 'a-password-1' }, { 'X-Forwarded-For': ip });

  describeEachDatabase(
    'POST /users/register rate limit',
    (ctx) => {
      it('past RATE_LIMITER_REGISTRATION_POINTS per IP: 429 REQUESTS_EXCEEDED with Retry-After; other IPs go on', async () => {
        await setRegistration(ctx(), { public_registration: true, public_registration_verify_email: false });
        const ip = randomIp();
        for (let i = 0; i < 2; i++) expect((await registerFrom(ctx().api, ip)).status).to.equal(204);
        const res = await registerFrom(ctx().api, ip);
        const retryAfter = Number(res.headers.get('retry-after'));
        const error = await expectOnlyError(res, 429, 'REQUESTS_EXCEEDED');
        expect(error.errors[0]?.extensions['limit']).to.equal(2);
        expect(retryAfter).to.be.within(1, 60);
        expect((await registerFrom(ctx().api, randomIp())).status).to.equal(204);
        const [row] = await ctx().server.db('svc_users').where('email', 'like', 'registrant-%').count({ n: '*' });
        expect(Number(row?.['n']), 'the refused attempt wrote nothing').to.equal(3);
      });
    },
    { env: LIMITED },
  );

  describeEachDatabase(
    'POST /users/register rate limit in Redis, shared by instances',
    (ctx) => {
      before(async function () {
        requireOrSkip(this, await redisUnavailable());
      });

      it('attempts on one instance count on another', async () => {
        await setRegistration(ctx(), { public_registration: true, public_registration_verify_email: false });
        const second = await startServer(testConfig(ctx().database, ctx().env), {
          logger: createLogger({ logLevel: 'silent', logStyle: 'raw' }),
        });
        try {
          const api: ServerContext['api'] = (path, init) => fetch(second.url + path, init);
          const ip = randomIp();
          for (let i = 0; i < 2; i++) expect((await registerFrom(ctx().api, ip)).status).to.equal(204);
          await expectOnlyError(await registerFrom(api, ip), 429, 'REQUESTS_EXCEEDED');
        } finally {
          await second.close();
        }
      });
    },
    { targets: [sqliteTarget], env: () => ({ ...LIMITED, REDIS: TEST_REDIS_URL }) },
  );
});
