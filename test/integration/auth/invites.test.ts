import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { describeEachDatabase, TEST_ADMIN } from '../../support/server.js';
import { SmtpInbox } from '../../support/smtp-inbox.js';
import { asAdmin, call, createCaller, grant } from '../access/permission-helpers.js';
import { createRole, createUser, expectOnlyError, postJson } from './helpers.js';

const SECRET = 'test-secret';

describe('invites', () => {
  const inbox = new SmtpInbox();
  before(() => inbox.start());
  after(() => inbox.stop());

  describeEachDatabase(
    'POST /users/invite and /users/invite/accept',
    (ctx) => {
      const db = () => ctx().server.db;
      const post = (path: string, body: unknown) => postJson(ctx().api, path, body);
      const newEmail = () => `invitee-${randomUUID().slice(0, 8)}@example.com`;
      const userRow = (email: string) =>
        db()('svc_users')
          .whereRaw('LOWER(email) = ?', [email.toLowerCase()])
          .first<Record<string, unknown> | undefined>();
      const activityOf = (item: unknown) =>
        db()('svc_activity')
          .where({ collection: 'svc_users', item: String(item) })
          .orderBy('id')
          .select<Record<string, unknown>[]>('*');

      /** Invites `email` as the admin and returns the token of the mail it gets. */
      async function invite(email: string, role: string): Promise<string> {
        const res = await asAdmin(ctx(), 'POST', '/users/invite', { email, role });
        expect(res.status, JSON.stringify(res.body)).to.equal(204);
        return (await inbox.nextLink(email)).searchParams.get('token') ?? '';
      }

      it('creates invited users through the audited write and mails each a 7-day invite link', async () => {
        const role = await createRole(db());
        const emails = [newEmail(), newEmail()];
        const res = await asAdmin(ctx(), 'POST', '/users/invite', { email: emails, role });
        expect(res.status).to.equal(204);
        expect(res.body).to.equal(undefined);
        const admin = await userRow(TEST_ADMIN.email);
        for (const email of emails) {
          const row = await userRow(email);
          expect(row).to.include({ email, role, status: 'invited', password: null });
          const activity = await activityOf(row?.['id']);
          expect(activity.map((a) => [a['action'], a['user']])).to.deep.equal([['create', admin?.['id']]]);
          const revisions = await db()('svc_revisions').where('activity', Number(activity[0]?.['id'])).select('data');
          expect(revisions).to.have.length(1);
          const link = await inbox.nextLink(email);
          expect(link.origin + link.pathname).to.equal('http://cds.test/admin/accept-invite');
          const claims = jwt.verify(link.searchParams.get('token') ?? '', SECRET, { issuer: 'svc' }) as jwt.JwtPayload;
          expect(claims).to.include({ email, scope: 'invite' });
          expect((claims.exp ?? 0) - (claims.iat ?? 0)).to.equal(7 * 86400);
        }
      });

      it('invite, accept, then log in: the user is active with the chosen password', async () => {
        const role = await createRole(db());
        const email = newEmail();
        const token = await invite(email, role);
        const res = await post('/users/invite/accept', { token, password: 'my-own-password' });
        expect(res.status).to.equal(204);
        const row = await userRow(email);
        expect(row).to.include({ status: 'active', role });
        expect(row?.['password']).to.match(/^\$argon2id\$/);
        const activity = await activityOf(row?.['id']);
        expect(activity.map((a) => [a['action'], a['user']])).to.deep.equal([
          ['create', (await userRow(TEST_ADMIN.email))?.['id']],
          ['update', null],
        ]);
        const login = await post('/auth/login', { email, password: 'my-own-password' });
        expect(login.status).to.equal(200);
        const again = await expectOnlyError(
          await post('/users/invite/accept', { token, password: 'another-password' }),
          400,
          'INVALID_PAYLOAD',
        );
        expect(again.errors[0]?.extensions['reason']).to.equal(`Email address ${email} hasn't been invited`);
      });

      it('re-inviting an invited user updates the role and mails again; other users are skipped silently', async () => {
        const [first, second] = [await createRole(db()), await createRole(db())];
        const invited = newEmail();
        await invite(invited, first);
        const active = await createUser(db(), { role: first });
        const res = await asAdmin(ctx(), 'POST', '/users/invite', { email: [invited, active.email], role: second });
        expect(res.status).to.equal(204);
        expect(await userRow(invited)).to.include({ role: second, status: 'invited' });
        expect(await inbox.nextLink(invited)).to.be.instanceOf(URL);
        expect(await userRow(active.email)).to.include({ role: first, status: 'active' });
        expect(await activityOf(active.id)).to.deep.equal([]);
        // A mail for another invite sent afterwards arrives: one for the active user would be there by then.
        await invite(newEmail(), first);
        expect(inbox.mailsTo(active.email)).to.have.length(0);
      });

      it('an invite_url must be in USER_INVITE_URL_ALLOW_LIST: else 400 and nothing written or sent', async () => {
        const role = await createRole(db());
        const email = newEmail();
        const refused = await asAdmin(ctx(), 'POST', '/users/invite', {
          email,
          role,
          invite_url: 'https://evil.test/accept',
        });
        expect(refused.status).to.equal(400);
        expect(refused.body).to.deep.equal({
          errors: [
            {
              message: 'Invalid payload. URL "https://evil.test/accept" can\'t be used to invite users.',
              extensions: {
                code: 'INVALID_PAYLOAD',
                reason: 'URL "https://evil.test/accept" can\'t be used to invite users',
              },
            },
          ],
        });
        expect(await userRow(email)).to.equal(undefined);
        const res = await asAdmin(ctx(), 'POST', '/users/invite', {
          email,
          role,
          invite_url: 'https://app.test/accept?lang=en',
        });
        expect(res.status).to.equal(204);
        const link = await inbox.nextLink(email);
        expect(link.origin + link.pathname).to.equal('https://app.test/accept');
        expect(link.searchParams.get('lang')).to.equal('en');
        expect(inbox.mailsTo(email)).to.have.length(0);
      });

      it('needs create permission on svc_users (403 FORBIDDEN, nothing written); with it a role may invite', async () => {
        const role = await createRole(db());
        const email = newEmail();
        await expectOnlyError(await post('/users/invite', { email, role }), 403, 'FORBIDDEN');
        const caller = await createCaller(db());
        expect((await call(ctx(), caller.token, 'POST', '/users/invite', { email, role })).status).to.equal(403);
        expect(await userRow(email)).to.equal(undefined);
        await grant(ctx(), caller.role, [
          { collection: 'svc_users', action: 'create', fields: ['email', 'role', 'status'] },
        ]);
        expect((await call(ctx(), caller.token, 'POST', '/users/invite', { email, role })).status).to.equal(204);
        expect(await userRow(email)).to.include({ status: 'invited', role });
        const activity = await activityOf((await userRow(email))?.['id']);
        expect(activity.map((a) => [a['action'], a['user']])).to.deep.equal([['create', caller.user]]);
        expect(await inbox.nextLink(email)).to.be.instanceOf(URL);
      });

      it('creates and role changes are one write: a refused role change leaves no new user and sends nothing', async () => {
        const [first, second] = [await createRole(db()), await createRole(db())];
        const invited = newEmail();
        await invite(invited, first);
        const caller = await createCaller(db());
        await grant(ctx(), caller.role, [
          { collection: 'svc_users', action: 'create', fields: ['email', 'role', 'status'] },
        ]);
        const fresh = newEmail();
        const res = await call(ctx(), caller.token, 'POST', '/users/invite', { email: [fresh, invited], role: second });
        expect(res.status, JSON.stringify(res.body)).to.equal(403);
        expect(await userRow(fresh)).to.equal(undefined);
        expect(await userRow(invited)).to.include({ role: first });
        await invite(newEmail(), first);
        expect(inbox.mailsTo(fresh)).to.have.length(0);
        expect(inbox.mailsTo(invited)).to.have.length(0);
      });

      it('refuses bad accept tokens: other scope 403 FORBIDDEN, forged or not a JWT 403 INVALID_TOKEN, expired 401 TOKEN_EXPIRED', async () => {
        const email = newEmail();
        await invite(email, await createRole(db()));
        const accept = (token: string) => post('/users/invite/accept', { token, password: 'whatever-password' });
        const claims = { email, scope: 'invite' };
        await expectOnlyError(
          await accept(jwt.sign({ email, scope: 'password-reset' }, SECRET, { issuer: 'svc', expiresIn: 60 })),
          403,
          'FORBIDDEN',
        );
        await expectOnlyError(
          await accept(jwt.sign(claims, 'other-secret', { issuer: 'svc', expiresIn: 60 })),
          403,
          'INVALID_TOKEN',
        );
        await expectOnlyError(await accept('not-a-jwt'), 403, 'INVALID_TOKEN');
        const now = Math.floor(Date.now() / 1000);
        await expectOnlyError(
          await accept(jwt.sign({ ...claims, iat: now - 700000, exp: now - 10 }, SECRET, { issuer: 'svc' })),
          401,
          'TOKEN_EXPIRED',
        );
        expect(await userRow(email)).to.include({ status: 'invited', password: null });
      });

      it('an active user cannot use an invite token (400 INVALID_PAYLOAD), and nothing changes', async () => {
        const user = await createUser(db());
        const token = jwt.sign({ email: user.email, scope: 'invite' }, SECRET, { issuer: 'svc', expiresIn: 60 });
        const error = await expectOnlyError(
          await post('/users/invite/accept', { token, password: 'taken-over-1' }),
          400,
          'INVALID_PAYLOAD',
        );
        expect(error.errors[0]?.message).to.equal(`Invalid payload. Email address ${user.email} hasn't been invited.`);
        expect((await post('/auth/login', { email: user.email, password: user.password })).status).to.equal(200);
      });

      it('of concurrent accepts of one invitation, one sets its password; the others are 400 INVALID_PAYLOAD', async () => {
        const email = newEmail();
        const token = await invite(email, await createRole(db()));
        const passwords = ['first-password-1', 'second-password-2', 'third-password-3'];
        const answers = await Promise.all(
          passwords.map((password) => post('/users/invite/accept', { token, password })),
        );
        const statuses = answers.map((res) => res.status);
        expect([...statuses].sort()).to.deep.equal([204, 400, 400]);
        const chosen = passwords[statuses.indexOf(204)];
        for (const password of passwords) {
          expect((await post('/auth/login', { email, password })).status, password).to.equal(
            password === chosen ? 200 : 401,
          );
        }
        const user = await userRow(email);
        expect((await activityOf(user?.['id'])).filter((a) => a['action'] === 'update')).to.have.length(1);
      });

      it('settings.auth_password_policy applies on accept (400 FAILED_VALIDATION, the user stays invited)', async () => {
        const email = newEmail();
        const token = await invite(email, await createRole(db()));
        await db()('svc_settings').update({ auth_password_policy: '/^.{16,}$/' });
        try {
          const error = await expectOnlyError(
            await post('/users/invite/accept', { token, password: 'short' }),
            400,
            'FAILED_VALIDATION',
          );
          expect(error.errors[0]?.extensions).to.include({ field: 'password', type: 'regex' });
          expect(await userRow(email)).to.include({ status: 'invited', password: null });
          expect((await post('/users/invite/accept', { token, password: 'long-enough-password' })).status).to.equal(
            204,
          );
        } finally {
          await db()('svc_settings').update({ auth_password_policy: null });
        }
      });

      it('validates the bodies (400 INVALID_PAYLOAD)', async () => {
        const role = await createRole(db());
        const cases: [string, unknown, string][] = [
          ['/users/invite', { role }, '"email" is required'],
          ['/users/invite', { email: 'nope', role }, '"email" must be a valid email'],
          ['/users/invite', { email: [], role }, '"email" must contain at least 1 items'],
          ['/users/invite', { email: ['a@example.com', 5], role }, '"email" must be a valid email'],
          ['/users/invite', { email: 'a@example.com' }, '"role" is required'],
          ['/users/invite', { email: 'a@example.com', role: 'admin' }, '"role" must be a valid GUID'],
          ['/users/invite', { email: 'a@example.com', role, invite_url: 3 }, '"invite_url" must be a string'],
          ['/users/invite/accept', { password: 'x' }, '"token" is required'],
          ['/users/invite/accept', { token: 'x' }, '"password" is required'],
        ];
        for (const [path, body, reason] of cases) {
          const res = await asAdmin(ctx(), 'POST', path, body);
          expect(res.status, path).to.equal(400);
          expect(
            (res.body as { errors: { extensions: Record<string, unknown> }[] }).errors[0]?.extensions['reason'],
          ).to.equal(reason);
        }
        expect(await userRow('a@example.com')).to.equal(undefined);
      });
    },
    {
      env: () => ({
        ...inbox.env(),
        PUBLIC_URL: 'http://cds.test',
        USER_INVITE_URL_ALLOW_LIST: 'https://app.test/accept',
      }),
    },
  );
});
