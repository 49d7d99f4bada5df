import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { describeEachDatabase, TEST_ADMIN } from '../../support/server.js';
import { createUser, expectOnlyError, postJson } from './helpers.js';

/** `text` with the case of its first letter turned. */
function flipFirstLetter(text: string): string {
  return text.replace(/[a-z]/i, (c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()));
}

/**
 * Whatever a caller is found by (a static token, a refresh token, an e-mail address) matches
 * exactly on every database: MariaDB's default collations compare ignoring case, accents and
 * trailing spaces, where PostgreSQL and SQLite do not (catalog/migrations/0004).
 */
describeEachDatabase('credentials compare exactly', (ctx) => {
  const asAdmin = { Authorization: `Bearer ${TEST_ADMIN.token}` };

  it('a static token with a letter of another case, or with trailing spaces, is nobody (401)', async () => {
    const token = `Static-${randomUUID()}`;
    await createUser(ctx().server.db, { token });
    for (const other of [flipFirstLetter(token), `${token}  `]) {
      await expectOnlyError(
        await ctx().api(`/users/me?access_token=${encodeURIComponent(other)}`),
        401,
        'INVALID_CREDENTIALS',
      );
    }
    const res = await ctx().api(`/users/me?fields=id&access_token=${encodeURIComponent(token)}`);
    expect(res.status).to.equal(200);
  });

  it('a refresh token with a letter of another case, or with trailing spaces, refreshes nothing', async () => {
    const user = await createUser(ctx().server.db);
    const login = await postJson(ctx().api, '/auth/login', { email: user.email, password: user.password });
    const { refresh_token: token } = ((await login.json()) as { data: { refresh_token: string } }).data;
    for (const other of [flipFirstLetter(token), `${token} `]) {
      await expectOnlyError(
        await postJson(ctx().api, '/auth/refresh', { refresh_token: other }),
        401,
        'INVALID_CREDENTIALS',
      );
    }
    // The session was left as it was: its own token still refreshes.
    expect((await postJson(ctx().api, '/auth/refresh', { refresh_token: token })).status).to.equal(200);
  });

  it('an e-mail address that differs in an accent is another address: no login, and it may be registered', async () => {
    const tag = randomUUID().slice(0, 8);
    const accented = `ana-${tag}@bücher.example`;
    const plain = `ana-${tag}@bucher.example`;
    const created = await postJson(
      ctx().api,
      '/users',
      { email: accented, password: 'pw-accented', status: 'active' },
      asAdmin,
    );
    expect(created.status).to.equal(200);
    await expectOnlyError(
      await postJson(ctx().api, '/auth/login', { email: plain, password: 'pw-accented' }),
      401,
      'INVALID_CREDENTIALS',
    );
    // Case still does not matter.
    const upper = await postJson(ctx().api, '/auth/login', { email: accented.toUpperCase(), password: 'pw-accented' });
    expect(upper.status).to.equal(200);

    const role = (await ctx().server.db('svc_roles').first<{ id: string }>('id')).id;
    expect((await postJson(ctx().api, '/users/invite', { email: plain, role }, asAdmin)).status).to.equal(204);
    const rows = await ctx().server.db('svc_users').whereIn('email', [accented, plain]).select('email', 'status');
    expect(rows.sort((a: { email: string }, b: { email: string }) => a.email.localeCompare(b.email))).to.deep.equal([
      { email: plain, status: 'invited' },
      { email: accented, status: 'active' },
    ]);
  });

  it('an e-mail address with a control character is no address: 400 at login and in user writes', async () => {
    const emails = ['a\u0007b@example.com', 'ab@exa\u007fmple.com', 'a\u001bb@example.com'];
    for (const email of emails) {
      const login = await postJson(ctx().api, '/auth/login', { email, password: 'whatever' });
      const error = await expectOnlyError(login, 400, 'INVALID_PAYLOAD');
      expect(error.errors[0]?.extensions['reason']).to.equal('"email" must be a valid email');
      await expectOnlyError(await postJson(ctx().api, '/users', { email }, asAdmin), 400, 'FAILED_VALIDATION');
    }
    expect(await ctx().server.db('svc_users').whereIn('email', emails).select('id')).to.deep.equal([]);
  });
});
