interface StoredCookie {
  readonly name: string;
  readonly value: string;
  readonly host: string;
  readonly path: string;
  readonly expires: number | undefined;
}

/** One step of a navigation: the URL asked for and the answer. */
export interface Hop {
  readonly url: string;
  readonly response: Response;
}

/**
 * A browser-like HTTP client over fetch: keeps cookies per host and path (Max-Age, Expires,
 * deletion; ports do not separate cookies, as in browsers), sends them back, and follows
 * redirects. Enough for the single sign-on dance between the service and a provider.
 */
export class Browser {
  readonly #cookies = new Map<string, StoredCookie>();

  /**
   * Goes to `url` and follows redirects while `follow(location)` says so (default: loopback
   * URLs only), returning every hop; the last one is where the browser stopped.
   */
  async navigate(url: string, follow: (location: URL) => boolean = isLoopback): Promise<Hop[]> {
    const hops: Hop[] = [];
    let next: string | undefined = url;
    while (next !== undefined) {
      if (hops.length > 20) throw new Error(`too many redirects: ${hops.map((h) => h.url).join(' → ')}`);
      const response = await this.request(next);
      hops.push({ url: next, response });
      const location = response.headers.get('location');
      const target: URL | undefined =
        location === null || response.status < 300 || response.status >= 400 ? undefined : new URL(location, next);
      next = target !== undefined && follow(target) ? target.href : undefined;
    }
    return hops;
  }

  /** One request with the cookies of `url`; the cookies it sets are kept. */
  async request(url: string, init: RequestInit = {}): Promise<Response> {
    const target = new URL(url);
    const headers = new Headers(init.headers);
    const cookie = this.cookieHeader(target);
    if (cookie !== '') headers.set('cookie', cookie);
    const response = await fetch(target, { ...init, headers, redirect: 'manual' });
    for (const header of response.headers.getSetCookie()) this.store(target, header);
    return response;
  }

  /** The value of a kept cookie (any path) of `url`'s host. */
  cookie(url: string, name: string): string | undefined {
    const host = new URL(url).hostname;
    return [...this.#cookies.values()].find((c) => c.host === host && c.name === name && isLive(c))?.value;
  }

  /** Puts a cookie in the jar as if a server had set it (replays). */
  setCookie(url: string, name: string, value: string, path = '/'): void {
    this.#cookies.set(`${new URL(url).hostname};${path};${name}`, {
      name,
      value,
      host: new URL(url).hostname,
      path,
      expires: undefined,
    });
  }

  private cookieHeader(url: URL): string {
    return [...this.#cookies.values()]
      .filter((c) => c.host === url.hostname && pathMatches(url.pathname, c.path) && isLive(c))
      .sort((a, b) => b.path.length - a.path.length)
      .map((c) => `${c.name}=${c.value}`)
      .join('; ');
  }

  private store(url: URL, header: string): void {
    const [pair = '', ...attributes] = header.split(';').map((part) => part.trim());
    const at = pair.indexOf('=');
    if (at < 1) return;
    const name = pair.slice(0, at);
    const value = pair.slice(at + 1);
    let path = url.pathname.replace(/\/[^/]*$/, '') || '/';
    let expires: number | undefined;
    for (const attribute of attributes) {
      const [key = '', ...rest] = attribute.split('=');
      const attributeValue = rest.join('=');
      switch (key.toLowerCase()) {
        case 'path':
          path = attributeValue.startsWith('/') ? attributeValue : '/';
          break;
        case 'max-age':
          expires = Date.now() + Number(attributeValue) * 1000;
          break;
        case 'expires':
          expires ??= Date.parse(attributeValue);
          break;
      }
    }
    const key = `${url.hostname};${path};${name}`;
    if (expires !== undefined && expires <= Date.now()) this.#cookies.delete(key);
    else this.#cookies.set(key, { name, value, host: url.hostname, path, expires });
  }
}

function isLoopback(url: URL): boolean {
  return url.hostname === '127.0.0.1' || url.hostname === 'localhost';
}

function isLive(cookie: StoredCookie): boolean {
  return cookie.expires === undefined || cookie.expires > Date.now();
}

function pathMatches(requestPath: string, cookiePath: string): boolean {
  if (requestPath === cookiePath) return true;
  return requestPath.startsWith(cookiePath) && (cookiePath.endsWith('/') || requestPath[cookiePath.length] === '/');
}
