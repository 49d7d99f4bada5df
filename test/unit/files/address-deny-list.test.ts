import { expect } from 'chai';
import { networkInterfaces } from 'node:os';
import { AddressDenyList, embeddedIPv4, unmapIPv4 } from '../../../src/files/address-deny-list.js';
import { ConfigError, DEFAULT_IMPORT_IP_DENY_LIST } from '../../../src/config/index.js';

describe('import address deny list', () => {
  const defaults = new AddressDenyList(DEFAULT_IMPORT_IP_DENY_LIST);

  it('by default refuses loopback, private, shared, link-local, metadata and unspecified addresses', () => {
    for (const address of [
      '127.0.0.1',
      '127.8.9.10',
      '10.1.2.3',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '100.64.0.1',
      '169.254.169.254',
      '169.254.1.1',
      '0.0.0.0',
      '::1',
      '::',
      'fd12::1',
      'fe80::1',
      'fd00:ec2::254',
    ]) {
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
    const local = Object.values(networkInterfaces())
      .flatMap((l) => l ?? [])
      .map((i) => i.address.split('%')[0] ?? '');
    expect(local.length).to.be.greaterThan(0);
    for (const address of local) expect(list.isDenied(address), address).to.equal(true);
    // The loopback interface answers its whole subnet, not only the address it lists.
    expect(list.isDenied('127.0.0.2')).to.equal(true);
    expect(list.isDenied('93.184.216.34')).to.equal(false);
  });

  it('refuses the unspecified addresses whatever the list, as they reach the machine itself', () => {
    const list = new AddressDenyList([]);
    for (const address of ['0.0.0.0', '0.1.2.3', '::', '[::]', '::ffff:0.0.0.0', '::ffff:0:0.0.0.0']) {
      expect(list.isDenied(address), address).to.equal(true);
    }
    expect(list.isDenied('127.0.0.1')).to.equal(false);
    expect(list.isDenied('::1')).to.equal(false);
  });

  describe('IPv6 addresses that carry an IPv4 address', () => {
    const loopback = new AddressDenyList(['127.0.0.0/8']);
    // Every way of writing 127.0.0.1 inside an IPv6 address, as the URL parser hands it over and as typed.
    const CASES: readonly (readonly [form: string, address: string, embedded: readonly string[]])[] = [
      ['IPv4-mapped', '::ffff:127.0.0.1', ['127.0.0.1']],
      ['IPv4-mapped, hex', '::ffff:7f00:1', ['127.0.0.1']],
      ['IPv4-mapped, uncompressed', '0:0:0:0:0:ffff:7f00:0001', ['127.0.0.1']],
      ['IPv4-translated', '::ffff:0:127.0.0.1', ['127.0.0.1']],
      ['IPv4-translated, hex', '::ffff:0:7f00:1', ['127.0.0.1']],
      ['IPv4-compatible', '::127.0.0.1', ['127.0.0.1']],
      ['IPv4-compatible, hex', '::7f00:1', ['127.0.0.1']],
      ['NAT64 well-known prefix', '64:ff9b::127.0.0.1', ['127.0.0.1']],
      ['NAT64 well-known prefix, hex', '64:ff9b::7f00:1', ['127.0.0.1']],
      ['NAT64 local-use /96', '64:ff9b:1::7f00:1', ['127.0.0.1']],
      ['NAT64 local-use /48', '64:ff9b:1:7f00:0:100::', ['127.0.0.1']],
      ['NAT64 local-use /64', '64:ff9b:1:0:7f:0:100::', ['127.0.0.1']],
      ['6to4', '2002:7f00:1::1', ['127.0.0.1']],
      ['Teredo client (bits inverted)', '2001:0:4136:e378:8000:63bf:80ff:fffe', ['65.54.227.120', '127.0.0.1']],
      ['Teredo server', '2001:0:7f00:1::', ['127.0.0.1', '255.255.255.255']],
    ];
    for (const [form, address, embedded] of CASES) {
      it(`${form}: ${address}`, () => {
        expect(embeddedIPv4(address)).to.include.members(embedded);
        expect(loopback.isDenied(address)).to.equal(true);
        expect(loopback.isDenied(`[${address}]`)).to.equal(true);
        expect(defaults.isDenied(address)).to.equal(true);
      });
    }

    it('lets the same forms through when the IPv4 address they carry is allowed', () => {
      for (const address of [
        '::ffff:8.8.8.8',
        '::ffff:0:8.8.8.8',
        '::8.8.8.8',
        '64:ff9b::8.8.8.8',
        '64:ff9b:1::808:808',
        '2002:808:808::1',
        '2001:0:808:808::f7f7:f7f7',
      ]) {
        expect(loopback.isDenied(address), address).to.equal(false);
        expect(defaults.isDenied(address), address).to.equal(false);
      }
    });

    it("finds no IPv4 address in other IPv6 addresses; :: and ::1 are IPv6's own", () => {
      for (const address of ['::', '::1', '2606:4700::6810:85e5', 'fe80::1', '2001:db8::7f00:1'])
        expect(embeddedIPv4(address), address).to.deep.equal([]);
      expect(loopback.isDenied('2606:4700::7f00:1')).to.equal(false);
    });

    it('takes a mapped range on the list as the IPv4 range it maps', () => {
      const list = new AddressDenyList(['::ffff:10.0.0.0/104']);
      expect(list.isDenied('10.9.8.7')).to.equal(true);
      expect(list.isDenied('11.0.0.1')).to.equal(false);
      expect(() => new AddressDenyList(['::ffff:10.0.0.0/64'])).to.throw(ConfigError);
    });
  });

  it('decimal, octal and hexadecimal IPv4 forms reach the list as the dotted quad they stand for', () => {
    for (const url of [
      'http://2130706433/',
      'http://0x7f.1/',
      'http://017700000001/',
      'http://0177.0.0.1/',
      'http://127.1/',
      'http://0x7f000001/',
    ]) {
      const host = new URL(url).hostname;
      expect(host, url).to.equal('127.0.0.1');
      expect(defaults.isDenied(host), url).to.equal(true);
    }
    for (const url of [
      'http://0/',
      'http://0.0.0.0/',
      'http://[::]/',
      'http://[::ffff:0:127.0.0.1]/',
      'http://[::127.0.0.1]/',
      'http://[64:ff9b::127.0.0.1]/',
    ]) {
      expect(defaults.isDenied(new URL(url).hostname), url).to.equal(true);
    }
  });

  it('a list without loopback lets loopback through; entries that are not addresses stop the start', () => {
    expect(new AddressDenyList(['169.254.169.254']).isDenied('127.0.0.1')).to.equal(false);
    expect(() => new AddressDenyList(['example.com'])).to.throw(ConfigError, /IMPORT_IP_DENY_LIST/);
    expect(() => new AddressDenyList(['10.0.0.0/33'])).to.throw(ConfigError);
  });
});
