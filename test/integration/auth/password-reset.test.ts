import { expect } from 'chai';
import jwt from 'jsonwebtoken';
import { describeEachDatabase } from '../../support/server.js';
import { SmtpInbox } from '../../support/smtp-inbox.js';
import { createUser, expectOnlyError, jwtPayload, postJson, type TestUser } from './helpers.js';

const SECRET = 'test-secret';

describe('password reset by e-mail', () => {
  const inbox = new SmtpInbox();
  before(() => inbox.start());
  after(() => inbox.stop());

  describeEachDatabase(
    'POST /auth/password/request and /auth/password/reset',
    (ctx) => {
      const post = (path: string, body: unknown) => postJson(ctx().api, path, body);

      /** Requests a reset for `user` and returns the link of the e-mail it receives. */
      async function requestLink(user: TestUser, resetUrl?: string): Promise<URL> {
        const res = await post('/auth/password/request', {
          email: user.email,
          ...(resetUrl === undefined ? {} : { reset_url: resetUrl }),
        });
        expect(res.status).to.equal(204);
        expect(await res.text()).to.equal('');
        return inbox.nextLink(user.email);
      }

      it('mails a link to PUBLIC_URL/admin/reset-password with a one-day password-reset token', async () => {
        const user = await createUser(ctx().server.db);
        const link = await requestLink(user);
        expect(link.origin + link.pathname).to.equal('http://cds.test/admin/reset-password');
        const token = link.searchParams.get('token') ?? '';
        const claims = jwt.verify(token, SECRET, { issuer: 'svc', algorithms: ['HS256'] }) as jwt.JwtPayload;
        expect(claims).to.include({ email: user.email, scope: 'password-reset' });
        expect(claims['hash']).to.be.a('string');
        expect((claims.exp ?? 0) - (claims.iat ?? 0)).to.equal(86400);
      });

      it('the token sets a new password once; the old password and the sessions are gone', async () => {
        const user = await createUser(ctx().server.db);
        const login = await post('/auth/login', { email: user.email, password: user.password });
        const { refresh_token: refreshToken } = ((await login.json()) as { data: { refresh_token: string } }).data;
        const token = (await requestLink(user)).searchParams.get('token') ?? '';
        const res = await post('/auth/password/reset', { token, password: 'a-brand-new-password' });
        expect(res.status).to.equal(204);
        expect((await post('/auth/login', { email: user.email, password: 'a-brand-new-password' })).status).to.equal(
          200,
        );
        await expectOnlyError(
          await post('/auth/login', { email: user.email, password: user.password }),
          401,
          'INVALID_CREDENTIALS',
        );
        await expectOnlyError(await post('/auth/refresh', { refresh_token: refreshToken }), 401, 'INVALID_CREDENTIALS');
        const row = await ctx().server.db('svc_users').where('id', user.id).first('password');
        expect(row.password).to.match(/^\$argon2id\$/);
        await expectOnlyError(
          await post('/auth/password/reset', { token, password: 'yet-another-one' }),
          403,
          'FORBIDDEN',
        );
      });

      it('of concurrent resets with one token, exactly one sets its password; the others are 403 FORBIDDEN', async () => {
        const user = await createUser(ctx().server.db);
        const token = (await requestLink(user)).searchParams.get('token') ?? '';
        const passwords = ['first-new-password', 'second-new-password', 'third-new-password'];
        const answers = await Promise.all(
          passwords.map((password) => post('/auth/password/reset', { token, password })),
        );
        const statuses = answers.map((res) => res.status);
        expect([...statuses].sort()).to.deep.equal([204, 403, 403]);
        const chosen = passwords[statuses.indexOf(204)];
        for (const password of passwords) {
          const login = await post('/auth/login', { email: user.email, password });
          expect(login.status, password).to.equal(password === chosen ? 200 : 401);
        }
      });

      it('a reset_url outside PASSWORD_RESET_URL_ALLOW_LIST is 400 INVALID_PAYLOAD and sends nothing', async () => {
        const user = await createUser(ctx().server.db);
        for (const url of ['https://evil.test/reset', 'https://app.test/other', 'not a url']) {
          const res = await post('/auth/password/request', { email: user.email, reset_url: url });
          const error = await expectOnlyError(res, 400, 'INVALID_PAYLOAD');
          expect(error.errors[0]?.extensions['reason']).to.equal(`URL "${url}" can't be used to reset passwords`);
        }
        expect(inbox.mailsTo(user.email)).to.have.length(0);
      });

      it('an allowed reset_url (same origin and path) is where the link leads, its query kept', async () => {
        const user = await createUser(ctx().server.db);
        const link = await requestLink(user, 'https://app.test/reset?lang=en');
        expect(link.origin + link.pathname).to.equal('https://app.test/reset');
        expect(link.searchParams.get('lang')).to.equal('en');
        expect(jwtPayload(link.searchParams.get('token') ?? '')['scope']).to.equal('password-reset');
      });

      it('an unknown or inactive address gets the same 204 after the stall, and no mail', async () => {
        const inactive = await createUser(ctx().server.db, { status: 'suspended' });
        for (const email of ['nobody-here@example.com', inactive.email]) {
          const started = performance.now();
          const res = await post('/auth/password/request', { email });
          expect(res.status).to.equal(204);
          expect(performance.now() - started).to.be.at.least(200);
        }
        // A mail for a known user sent afterwards arrives: anything for the others would be there by then.
        await requestLink(await createUser(ctx().server.db));
        expect(inbox.mailsTo('nobody-here@example.com')).to.have.length(0);
        expect(inbox.mailsTo(inactive.email)).to.have.length(0);
      });

      it('a user of an SSO provider gets the same 204, and no mail', async () => {
        const ssoUser = await createUser(ctx().server.db, { provider: 'corp' });
        const res = await post('/auth/password/request', { email: ssoUser.email });
        expect(res.status).to.equal(204);
        // A mail for a password user sent afterwards arrives: one for the SSO user would be there by then.
        await requestLink(await createUser(ctx().server.db));
        expect(inbox.mailsTo(ssoUser.email)).to.have.length(0);
      });

      it('refuses tokens of the wrong scope (FORBIDDEN), forged or malformed (INVALID_TOKEN), expired (TOKEN_EXPIRED)', async () => {
        const user = await createUser(ctx().server.db);
        const login = await post('/auth/login', { email: user.email, password: user.password });
        const accessToken = ((await login.json()) as { data: { access_token: string } }).data.access_token;
        const reset = (token: string) => post('/auth/password/reset', { token, password: 'whatever-password' });
        await expectOnlyError(await reset(accessToken), 403, 'FORBIDDEN');
        const invite = jwt.sign({ email: user.email, scope: 'invite' }, SECRET, { issuer: 'svc', expiresIn: 60 });
        await expectOnlyError(await reset(invite), 403, 'FORBIDDEN');
        const claims = jwtPayload((await requestLink(user)).searchParams.get('token') ?? '');
        const body = { email: claims['email'], scope: claims['scope'], hash: claims['hash'] };
        await expectOnlyError(
          await reset(jwt.sign(body, 'other-secret', { issuer: 'svc', expiresIn: 60 })),
          403,
          'INVALID_TOKEN',
        );
        await expectOnlyError(await reset('not-a-jwt'), 403, 'INVALID_TOKEN');
        const now = Math.floor(Date.now() / 1000);
        await expectOnlyError(
          await reset(jwt.sign({ ...body, iat: now - 90000, exp: now - 10 }, SECRET, { issuer: 'svc' })),
          401,
          'TOKEN_EXPIRED',
        );
        await expectOnlyError(
          await reset(jwt.sign({ ...body, hash: 'stale' }, SECRET, { issuer: 'svc', expiresIn: 60 })),
          403,
          'FORBIDDEN',
        );
        expect(
          (await post('/auth/login', { email: user.email, password: user.password })).status,
          'password unchanged',
        ).to.equal(200);
      });

      it('a user no longer active cannot use the token (403 FORBIDDEN)', async () => {
        const user = await createUser(ctx().server.db);
        const token = (await requestLink(user)).searchParams.get('token') ?? '';
        await ctx().server.db('svc_users').where('id', user.id).update({ status: 'suspended' });
        await expectOnlyError(
          await post('/auth/password/reset', { token, password: 'new-password-1' }),
          403,
          'FORBIDDEN',
        );
      });

      it('settings.auth_password_policy is enforced (400 FAILED_VALIDATION on "password")', async () => {
        await ctx().server.db('svc_settings').update({ auth_password_policy: '/^.{16,}$/' });
        try {
          const user = await createUser(ctx().server.db);
          const token = (await requestLink(user)).searchParams.get('token') ?? '';
          const error = await expectOnlyError(
            await post('/auth/password/reset', { token, password: 'short' }),
            400,
            'FAILED_VALIDATION',
          );
          expect(error.errors[0]?.extensions).to.include({ field: 'password', type: 'regex' });
          expect(error.errors[0]?.message).to.equal(
            'Validation failed for field "password". Value doesn\'t have the correct format.',
          );
          expect((await post('/auth/password/reset', { token, password: 'long-enough-password' })).status).to.equal(
            204,
          );
        } finally {
          await ctx().server.db('svc_settings').update({ auth_password_policy: null });
        }
      });

      it('validates the bodies (400 INVALID_PAYLOAD)', async () => {
        const cases: [string, unknown, string][] = [
          ['/auth/password/request', {}, '"email" is required'],
          ['/auth/password/request', { email: 'x' }, '"email" must be a valid email'],
          ['/auth/password/request', { email: 'a@example.com', reset_url: 5 }, '"reset_url" must be a string'],
          ['/auth/password/reset', { password: 'x' }, '"token" is required'],
          ['/auth/password/reset', { token: 'x' }, '"password" is required'],
        ];
        for (const [path, body, reason] of cases) {
          const error = await expectOnlyError(await post(path, body), 400, 'INVALID_PAYLOAD');
          expect(error.errors[0]?.extensions['reason']).to.equal(reason);
        }
      });
    },
    {
      env: () => ({
        ...inbox.env(),
        PUBLIC_URL: 'http://cds.test',
        PASSWORD_RESET_URL_ALLOW_LIST: 'https://app.test/reset,https://other.test/r',
        LOGIN_STALL_TIME: '200',
      }),
    },
  );
});
