import { expect } from 'chai';
import type { IncomingMessage } from 'node:http';
import { loadConfig } from '../../../src/config/index.js';
import { clientIp, proxyTrust } from '../../../src/http/client-ip.js';

const NO_FILE = { defaultConfigPath: '/nonexistent/.env' };

/** What clientIp reads of a request: the socket's peer and the headers. */
function request(peer: string | undefined, headers: Record<string, string | string[]> = {}): IncomingMessage {
  return { socket: { remoteAddress: peer }, headers } as unknown as IncomingMessage;
}

const ipOf = (env: Record<string, string>, peer: string | undefined, headers: Record<string, string | string[]> = {}) =>
  clientIp(loadConfig(env, NO_FILE), request(peer, headers));

describe('IP_TRUST_PROXY and IP_CUSTOM_HEADER: the caller IP (http/client-ip.ts)', () => {
  it('trusts no proxy by default: X-Forwarded-For is ignored, the peer is the client', () => {
    expect(loadConfig({}, NO_FILE).ipTrustProxy).to.equal(false);
    expect(ipOf({}, '127.0.0.1', { 'x-forwarded-for': '10.9.9.9' })).to.equal('127.0.0.1');
    expect(ipOf({ IP_TRUST_PROXY: 'false' }, '::ffff:127.0.0.1', { 'x-forwarded-for': '10.9.9.9' })).to.equal(
      '::ffff:127.0.0.1',
    );
    expect(ipOf({}, undefined)).to.equal(null);
  });

  it('true trusts one hop: the address the nearest proxy saw, never what the client wrote before it', () => {
    expect(loadConfig({ IP_TRUST_PROXY: 'true' }, NO_FILE).ipTrustProxy).to.equal(1);
    expect(ipOf({ IP_TRUST_PROXY: 'true' }, '127.0.0.1', { 'x-forwarded-for': '6.6.6.6, 10.9.9.9' })).to.equal(
      '10.9.9.9',
    );
    expect(ipOf({ IP_TRUST_PROXY: 'true' }, '127.0.0.1', { 'x-forwarded-for': '10.9.9.9, 6.6.6.6' })).to.equal(
      '6.6.6.6',
    );
    expect(ipOf({ IP_TRUST_PROXY: 'true' }, '127.0.0.1')).to.equal('127.0.0.1');
  });

  it('a number trusts that many hops', () => {
    const env = { IP_TRUST_PROXY: '2' };
    expect(loadConfig(env, NO_FILE).ipTrustProxy).to.equal(2);
    expect(ipOf(env, '127.0.0.1', { 'x-forwarded-for': '6.6.6.6,10.9.9.9, 192.0.2.1' })).to.equal('10.9.9.9');
    expect(ipOf(env, '127.0.0.1', { 'x-forwarded-for': '10.9.9.9' }), 'fewer entries than hops: the first').to.equal(
      '10.9.9.9',
    );
    expect(ipOf(env, '127.0.0.1', { 'x-forwarded-for': ' , 10.9.9.9,, 192.0.2.1 ' }), 'empty entries skipped').to.equal(
      '10.9.9.9',
    );
    expect(loadConfig({ IP_TRUST_PROXY: '0' }, NO_FILE).ipTrustProxy).to.equal(false);
  });

  it('a list trusts those proxies only: the first address from the end that is not one of them is the client', () => {
    const env = { IP_TRUST_PROXY: 'loopback, 192.0.2.0/24' };
    expect(loadConfig(env, NO_FILE).ipTrustProxy).to.deep.equal(['127.0.0.1/8', '::1/128', '192.0.2.0/24']);
    expect(ipOf(env, '::ffff:127.0.0.1', { 'x-forwarded-for': '6.6.6.6, 10.9.9.9, 192.0.2.7' })).to.equal('10.9.9.9');
    expect(
      ipOf(env, '127.0.0.1', { 'x-forwarded-for': '10.9.9.9, 198.51.100.1' }),
      'an untrusted hop is the client',
    ).to.equal('198.51.100.1');
    expect(
      ipOf(env, '198.51.100.1', { 'x-forwarded-for': '10.9.9.9' }),
      'an untrusted peer: the header is ignored',
    ).to.equal('198.51.100.1');
    expect(ipOf({ IP_TRUST_PROXY: '2001:db8::/32' }, '2001:db8::5', { 'x-forwarded-for': '2001:db9::1' })).to.equal(
      '2001:db9::1',
    );
    expect(ipOf({ IP_TRUST_PROXY: '2001:db8::/32' }, '2001:db9::5', { 'x-forwarded-for': '2001:db9::1' })).to.equal(
      '2001:db9::5',
    );
  });

  it("the trust function Express's req.ip uses is the same", () => {
    const hops = proxyTrust(loadConfig({ IP_TRUST_PROXY: '2' }, NO_FILE));
    expect([0, 1, 2].map((hop) => hops('10.0.0.1', hop))).to.deep.equal([true, true, false]);
    const list = proxyTrust(loadConfig({ IP_TRUST_PROXY: '10.0.0.0/8' }, NO_FILE));
    expect([list('10.1.2.3', 5), list('11.0.0.1', 0)]).to.deep.equal([true, false]);
    expect(proxyTrust(loadConfig({}, NO_FILE))('127.0.0.1', 0)).to.equal(false);
  });

  it('IP_CUSTOM_HEADER counts when the peer is a trusted proxy (its last entry); it needs IP_TRUST_PROXY (load-config.test.ts)', () => {
    const env = { IP_TRUST_PROXY: 'loopback', IP_CUSTOM_HEADER: 'X-Real-IP' };
    expect(ipOf(env, '127.0.0.1', { 'x-real-ip': '10.9.9.9', 'x-forwarded-for': '6.6.6.6' })).to.equal('10.9.9.9');
    expect(ipOf(env, '127.0.0.1', { 'x-real-ip': '6.6.6.6, 10.9.9.9' })).to.equal('10.9.9.9');
    expect(ipOf(env, '127.0.0.1', { 'x-forwarded-for': '10.9.9.9' }), 'without it: X-Forwarded-For').to.equal(
      '10.9.9.9',
    );
    expect(ipOf(env, '198.51.100.1', { 'x-real-ip': '10.9.9.9' }), 'from an untrusted peer: ignored').to.equal(
      '198.51.100.1',
    );
  });
});
