import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { createGuardrails, generate } from 'otplib';
import { describeEachDatabase, TEST_ADMIN } from '../../support/server.js';
import { createUser, expectOnlyError, postJson, type TestUser } from './helpers.js';

const guardrails = createGuardrails({ MIN_SECRET_BYTES: 10 });
const otpOf = (secret: string, offsetSeconds = 0) =>
  generate({ secret, guardrails, epoch: Math.floor(Date.now() / 1000) + offsetSeconds });

/**
 * Waits, when the current 30 s step ends within `seconds`, for the next one to begin: a code
 * one step away from now stays one step away from the server's clock while the request runs.
 */
async function roomInStep(seconds = 10): Promise<void> {
  const left = 30_000 - (Date.now() % 30_000);
  if (left < seconds * 1000) await new Promise((resolve) => setTimeout(resolve, left + 50));
}

describeEachDatabase(
  'two-factor authentication',
  (ctx) => {
    const asUser = (token: string) => ({ Authorization: `Bearer ${token}` });

    async function userWithToken(input: Parameters<typeof createUser>[1] = {}): Promise<TestUser & { token: string }> {
      const token = `tfa-${randomUUID()}`;
      return { ...(await createUser(ctx().server.db, { ...input, token })), token };
    }

    async function tfaSecretOf(id: string): Promise<string | null> {
      const row = await ctx().server.db('svc_users').where('id', id).first('tfa_secret');
      return row.tfa_secret as string | null;
    }

    async function enable(user: TestUser & { token: string }): Promise<string> {
      const generated = await postJson(
        ctx().api,
        '/users/me/tfa/generate',
        { password: user.password },
        asUser(user.token),
      );
      const { secret } = ((await generated.json()) as { data: { secret: string } }).data;
      const res = await postJson(
        ctx().api,
        '/users/me/tfa/enable',
        { secret, otp: await otpOf(secret) },
        asUser(user.token),
      );
      expect(res.status).to.equal(204);
      return secret;
    }

    it('generate returns a 16-char base32 secret and its otpauth URL, and stores nothing', async () => {
      const user = await userWithToken({ email: 'tfa.gen+x@example.com' });
      const res = await postJson(ctx().api, '/users/me/tfa/generate', { password: user.password }, asUser(user.token));
      expect(res.status).to.equal(200);
      const { data } = (await res.json()) as { data: { secret: string; otpauth_url: string } };
      expect(Object.keys(data).sort()).to.deep.equal(['otpauth_url', 'secret']);
      expect(data.secret).to.match(/^[A-Z2-7]{16}$/);
      expect(data.otpauth_url).to.equal(
        `otpauth://totp/Content%20Data%20Service:tfa.gen%2Bx%40example.com?secret=${data.secret}&period=30&digits=6&algorithm=SHA1&issuer=Content%20Data%20Service`,
      );
      expect(await tfaSecretOf(user.id)).to.equal(null);
    });

    it('generate needs a user (401 INVALID_CREDENTIALS) and the right password (401 INVALID_CREDENTIALS)', async () => {
      await expectOnlyError(
        await postJson(ctx().api, '/users/me/tfa/generate', { password: 'x' }),
        401,
        'INVALID_CREDENTIALS',
      );
      const user = await userWithToken();
      await expectOnlyError(
        await postJson(ctx().api, '/users/me/tfa/generate', { password: 'wrong' }, asUser(user.token)),
        401,
        'INVALID_CREDENTIALS',
      );
      await expectOnlyError(
        await postJson(ctx().api, '/users/me/tfa/generate', {}, asUser(user.token)),
        400,
        'INVALID_PAYLOAD',
      );
    });

    it('enable refuses a wrong OTP (400 INVALID_PAYLOAD) and stores the secret with the right one', async () => {
      const user = await userWithToken();
      const generated = await postJson(
        ctx().api,
        '/users/me/tfa/generate/',
        { password: user.password },
        asUser(user.token),
      );
      expect(generated.status, 'trailing slash accepted').to.equal(200);
      const { secret } = ((await generated.json()) as { data: { secret: string } }).data;
      const wrong = await postJson(
        ctx().api,
        '/users/me/tfa/enable',
        { secret, otp: '000000' === (await otpOf(secret)) ? '111111' : '000000' },
        asUser(user.token),
      );
      const error = await expectOnlyError(wrong, 400, 'INVALID_PAYLOAD');
      expect(error.errors[0]?.extensions['reason']).to.equal('"otp" is invalid');
      expect(await tfaSecretOf(user.id)).to.equal(null);
      const right = await postJson(
        ctx().api,
        '/users/me/tfa/enable',
        { secret, otp: await otpOf(secret) },
        asUser(user.token),
      );
      expect(right.status).to.equal(204);
      expect(await tfaSecretOf(user.id)).to.equal(secret);
    });

    it('generate and enable are refused once TFA is on', async () => {
      const user = await userWithToken();
      const secret = await enable(user);
      await expectOnlyError(
        await postJson(ctx().api, '/users/me/tfa/generate', { password: user.password }, asUser(user.token)),
        400,
        'INVALID_PAYLOAD',
      );
      await expectOnlyError(
        await postJson(ctx().api, '/users/me/tfa/enable', { secret, otp: await otpOf(secret) }, asUser(user.token)),
        400,
        'INVALID_PAYLOAD',
      );
    });

    it('of concurrent enables with two generated secrets, one is stored; the other is 400 INVALID_PAYLOAD', async () => {
      const user = await userWithToken();
      const generate = async () => {
        const res = await postJson(
          ctx().api,
          '/users/me/tfa/generate',
          { password: user.password },
          asUser(user.token),
        );
        return ((await res.json()) as { data: { secret: string } }).data.secret;
      };
      const secrets = [await generate(), await generate()];
      const answers = await Promise.all(
        secrets.map(async (secret) =>
          postJson(ctx().api, '/users/me/tfa/enable', { secret, otp: await otpOf(secret) }, asUser(user.token)),
        ),
      );
      const statuses = answers.map((res) => res.status);
      expect([...statuses].sort()).to.deep.equal([204, 400]);
      expect(await tfaSecretOf(user.id)).to.equal(secrets[statuses.indexOf(204)]);
    });

    it('login of a TFA user needs the current OTP: missing or wrong is 401 INVALID_OTP', async () => {
      const user = await userWithToken();
      const secret = await enable(user);
      const login = (otp?: string) =>
        postJson(ctx().api, '/auth/login', {
          email: user.email,
          password: user.password,
          ...(otp === undefined ? {} : { otp }),
        });
      const missing = await expectOnlyError(await login(), 401, 'INVALID_OTP');
      expect(missing.errors[0]?.message).to.equal('Invalid user OTP.');
      await expectOnlyError(await login('12345'), 401, 'INVALID_OTP');
      const current = await otpOf(secret);
      await expectOnlyError(await login(current === '999999' ? '999998' : '999999'), 401, 'INVALID_OTP');
      expect(await ctx().server.db('svc_sessions').where('user', user.id)).to.have.length(0);
      expect((await login(current)).status).to.equal(200);
    });

    it('an OTP logs in once: the same code again, or sent twice at once, is 401 INVALID_OTP', async () => {
      const user = await userWithToken();
      const secret = await enable(user);
      const login = (otp: string) =>
        postJson(ctx().api, '/auth/login', { email: user.email, password: user.password, otp });
      await roomInStep();
      const code = await otpOf(secret);
      const next = await otpOf(secret, 30);
      expect((await login(code)).status).to.equal(200);
      await expectOnlyError(await login(code), 401, 'INVALID_OTP');
      const statuses = (await Promise.all([login(next), login(next), login(next)])).map((res) => res.status);
      expect(statuses.sort()).to.deep.equal([200, 401, 401]);
    });

    it('an OTP one step old is accepted, three steps old is not', async () => {
      const user = await userWithToken();
      const secret = await enable(user);
      const login = async (otp: string) =>
        postJson(ctx().api, '/auth/login', { email: user.email, password: user.password, otp });
      await roomInStep();
      expect((await login(await otpOf(secret, -30))).status).to.equal(200);
      const stale = await otpOf(secret, -90);
      if (![await otpOf(secret), await otpOf(secret, -30), await otpOf(secret, 30)].includes(stale)) {
        await expectOnlyError(await login(stale), 401, 'INVALID_OTP');
      }
    });

    it('a wrong password still answers INVALID_CREDENTIALS, not INVALID_OTP', async () => {
      const user = await userWithToken();
      await enable(user);
      await expectOnlyError(
        await postJson(ctx().api, '/auth/login', { email: user.email, password: 'wrong', otp: '123456' }),
        401,
        'INVALID_CREDENTIALS',
      );
    });

    it('disable needs a valid OTP (400 INVALID_PAYLOAD otherwise) and then login needs none', async () => {
      const user = await userWithToken();
      const secret = await enable(user);
      const current = await otpOf(secret);
      const wrong = await postJson(
        ctx().api,
        '/users/me/tfa/disable',
        { otp: current === '000000' ? '000001' : '000000' },
        asUser(user.token),
      );
      expect((await expectOnlyError(wrong, 400, 'INVALID_PAYLOAD')).errors[0]?.extensions['reason']).to.equal(
        '"otp" is invalid',
      );
      expect(await tfaSecretOf(user.id)).to.equal(secret);
      expect(
        (await postJson(ctx().api, '/users/me/tfa/disable', { otp: current }, asUser(user.token))).status,
      ).to.equal(204);
      expect(await tfaSecretOf(user.id)).to.equal(null);
      expect(
        (await postJson(ctx().api, '/auth/login', { email: user.email, password: user.password })).status,
      ).to.equal(200);
    });

    it('an admin disables TFA of another user; others get 403 FORBIDDEN; unknown users are 403', async () => {
      const user = await userWithToken();
      await enable(user);
      const other = await userWithToken();
      await expectOnlyError(
        await postJson(ctx().api, `/users/${user.id}/tfa/disable`, {}, asUser(other.token)),
        403,
        'FORBIDDEN',
      );
      await expectOnlyError(await postJson(ctx().api, `/users/${user.id}/tfa/disable`, {}), 403, 'FORBIDDEN');
      expect(await tfaSecretOf(user.id)).to.not.equal(null);
      const admin = asUser(TEST_ADMIN.token);
      expect((await postJson(ctx().api, `/users/${user.id}/tfa/disable`, {}, admin)).status).to.equal(204);
      expect(await tfaSecretOf(user.id)).to.equal(null);
      await expectOnlyError(
        await postJson(ctx().api, `/users/${randomUUID()}/tfa/disable`, {}, admin),
        403,
        'FORBIDDEN',
      );
      await expectOnlyError(await postJson(ctx().api, '/users/not-a-uuid/tfa/disable', {}, admin), 403, 'FORBIDDEN');
    });
  },
  { env: { LOGIN_STALL_TIME: '0' } },
);
