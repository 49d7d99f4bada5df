import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { createGuardrails, generate } from 'otplib';
import { describeEachDatabase } from '../../support/server.js';
import { cookieNamed, createUser, type TestUser } from '../auth/helpers.js';
import { graphql, graphqlData } from './graphql-client.js';

const guardrails = createGuardrails({ MIN_SECRET_BYTES: 10 });
const system = { scope: 'system', token: null } as const;

interface Tokens {
  readonly access_token: string | null;
  readonly expires: string;
  readonly refresh_token: string | null;
}

describeEachDatabase('graphql: auth mutations', (ctx) => {
  let user: TestUser;

  before(async () => {
    user = await createUser(ctx().server.db, { email: 'gql.login@example.com' });
  });

  const login = async (mode = 'json'): Promise<Tokens> => {
    const data = await graphqlData(
      ctx(),
      `mutation { auth_login(email: "${user.email}", password: "${user.password}", mode: ${mode}) { access_token expires refresh_token } }`,
      system,
    );
    return data['auth_login'] as Tokens;
  };

  it('auth_login without a token gives tokens that authenticate; expires is a string', async () => {
    const tokens = await login();
    expect(tokens.expires).to.equal('900000');
    expect(tokens.refresh_token).to.be.a('string').with.length.greaterThan(20);
    // server_info shows the query limits to authenticated callers only.
    const info = await graphqlData(ctx(), '{ server_info { queryLimit { default } } }', {
      scope: 'system',
      token: tokens.access_token,
    });
    expect(info).to.deep.equal({ server_info: { queryLimit: { default: 100 } } });
  });

  it('a wrong password is INVALID_CREDENTIALS at auth_login', async () => {
    const res = await graphql(
      ctx(),
      `mutation { auth_login(email: "${user.email}", password: "wrong") { access_token } }`,
      system,
    );
    expect(res.status).to.equal(200);
    expect(res.body.data).to.deep.equal({ auth_login: null });
    expect(res.body.errors?.map((e) => [e.extensions['code'], e.path])).to.deep.equal([
      ['INVALID_CREDENTIALS', ['auth_login']],
    ]);
  });

  it('a malformed e-mail is INVALID_CREDENTIALS at auth_login, the answer of an unknown one (as Directus); REST names it', async () => {
    const sessions = await ctx().server.db('svc_sessions').count({ n: '*' });
    const answers = [];
    for (const email of ['invalidEmail', '', 'nobody@example.com']) {
      const res = await graphql(
        ctx(),
        `mutation { auth_login(email: "${email}", password: "${user.password}") { access_token } }`,
        system,
      );
      expect(res.status).to.equal(200);
      expect(res.body.data).to.deep.equal({ auth_login: null });
      answers.push(res.body.errors?.map((e) => ({ message: e.message, extensions: e.extensions, path: e.path })));
    }
    expect(answers[0]).to.deep.equal([
      { message: 'Invalid user credentials.', extensions: { code: 'INVALID_CREDENTIALS' }, path: ['auth_login'] },
    ]);
    expect(answers[1]).to.deep.equal(answers[0]);
    expect(answers[2]).to.deep.equal(answers[0]);
    expect(await ctx().server.db('svc_sessions').count({ n: '*' })).to.deep.equal(sessions);
    // POST /auth/login validates its body: the e-mail is named, as in Directus.
    const rest = await ctx().api('/auth/login', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: 'invalidEmail', password: user.password }),
    });
    expect(rest.status).to.equal(400);
    expect(await rest.json()).to.deep.equal({
      errors: [
        {
          message: 'Invalid payload. "email" must be a valid email.',
          extensions: { code: 'INVALID_PAYLOAD', reason: '"email" must be a valid email' },
        },
      ],
    });
  });

  it('cookie mode sets the refresh cookie and answers no refresh token; auth_refresh reads the cookie', async () => {
    const res = await ctx().api('/graphql/system', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        query: `mutation { auth_login(email: "${user.email}", password: "${user.password}", mode: cookie) { access_token refresh_token } }`,
      }),
    });
    const body = (await res.json()) as { data: { auth_login: Tokens } };
    expect(body.data.auth_login.refresh_token).to.equal(null);
    expect(body.data.auth_login.access_token).to.be.a('string');
    const cookie = cookieNamed(res, 'svc_refresh_token');
    expect(cookie.attributes).to.include.keys('httponly');

    const refreshed = await ctx().api('/graphql/system', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Cookie: `svc_refresh_token=${cookie.value}` },
      body: JSON.stringify({ query: 'mutation { auth_refresh(mode: cookie) { access_token refresh_token } }' }),
    });
    const next = (await refreshed.json()) as { data: { auth_refresh: Tokens } };
    expect(next.data.auth_refresh.access_token).to.be.a('string');
    expect(cookieNamed(refreshed, 'svc_refresh_token').value).to.not.equal(cookie.value);
  });

  it('auth_refresh rotates the refresh token; auth_logout ends the session', async () => {
    const tokens = await login();
    const refresh = (token: string | null) =>
      graphql(ctx(), `mutation { auth_refresh(refresh_token: "${token}") { refresh_token } }`, system);
    const rotated = (await refresh(tokens.refresh_token)).body.data?.['auth_refresh'] as Tokens;
    expect(rotated.refresh_token).to.be.a('string').and.not.equal(tokens.refresh_token);
    const reused = await refresh(tokens.refresh_token);
    expect(reused.body.errors?.[0]?.extensions['code']).to.equal('INVALID_CREDENTIALS');
    expect(
      await graphqlData(ctx(), `mutation { auth_logout(refresh_token: "${rotated.refresh_token}") }`, system),
    ).to.deep.equal({ auth_logout: true });
    expect((await refresh(rotated.refresh_token)).body.errors?.[0]?.extensions['code']).to.equal('INVALID_CREDENTIALS');
  });

  it('password reset: a request for any e-mail is true; a bad token is refused', async () => {
    expect(
      await graphqlData(ctx(), 'mutation { auth_password_request(email: "nobody@example.com") }', system),
    ).to.deep.equal({
      auth_password_request: true,
    });
    const bad = await graphql(
      ctx(),
      'mutation { auth_password_reset(token: "not-a-token", password: "new-password-1") }',
      system,
    );
    expect(bad.body.data).to.deep.equal({ auth_password_reset: null });
    expect(bad.body.errors?.[0]?.extensions['code']).to.equal('INVALID_TOKEN');
    const email = await graphql(ctx(), 'mutation { auth_password_request(email: "not an e-mail") }', system);
    expect(email.body.errors?.[0]?.extensions).to.deep.equal({
      reason: '"email" must be a valid email',
      code: 'INVALID_PAYLOAD',
    });
  });

  it('users_me_tfa_generate, _enable and _disable need the user and their proofs', async () => {
    const token = `gql-tfa-${randomUUID()}`;
    const tfaUser = await createUser(ctx().server.db, { token });
    const asUser = { scope: 'system', token } as const;
    const anonymous = await graphql(ctx(), 'mutation { users_me_tfa_generate(password: "x") { secret } }', system);
    expect(anonymous.body.errors?.[0]?.extensions['code']).to.equal('INVALID_CREDENTIALS');
    const generated = await graphqlData(
      ctx(),
      `mutation { users_me_tfa_generate(password: "${tfaUser.password}") { secret otpauth_url } }`,
      asUser,
    );
    const { secret, otpauth_url } = generated['users_me_tfa_generate'] as { secret: string; otpauth_url: string };
    expect(secret).to.match(/^[A-Z2-7]{16}$/);
    expect(otpauth_url).to.contain(`secret=${secret}`);
    const otp = await generate({ secret, guardrails });
    expect(
      await graphqlData(ctx(), `mutation { users_me_tfa_enable(secret: "${secret}", otp: "${otp}") }`, asUser),
    ).to.deep.equal({
      users_me_tfa_enable: true,
    });
    const stored = (await ctx().server.db('svc_users').where('id', tfaUser.id).first('tfa_secret')) as {
      tfa_secret: string | null;
    };
    expect(stored.tfa_secret).to.equal(secret);
    const disabled = await graphqlData(
      ctx(),
      `mutation { users_me_tfa_disable(otp: "${await generate({ secret, guardrails })}") }`,
      asUser,
    );
    expect(disabled).to.deep.equal({ users_me_tfa_disable: true });
  });
});
