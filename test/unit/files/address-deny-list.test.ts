import { expect } from 'chai';
import { networkInterfaces } from 'node:os';
import { AddressDenyList, unmapIPv4 } from '../../../src/files/address-deny-list.js';
import { ConfigError, DEFAULT_IMPORT_IP_DENY_LIST } from '../../../src/config/index.js';

describe('import address deny list', () => {
  const defaults = new AddressDenyList(DEFAULT_IMPORT_IP_DENY_LIST);

  it('by default refuses loopback, private, shared, link-local, metadata and unspecified addresses', () => {
    for (const address of ['127.0.0.1', '127.8.9.10', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '100.64.0.1', '169.254.169.254', '169.254.1.1', '0.0.0.0', '::1', '::', 'fd12::1', 'fe80::1', 'fd00:ec2::254']) {
      expect(defaults.isDenied(address), address).to.equal(true);
    }
  });

  it('by default allows public addresses', () => {
    for (const address of ['93.184.216.34', '172.32.0.1', '8.8.8.8', '2606:4700::6810:85e5']) {
      expect(defaults.isDenied(address), address).to.equal(false);
    }
  });

  it('checks IPv4-mapped IPv6 addresses as the IPv4 address they carry', () => {
    expect(unmapIPv4('::ffff:7f00:1')).to.equal('127.0.0.1');
    expect(unmapIPv4('[::ffff:10.0.0.1]')).to.equal('10.0.0.1');
    expect(defaults.isDenied('::ffff:127.0.0.1')).to.equal(true);
    expect(defaults.isDenied('::ffff:7f00:1')).to.equal(true);
    expect(new AddressDenyList(['10.0.0.0/8']).isDenied('::ffff:a00:1')).to.equal(true);
  });

  it('0.0.0.0 stands for every address of the local interfaces', () => {
    const list = new AddressDenyList(['0.0.0.0']);
    const local = Object.values(networkInterfaces()).flatMap((l) => l ?? []).map((i) => i.address.split('%')[0] ?? '');
    expect(local.length).to.be.greaterThan(0);
    for (const address of local) expect(list.isDenied(address), address).to.equal(true);
    expect(list.isDenied('127.0.0.2')).to.equal(false);
  });

  it('a list without loopback lets loopback through; entries that are not addresses stop the start', () => {
    expect(new AddressDenyList(['169.254.169.254']).isDenied('127.0.0.1')).to.equal(false);
    expect(() => new AddressDenyList(['example.com'])).to.throw(ConfigError, /IMPORT_IP_DENY_LIST/);
    expect(() => new AddressDenyList(['10.0.0.0/33'])).to.throw(ConfigError);
  });
});
