import { expect } from 'chai';
import jwt from 'jsonwebtoken';
import { describeEachDatabase } from '../../support/server.js';
import { createUser, expectOnlyError, isAuthenticated, postJson } from './helpers.js';

const SECRET = 'test-secret';
const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describeEachDatabase(
  'access token security',
  (ctx) => {
    let claims: Record<string, unknown>;
    let valid: string;

    before(async () => {
      const user = await createUser(ctx().server.db);
      const res = await postJson(ctx().api, '/auth/login', { email: user.email, password: user.password });
      valid = ((await res.json()) as { data: { access_token: string } }).data.access_token;
      const decoded = jwt.decode(valid, { json: true }) ?? {};
      claims = {
        id: decoded['id'],
        role: decoded['role'],
        app_access: decoded['app_access'],
        admin_access: decoded['admin_access'],
      };
    });

    /** The request as it would reach a protected resource; every channel the token may take. */
    const channels = (token: string): RequestInit[] => [
      { headers: { Authorization: `Bearer ${token}` } },
      { headers: { Cookie: `svc_session_token=${token}` } },
    ];

    async function expectRefused(token: string, status: number, code: string): Promise<void> {
      for (const init of channels(token)) {
        await expectOnlyError(await ctx().api('/server/info', init), status, code);
      }
      await expectOnlyError(await ctx().api(`/server/info?access_token=${encodeURIComponent(token)}`), status, code);
    }

    it('a valid token is accepted through every channel (control)', async () => {
      for (const init of channels(valid)) expect(await isAuthenticated(ctx().api, init)).to.equal(true);
    });

    it('a forged signature (signed with another secret) is 403 INVALID_TOKEN', async () => {
      await expectRefused(jwt.sign(claims, 'not-the-secret', { issuer: 'svc', expiresIn: 60 }), 403, 'INVALID_TOKEN');
    });

    it('a tampered payload under the original signature is 403 INVALID_TOKEN', async () => {
      const [header, , signature] = valid.split('.');
      const payload = base64url({ ...jwt.decode(valid, { json: true }), admin_access: true });
      await expectRefused(`${header}.${payload}.${signature}`, 403, 'INVALID_TOKEN');
    });

    it('alg:none is 403 INVALID_TOKEN', async () => {
      const now = Math.floor(Date.now() / 1000);
      const unsigned = `${base64url({ alg: 'none', typ: 'JWT' })}.${base64url({ ...claims, admin_access: true, iat: now, exp: now + 60, iss: 'svc' })}.`;
      await expectRefused(unsigned, 403, 'INVALID_TOKEN');
    });

    it('another algorithm with the same secret (HS512) is 403 INVALID_TOKEN', async () => {
      await expectRefused(
        jwt.sign(claims, SECRET, { issuer: 'svc', expiresIn: 60, algorithm: 'HS512' }),
        403,
        'INVALID_TOKEN',
      );
    });

    it('an expired token is 401 TOKEN_EXPIRED', async () => {
      const now = Math.floor(Date.now() / 1000);
      const expired = jwt.sign({ ...claims, iat: now - 3600, exp: now - 60 }, SECRET, { issuer: 'svc' });
      const error = await expectOnlyError(
        await ctx().api('/server/info', { headers: { Authorization: `Bearer ${expired}` } }),
        401,
        'TOKEN_EXPIRED',
      );
      expect(error.errors[0]?.message).to.equal('Token expired.');
    });

    it('a token without exp, even signed with our secret, is 403 INVALID_TOKEN (it would never expire)', async () => {
      const endless = jwt.sign(claims, SECRET, { issuer: 'svc' });
      expect(jwt.decode(endless, { json: true })).to.not.have.property('exp');
      await expectRefused(endless, 403, 'INVALID_TOKEN');
    });

    it('an expired token with a forged signature is INVALID_TOKEN, not TOKEN_EXPIRED', async () => {
      const now = Math.floor(Date.now() / 1000);
      await expectRefused(
        jwt.sign({ ...claims, iat: now - 3600, exp: now - 60 }, 'other', { issuer: 'svc' }),
        403,
        'INVALID_TOKEN',
      );
    });

    it('a JWT of another issuer (even with our secret) is 403 INVALID_TOKEN', async () => {
      await expectRefused(
        jwt.sign({ ...claims, admin_access: true }, SECRET, { issuer: 'someone-else', expiresIn: 60 }),
        403,
        'INVALID_TOKEN',
      );
      await expectRefused(jwt.sign({ ...claims, admin_access: true }, SECRET, { expiresIn: 60 }), 403, 'INVALID_TOKEN');
    });

    for (const missing of ['id', 'role', 'app_access', 'admin_access']) {
      it(`a token without the "${missing}" claim is 403 INVALID_TOKEN`, async () => {
        const partial = Object.fromEntries(Object.entries(claims).filter(([k]) => k !== missing));
        await expectRefused(jwt.sign(partial, SECRET, { issuer: 'svc', expiresIn: 60 }), 403, 'INVALID_TOKEN');
      });
    }

    it('a well-signed token whose id names no user (not even a UUID) is 401 INVALID_CREDENTIALS', async () => {
      for (const id of ['not-a-uuid', '00000000-0000-4000-8000-000000000000']) {
        await expectRefused(
          jwt.sign({ ...claims, id }, SECRET, { issuer: 'svc', expiresIn: 60 }),
          401,
          'INVALID_CREDENTIALS',
        );
      }
    });

    it('claims of the wrong type are 403 INVALID_TOKEN', async () => {
      await expectRefused(
        jwt.sign({ ...claims, admin_access: 'true' }, SECRET, { issuer: 'svc', expiresIn: 60 }),
        403,
        'INVALID_TOKEN',
      );
    });

    it('a malformed token claiming our issuer is 403 INVALID_TOKEN', async () => {
      await expectRefused(
        `${base64url({ alg: 'HS256', typ: 'JWT' })}.${base64url({ iss: 'svc' })}.bm90LWEtc2ln`,
        403,
        'INVALID_TOKEN',
      );
    });

    it('a string that is not a JWT and no static token is 401 INVALID_CREDENTIALS', async () => {
      await expectRefused('just-some-string', 401, 'INVALID_CREDENTIALS');
    });

    it('a password-reset style token (our issuer, no role claims) opens nothing', async () => {
      const reset = jwt.sign({ email: 'admin@example.com', scope: 'password-reset', hash: 'x' }, SECRET, {
        issuer: 'svc',
        expiresIn: 60,
      });
      await expectRefused(reset, 403, 'INVALID_TOKEN');
    });
  },
  { env: { LOGIN_STALL_TIME: '0' } },
);
