import { isIP } from 'node:net';
import { ConfigError, type EnvReader } from './env-reader.js';

/** IP_TRUST_PROXY: no proxy, a number of hops, or the proxies' addresses and CIDR ranges. */
export type TrustedProxies = false | number | readonly string[];

/** The named ranges Express's `trust proxy` accepts (proxy-addr), as CIDR ranges. */
const PROXY_RANGES: Readonly<Record<string, readonly string[]>> = {
  loopback: ['127.0.0.1/8', '::1/128'],
  linklocal: ['169.254.0.0/16', 'fe80::/10'],
  uniquelocal: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'],
};

/**
 * IP_TRUST_PROXY: `false` (default) trusts no proxy; `true` one hop (the nearest proxy's view,
 * never the client's own claims: [DEVIATION] Express's `true` trusts every hop); a number,
 * that many hops; else a comma list of addresses, CIDR ranges and the names loopback,
 * linklocal, uniquelocal.
 */
export function readTrustedProxies(env: EnvReader): TrustedProxies {
  const value = env.string('IP_TRUST_PROXY');
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return 1;
  if (/^(number:)?\d+$/.test(value)) {
    const hops = env.int('IP_TRUST_PROXY', 0, { min: 0 });
    return hops === 0 ? false : hops;
  }
  const entries = env.list('IP_TRUST_PROXY').flatMap((entry) => PROXY_RANGES[entry] ?? [entry]);
  for (const entry of entries) {
    if (!isAddressOrRange(entry)) {
      throw new ConfigError(
        'IP_TRUST_PROXY',
        `must be true, false, a number of hops or a list of addresses and CIDR ranges, got "${entry}"`,
      );
    }
  }
  return entries.length === 0 ? false : entries;
}

/** An IPv4 or IPv6 address, or a CIDR range of one (also svc_roles.ip_access entries). */
export function isAddressOrRange(entry: string): boolean {
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  const bits = /^\d+$/.test(prefix) ? Number(prefix) : NaN;
  return bits <= (family === 4 ? 32 : 128);
}
