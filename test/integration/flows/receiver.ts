import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  /** What the receiver answered: 500 to a refused request, else 200. */
  readonly status: number;
}

/**
 * A real HTTP receiver on a loopback port: records every request, answers 500 to the first
 * `failures`, and to those `refuse` picks (by path).
 */
export class Receiver {
  readonly requests: Received[] = [];
  failures = 0;
  refuse: (url: string) => boolean = () => false;
  #server: Server | undefined;
  #port = 0;

  get url(): string {
    return `http://127.0.0.1:${this.#port}`;
  }

  async start(): Promise<void> {
    this.#server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        const isRefused = this.refuse(req.url ?? '');
        const status = isRefused || this.failures > 0 ? 500 : 200;
        this.requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body, status });
        if (status === 500) {
          if (!isRefused) this.failures -= 1;
          res.writeHead(500).end('down');
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true, got: req.url }));
      });
    });
    await new Promise<void>((resolve) => this.#server?.listen(0, '127.0.0.1', resolve));
    this.#port = (this.#server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) =>
      this.#server === undefined ? resolve() : this.#server.close(() => resolve()),
    );
  }

  /** Waits until `count` requests arrived (or fails after `timeoutMs`). */
  async waitFor(count: number, timeoutMs = 10_000): Promise<Received[]> {
    const end = Date.now() + timeoutMs;
    while (this.requests.length < count) {
      if (Date.now() > end) throw new Error(`the receiver got ${this.requests.length} requests, not ${count}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return this.requests;
  }
}
