import { BlockList, isIP } from 'node:net';
import { InvalidIpError } from '../errors.js';

/** svc_roles.ip_access (CSV in the database, array in the API) as a list of entries. */
function parseIpAccess(value: unknown): string[] {
  const entries = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : [];
  return entries.map((e) => String(e).trim()).filter((e) => e !== '');
}

/**
 * True when `ip` is in the role's allow-list of IPs and CIDR ranges (IPv4 and IPv6), or
 * the list is empty. Malformed entries match nothing.
 */
function isIpAllowed(ipAccess: readonly string[], ip: string | null): boolean {
  if (ipAccess.length === 0) return true;
  return ip !== null && ipMatcher(ipAccess)(ip);
}

/**
 * A test of addresses against a list of IPs and CIDR ranges (IPv4 and IPv6; an IPv4 caller of
 * a dual-stack socket matches its IPv4 entries). Malformed entries and addresses match nothing.
 */
export function ipMatcher(entries: readonly string[]): (ip: string) => boolean {
  const list = toBlockList(entries);
  return (ip) => {
    const address = unmapIpv4(ip);
    const family = isIP(address);
    return family !== 0 && list.check(address, family === 4 ? 'ipv4' : 'ipv6');
  };
}

/** INVALID_IP unless `ip` may use a role with this `ip_access` value. */
export function assertIpAllowed(ipAccess: unknown, ip: string | null): void {
  if (!isIpAllowed(parseIpAccess(ipAccess), ip)) throw new InvalidIpError();
}

// Node reports IPv4 callers of a dual-stack socket as ::ffff:a.b.c.d.
function unmapIpv4(ip: string): string {
  const match = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  return match?.[1] ?? ip;
}

function toBlockList(entries: readonly string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const [rawAddress = '', prefix] = entry.split('/');
    const address = unmapIpv4(rawAddress);
    const family = isIP(address);
    if (family === 0) continue;
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (prefix === undefined) {
      list.addAddress(address, type);
      continue;
    }
    const bits = Number(prefix);
    if (Number.isInteger(bits) && bits >= 0 && bits <= (family === 4 ? 32 : 128)) {
      list.addSubnet(address, bits, type);
    }
  }
  return list;
}
