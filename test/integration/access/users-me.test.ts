import { expect } from 'chai';
import { hashPassword } from '../../../src/access/passwords.js';
import { describeEachDatabase } from '../../support/server.js';
import { postJson } from '../auth/helpers.js';
import { asAdmin, call, createCaller, dataOf, expectForbidden, grant, type Caller } from './permission-helpers.js';

type Row = Record<string, unknown>;

/** GET and PATCH /users/me, PATCH /users/me/track/page. */
describeEachDatabase('/users/me', (ctx) => {
  const db = () => ctx().server.db;
  let app: Caller;
  let bare: Caller;

  before(async () => {
    app = await createCaller(db(), { app: true });
    bare = await createCaller(db(), { app: false });
    await db()('svc_users').where('id', app.user).update({ first_name: 'Ann', last_name: 'Apple' });
    await grant(ctx(), app.role, [
      {
        collection: 'svc_users',
        action: 'update',
        permissions: { id: { _eq: '$CURRENT_USER' } },
        fields: ['first_name', 'last_name', 'password'],
      },
    ]);
  });

  describe('GET', () => {
    it('answers the current user with their read permission, secrets masked, shaped by fields', async () => {
      expect(dataOf(await call(ctx(), app.token, 'GET', '/users/me?fields=id,first_name,token,role.id'))).to.deep.equal(
        {
          id: app.user,
          first_name: 'Ann',
          token: '**********',
          role: { id: app.role },
        },
      );
    });

    it('a user who may not read svc_users gets their id only', async () => {
      expect(dataOf(await call(ctx(), bare.token, 'GET', '/users/me'))).to.deep.equal({ id: bare.user });
    });

    it('without a token: 401 INVALID_CREDENTIALS, nothing else', async () => {
      const res = await call(ctx(), undefined, 'GET', '/users/me');
      expect([res.status, res.body]).to.deep.equal([
        401,
        { errors: [{ message: 'Invalid user credentials.', extensions: { code: 'INVALID_CREDENTIALS' } }] },
      ]);
    });

    it('works with the JWT of a login too', async () => {
      const user = await db()('svc_users').where('id', app.user).first<Row>('email');
      await db()('svc_users')
        .where('id', app.user)
        .update({ password: await hashPassword('me-password') });
      const login = await postJson(ctx().api, '/auth/login', { email: user?.['email'], password: 'me-password' });
      const token = ((await login.json()) as { data: { access_token: string } }).data.access_token;
      expect(dataOf<Row>(await call(ctx(), token, 'GET', '/users/me?fields=last_name'))).to.deep.equal({
        last_name: 'Apple',
      });
    });
  });

  describe('PATCH', () => {
    it('updates the allowed fields of the own row and answers it', async () => {
      expect(
        dataOf(await call(ctx(), app.token, 'PATCH', '/users/me?fields=first_name,last_name', { first_name: 'Anna' })),
      ).to.deep.equal({
        first_name: 'Anna',
        last_name: 'Apple',
      });
    });

    it('refuses fields outside the permission (role, status, email): nothing changes', async () => {
      const before = await db()('svc_users').where('id', app.user).first<Row>('role', 'status', 'email', 'first_name');
      for (const payload of [
        { role: null },
        { status: 'suspended' },
        { email: 'taken@example.com' },
        { first_name: 'X', role: null },
      ]) {
        expectForbidden(await call(ctx(), app.token, 'PATCH', '/users/me', payload));
      }
      expect(
        await db()('svc_users').where('id', app.user).first<Row>('role', 'status', 'email', 'first_name'),
      ).to.deep.equal(before);
    });

    it('without an update permission it is FORBIDDEN; without a token 401', async () => {
      expectForbidden(await call(ctx(), bare.token, 'PATCH', '/users/me', { first_name: 'Bob' }));
      expect((await call(ctx(), undefined, 'PATCH', '/users/me', { first_name: 'Bob' })).status).to.equal(401);
    });

    it('answers 204 when the updated row cannot be read back', async () => {
      await grant(ctx(), bare.role, [
        {
          collection: 'svc_users',
          action: 'update',
          permissions: { id: { _eq: '$CURRENT_USER' } },
          fields: ['first_name'],
        },
      ]);
      const res = await call(ctx(), bare.token, 'PATCH', '/users/me', { first_name: 'Bea' });
      expect([res.status, res.body]).to.deep.equal([204, undefined]);
      expect((await db()('svc_users').where('id', bare.user).first<Row>('first_name'))?.['first_name']).to.equal('Bea');
    });
  });

  describe('PATCH /users/me/track/page', () => {
    it('sets last_page whatever the permissions, without journal rows', async () => {
      const activity = await db()('svc_activity').count({ n: '*' }).first<{ n: unknown }>();
      const res = await call(ctx(), bare.token, 'PATCH', '/users/me/track/page', { last_page: '/content/articles' });
      expect([res.status, res.body]).to.deep.equal([204, undefined]);
      expect((await db()('svc_users').where('id', bare.user).first<Row>('last_page'))?.['last_page']).to.equal(
        '/content/articles',
      );
      expect(await db()('svc_activity').count({ n: '*' }).first<{ n: unknown }>()).to.deep.equal(activity);
    });

    it('needs last_page and a user', async () => {
      const missing = await call(ctx(), bare.token, 'PATCH', '/users/me/track/page', {});
      expect([missing.status, (missing.body?.['errors'] as Row[])[0]?.['extensions']]).to.deep.equal([
        400,
        { reason: '"last_page" is required', code: 'INVALID_PAYLOAD' },
      ]);
      expect((await call(ctx(), undefined, 'PATCH', '/users/me/track/page', { last_page: '/x' })).status).to.equal(401);
    });
  });

  it('admins read and update their own row through the same routes', async () => {
    const me = dataOf<Row>(await asAdmin(ctx(), 'GET', '/users/me?fields=id,email'));
    expect(me['email']).to.equal('admin@example.com');
    expect(dataOf(await asAdmin(ctx(), 'PATCH', '/users/me?fields=title', { title: 'Boss' }))).to.deep.equal({
      title: 'Boss',
    });
  });
});
