import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import type { AddressDenyList } from './address-deny-list.js';

/** Why a URL could not be fetched; the caller reports SERVICE_UNAVAILABLE without the detail. */
class ExternalFetchError extends Error {
  override readonly name = 'ExternalFetchError';
}

export interface FetchOptions {
  readonly denyList: AddressDenyList;
  readonly maxRedirects?: number;
  /** Idle time after which the connection is given up. */
  readonly timeoutMs?: number;
  /** Another request than a plain GET (the flows' `request` operation). */
  readonly request?: ExternalRequest;
}

/** Method, headers and body of a request; a redirect other than 307/308 goes on as a GET without body. */
interface ExternalRequest {
  readonly method: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
}

/**
 * GET `url` without letting it reach an address of IMPORT_IP_DENY_LIST: an IP in the URL is
 * checked as is; a host name is resolved once, every address it resolves to is checked and
 * the connection goes to a checked address (no second resolution a DNS answer could change);
 * redirects are followed by hand, each hop checked the same way. Resolves with the response
 * of the last hop once it answers 2xx; its body is still to be read.
 */
export async function fetchExternal(
  url: string,
  options: FetchOptions,
): Promise<{ response: IncomingMessage; url: URL }> {
  const maxRedirects = options.maxRedirects ?? 5;
  let current = new URL(url);
  let request = options.request;
  for (let hop = 0; ; hop += 1) {
    const response = await get(current, options, request);
    const status = response.statusCode ?? 0;
    const location = response.headers.location;
    if (status >= 300 && status < 400 && location !== undefined) {
      response.resume();
      if (hop >= maxRedirects) throw new ExternalFetchError(`more than ${maxRedirects} redirects`);
      current = new URL(location, current);
      if (status !== 307 && status !== 308) request = undefined;
      continue;
    }
    if (status < 200 || status >= 300) {
      response.resume();
      throw new ExternalFetchError(`answered ${status}`);
    }
    return { response, url: current };
  }
}

function get(url: URL, options: FetchOptions, external?: ExternalRequest): Promise<IncomingMessage> {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return Promise.reject(new ExternalFetchError(`protocol ${url.protocol} is not fetched`));
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0 && options.denyList.isDenied(host)) {
    return Promise.reject(new ExternalFetchError(`address ${host} is denied`));
  }
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const requestOptions: RequestOptions = {
    method: external?.method ?? 'GET',
    lookup: guardedLookup(options.denyList),
    headers: { 'user-agent': 'content-data-service', ...external?.headers },
  };
  return new Promise((resolve, reject) => {
    const req = request(url, requestOptions, resolve);
    req.setTimeout(options.timeoutMs ?? 30_000, () => req.destroy(new ExternalFetchError('timed out')));
    req.on('error', reject);
    req.end(external?.body);
  });
}

/** dns.lookup that fails when any address of the name is denied. */
function guardedLookup(denyList: AddressDenyList): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error !== null) {
        callback(error, '', 0);
        return;
      }
      const denied = addresses.find((a) => denyList.isDenied(a.address));
      if (denied !== undefined || addresses.length === 0) {
        callback(new ExternalFetchError(`${hostname} resolves to a denied address`), '', 0);
        return;
      }
      if (options.all === true) {
        (callback as unknown as (err: null, addresses: LookupAddress[]) => void)(null, addresses);
        return;
      }
      const [first] = addresses as [LookupAddress];
      callback(null, first.address, first.family);
    });
  };
}
