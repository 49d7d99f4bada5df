import type { IncomingMessage } from 'node:http';
import { ipMatcher } from '../auth/ip-access.js';
import type { Config } from '../config/index.js';

/**
 * Express's `trust proxy` function: whether the address `hop` steps away from the service
 * (0: the socket's peer, 1: the last X-Forwarded-For entry, ...) is a proxy we trust.
 */
export type ProxyTrust = (address: string, hop: number) => boolean;

type IpSettings = Pick<Config, 'ipTrustProxy' | 'ipCustomHeader'>;

interface ClientIpRule {
  readonly trust: ProxyTrust;
  /** IP_CUSTOM_HEADER lower-cased, as node:http names headers. */
  readonly customHeader: string | undefined;
}

const rules = new WeakMap<IpSettings, ClientIpRule>();

/** IP_TRUST_PROXY as a trust function: nobody, the nearest `n` hops, or the listed proxies. */
export function proxyTrust(config: IpSettings): ProxyTrust {
  const trusted = config.ipTrustProxy;
  if (trusted === false) return () => false;
  if (typeof trusted === 'number') return (_address, hop) => hop < trusted;
  const isProxy = ipMatcher(trusted);
  return (address) => isProxy(address);
}

/**
 * The caller's address: the one place it is derived, for the Express app and the fast path
 * alike, and for every use (role ip_access, the rate limiters, the login and registration
 * limiters, the `ip` of activity and sessions).
 *
 * Without trusted proxies (IP_TRUST_PROXY=false, the default) it is the socket's peer,
 * whatever the request's headers say. Otherwise, as Express's `req.ip` with the same trust
 * (app.ts sets it): X-Forwarded-For is read from its end, the address each trusted proxy saw,
 * and the first address that is not a trusted proxy is the client; so a client's own entries
 * at the start of the header count only when every proxy after them is trusted. A trusted
 * peer's IP_CUSTOM_HEADER wins (its last entry: the one that proxy wrote).
 */
export function clientIp(config: IpSettings, req: IncomingMessage): string | null {
  const rule = ruleOf(config);
  const peer = req.socket.remoteAddress;
  if (peer === undefined) return null;
  if (!rule.trust(peer, 0)) return peer;
  if (rule.customHeader !== undefined) {
    const custom = headerEntries(req.headers[rule.customHeader]).at(-1);
    if (custom !== undefined) return custom;
  }
  const forwarded = headerEntries(req.headers['x-forwarded-for']);
  let address = peer;
  for (let hop = 1; hop <= forwarded.length; hop++) {
    address = forwarded[forwarded.length - hop] as string;
    if (!rule.trust(address, hop)) return address;
  }
  return address;
}

function ruleOf(config: IpSettings): ClientIpRule {
  let rule = rules.get(config);
  if (rule === undefined) {
    rule = {
      trust: proxyTrust(config),
      customHeader: config.ipCustomHeader === false ? undefined : config.ipCustomHeader.toLowerCase(),
    };
    rules.set(config, rule);
  }
  return rule;
}

/** A comma list header's entries, empty ones dropped (as Express's `forwarded` parses it). */
function headerEntries(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  const text = Array.isArray(value) ? value.join(',') : value;
  return text
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
}
