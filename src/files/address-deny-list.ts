import { BlockList, isIP, isIPv4 } from 'node:net';
import { networkInterfaces } from 'node:os';
import { ConfigError } from '../config/index.js';

/**
 * IMPORT_IP_DENY_LIST as a lookup: single addresses, CIDR ranges (`10.0.0.0/8`, `fc00::/7`)
 * and `0.0.0.0`, which stands for the machine itself: every address of its interfaces, the
 * whole subnet of its loopback interfaces (`127.0.0.2` reaches it as well as `127.0.0.1`).
 * The unspecified addresses (`0.0.0.0/8`, `::`) are refused whatever the list says: a
 * connection to them reaches the machine itself.
 *
 * An IPv6 address that carries an IPv4 address is refused when either is on the list: the
 * IPv4-mapped `::ffff:a.b.c.d`, `::ffff:0:a.b.c.d`, the IPv4-compatible `::a.b.c.d`, NAT64
 * `64:ff9b::/96` and `64:ff9b:1::/48` (every RFC 6052 position), 6to4 `2002::/16` and
 * Teredo `2001::/32` (server and client address), whichever way the IPv6 text is written.
 * Decimal, octal and hexadecimal IPv4 forms (`2130706433`, `0x7f.1`) never reach this
 * list: the URL parser turns them into dotted quads first.
 */
export class AddressDenyList {
  readonly #blocked = new BlockList();

  constructor(entries: readonly string[]) {
    this.#blocked.addSubnet('0.0.0.0', 8, 'ipv4');
    this.#blocked.addAddress('::', 'ipv6');
    for (const entry of entries) this.#add(entry.trim());
  }

  isDenied(address: string): boolean {
    const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
    const family = isIP(bare);
    if (family === 0) return true;
    if (family === 4) return this.#blocked.check(bare, 'ipv4');
    if (this.#blocked.check(bare, 'ipv6')) return true;
    return embeddedIPv4(bare).some((ipv4) => this.#blocked.check(ipv4, 'ipv4'));
  }

  #add(entry: string): void {
    if (entry === '') return;
    if (entry === '0.0.0.0') {
      for (const local of localAddresses()) this.#add(local);
      return;
    }
    const [network = '', prefix] = entry.split('/');
    const bare = network.replace(/^\[|\]$/g, '');
    const address = unmapIPv4(bare);
    const family = isIP(address);
    // A mapped range (`::ffff:10.0.0.0/104`) is the IPv4 range it maps.
    const mapped = family === 4 && isIP(bare) === 6;
    const length = prefix !== undefined && /^\d+$/.test(prefix) ? Number(prefix) - (mapped ? 96 : 0) : undefined;
    const isBadLength =
      prefix !== undefined && (length === undefined || length < 0 || length > (family === 4 ? 32 : 128));
    if (family === 0 || isBadLength) {
      throw new ConfigError('IMPORT_IP_DENY_LIST', `has "${entry}", which is neither an IP address nor a CIDR range`);
    }
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (length === undefined) this.#blocked.addAddress(address, type);
    else this.#blocked.addSubnet(address, length, type);
  }
}

/** The machine's own addresses; a loopback interface as its whole subnet (`127.0.0.1/8`). */
function localAddresses(): string[] {
  return Object.values(networkInterfaces()).flatMap((list) =>
    (list ?? []).map((info) => (info.internal && info.cidr !== null ? info.cidr : info.address).split('%')[0] ?? ''),
  );
}

/** `::ffff:a.b.c.d` and `::ffff:xxxx:yyyy` → `a.b.c.d`; anything else unchanged (brackets dropped). */
export function unmapIPv4(address: string): string {
  const bare = address.replace(/^\[|\]$/g, '');
  if (isIP(bare) !== 6) return bare;
  const words = ipv6Words(bare);
  return words.slice(0, 5).every((w) => w === 0) && words[5] === 0xffff ? ipv4Of(words[6], words[7]) : bare;
}

/**
 * The IPv4 addresses an IPv6 address carries (see AddressDenyList), as dotted quads; none
 * for any other address. `::` and `::1` are IPv6's own, not IPv4-compatible addresses.
 */
export function embeddedIPv4(address: string): string[] {
  const w = ipv6Words(address);
  const zeros = (from: number, to: number) => w.slice(from, to).every((word) => word === 0);
  const bytes = w.flatMap((word) => [word >> 8, word & 0xff]);
  const quad = (...at: number[]) => at.map((i) => bytes[i] ?? 0).join('.');
  if (zeros(0, 5) && w[5] === 0xffff) return [ipv4Of(w[6], w[7])];
  if (zeros(0, 4) && w[4] === 0xffff && w[5] === 0) return [ipv4Of(w[6], w[7])];
  if (zeros(0, 6)) return zeros(6, 7) && (w[7] ?? 0) <= 1 ? [] : [ipv4Of(w[6], w[7])];
  if (w[0] === 0x64 && w[1] === 0xff9b && zeros(2, 6)) return [ipv4Of(w[6], w[7])];
  if (w[0] === 0x64 && w[1] === 0xff9b && w[2] === 1) {
    // RFC 6052 2.2: the IPv4 address after a /48, /56, /64, /72, /80 or /96 prefix, skipping bits
    // 64-71. A NAT64 never translates to 0.0.0.0/8, which the zero suffix of the other positions gives.
    const positions = [
      quad(6, 7, 9, 10),
      quad(7, 9, 10, 11),
      quad(9, 10, 11, 12),
      quad(10, 11, 12, 13),
      quad(11, 12, 13, 14),
      quad(12, 13, 14, 15),
    ];
    return positions.filter((ipv4) => !ipv4.startsWith('0.'));
  }
  if (w[0] === 0x2002) return [ipv4Of(w[1], w[2])];
  // Teredo: the server's address, and the client's (bits inverted).
  if (w[0] === 0x2001 && w[1] === 0) return [ipv4Of(w[2], w[3]), ipv4Of(~(w[6] ?? 0) & 0xffff, ~(w[7] ?? 0) & 0xffff)];
  return [];
}

function ipv4Of(high = 0, low = 0): string {
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}

/** The eight 16-bit words of a valid IPv6 address (`::` expanded, a trailing dotted quad as two words). */
function ipv6Words(address: string): number[] {
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(address)?.[1];
  let text = address;
  if (dotted !== undefined && isIPv4(dotted)) {
    const [a = 0, b = 0, c = 0, d = 0] = dotted.split('.').map(Number);
    text = `${address.slice(0, -dotted.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((word) => parseInt(word, 16)));
  const first = parse(head);
  const last = tail === undefined ? [] : parse(tail);
  return [...first, ...new Array<number>(8 - first.length - last.length).fill(0), ...last];
}
