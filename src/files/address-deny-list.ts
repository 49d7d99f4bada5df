import { BlockList, isIP, isIPv4 } from 'node:net';
import { networkInterfaces } from 'node:os';
import { ConfigError } from '../config/index.js';

/**
 * IMPORT_IP_DENY_LIST as a lookup: single addresses, CIDR ranges (`10.0.0.0/8`, `fc00::/7`)
 * and `0.0.0.0`, which stands for every address of the machine's own interfaces (plus the
 * unspecified addresses, which reach the machine itself). IPv4-mapped IPv6 addresses
 * (`::ffff:127.0.0.1`) are checked as the IPv4 address they carry.
 */
export class AddressDenyList {
  readonly #blocked = new BlockList();

  constructor(entries: readonly string[]) {
    for (const entry of entries) this.#add(entry.trim());
  }

  isDenied(address: string): boolean {
    const normalized = unmapIPv4(address);
    const family = isIP(normalized);
    if (family === 0) return true;
    return this.#blocked.check(normalized, family === 4 ? 'ipv4' : 'ipv6');
  }

  #add(entry: string): void {
    if (entry === '') return;
    if (entry === '0.0.0.0') {
      this.#blocked.addAddress('0.0.0.0', 'ipv4');
      this.#blocked.addAddress('::', 'ipv6');
      for (const address of localAddresses()) this.#add(address);
      return;
    }
    const [network = '', prefix] = entry.split('/');
    const address = unmapIPv4(network);
    const family = isIP(address);
    const bits = family === 4 ? 32 : 128;
    if (family === 0 || (prefix !== undefined && !(/^\d+$/.test(prefix) && Number(prefix) <= bits))) {
      throw new ConfigError('IMPORT_IP_DENY_LIST', `has "${entry}", which is neither an IP address nor a CIDR range`);
    }
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (prefix === undefined) this.#blocked.addAddress(address, type);
    else this.#blocked.addSubnet(address, Number(prefix), type);
  }
}

function localAddresses(): string[] {
  return Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((info) => info.address.split('%')[0] ?? ''));
}

/** `::ffff:a.b.c.d` and `::ffff:xxxx:yyyy` → `a.b.c.d`; anything else unchanged. */
export function unmapIPv4(address: string): string {
  const bare = address.replace(/^\[|\]$/g, '');
  const dotted = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare)?.[1];
  if (dotted !== undefined && isIPv4(dotted)) return dotted;
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(bare);
  if (hex?.[1] !== undefined && hex[2] !== undefined) {
    const high = parseInt(hex[1], 16);
    const low = parseInt(hex[2], 16);
    return [high >> 8, high & 255, low >> 8, low & 255].join('.');
  }
  return bare;
}
