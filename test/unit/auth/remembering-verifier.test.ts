import { expect } from 'chai';
import { rememberingVerifier, signAccessToken } from '../../../src/auth/access-token.js';

const SECRET = 'unit-secret';
const claims = { id: 'u1', role: null, app_access: true, admin_access: false };

/** Runs `check` with Date.now answering `at` (the verifier's expiry check reads it). */
function at<T>(ms: number, check: () => T): T {
  const real = Date.now;
  Date.now = () => ms;
  try {
    return check();
  } finally {
    Date.now = real;
  }
}

describe('auth: rememberingVerifier (a socket checks its token at every delivery)', () => {
  it('answers the claims of a good token, again without verifying, until its exp: then TOKEN_EXPIRED', () => {
    const verify = rememberingVerifier(SECRET);
    const token = signAccessToken(claims, SECRET, 60_000);
    const exp = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()) as { exp: number };
    expect(verify(token)).to.deep.equal(claims);
    expect(at(exp.exp * 1000 - 1, () => verify(token))).to.deep.equal(claims);
    expect(() => at(exp.exp * 1000, () => verify(token)))
      .to.throw()
      .with.property('code', 'TOKEN_EXPIRED');
  });

  it('verifies another token in full: a forged one is INVALID_TOKEN, an expired one TOKEN_EXPIRED', () => {
    const verify = rememberingVerifier(SECRET);
    verify(signAccessToken(claims, SECRET, 60_000));
    const forged = signAccessToken({ ...claims, admin_access: true }, 'another-secret', 60_000);
    expect(() => verify(forged))
      .to.throw()
      .with.property('code', 'INVALID_TOKEN');
    const expired = signAccessToken(claims, SECRET, 1000);
    expect(() => at(Date.now() + 5000, () => verify(expired)))
      .to.throw()
      .with.property('code', 'TOKEN_EXPIRED');
  });
});
