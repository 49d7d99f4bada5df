import { expect } from 'chai';
import express from 'express';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CONSOLE_CSP, consoleRoutes } from '../../../src/http/console.js';
import { createErrorHandler } from '../../../src/http/error-handler.js';
import { createLogger } from '../../../src/logger/index.js';

/** src/http/console.ts on its own, over a folder of stand-in files: what /admin answers. */
describe('console routes (/admin)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-console-routes-'));
  let server: Server;
  let base = '';

  before(async () => {
    writeFileSync(
      join(dir, 'index.html'),
      '<!doctype html><meta name="csp-nonce" content="__CSP_NONCE__"><title>console</title>',
    );
    writeFileSync(join(dir, 'app.js'), 'export {};');
    const app = express();
    app.use('/admin', consoleRoutes(dir));
    app.use('/unbuilt', consoleRoutes(join(dir, 'missing')));
    app.use(
      createErrorHandler({
        logger: createLogger({ logLevel: 'silent', logStyle: 'raw' }),
        dialect: 'sqlite3',
        // The console's errors never concern the schema.
        schema: { invalidate: () => Promise.resolve() },
      }),
    );
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves files revalidated (no-cache + ETag) under a self-only CSP', async () => {
    const res = await fetch(`${base}/admin/app.js`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/javascript/);
    expect(res.headers.get('cache-control')).to.equal('no-cache');
    const etag = res.headers.get('etag') ?? '';
    expect(etag).to.not.equal('');
    expect(res.headers.get('content-security-policy')).to.equal(CONSOLE_CSP);
    expect(res.headers.get('x-content-type-options')).to.equal('nosniff');
    // A browser revalidating: fetch would add `Cache-Control: no-cache` to a conditional request (a reload).
    const headers = { 'if-none-match': etag, 'cache-control': 'max-age=0' };
    expect((await fetch(`${base}/admin/app.js`, { headers })).status).to.equal(304);
  });

  it('answers index.html for the console routes, with and without a trailing slash or a query', async () => {
    for (const path of [
      '/admin',
      '/admin/',
      '/admin/content/articles/7/history',
      '/admin/reset-password?token=a.b.c',
    ]) {
      const res = await fetch(base + path);
      expect(res.status, path).to.equal(200);
      expect(await res.text(), path).to.include('<title>console</title>');
      expect(res.headers.get('referrer-policy'), path).to.equal('no-referrer');
    }
  });

  it("gives each index.html answer its own style nonce, in the CSP and in the page's meta", async () => {
    const nonces: string[] = [];
    for (let i = 0; i < 2; i++) {
      const res = await fetch(`${base}/admin/content`);
      const csp = res.headers.get('content-security-policy') ?? '';
      const nonce = /style-src 'self' 'nonce-([A-Za-z0-9+/=]{20,})'/.exec(csp)?.[1] ?? '';
      expect(nonce, csp).to.not.equal('');
      expect(csp).to.include("script-src 'self';").and.not.include('unsafe-inline');
      expect(await res.text()).to.include(`<meta name="csp-nonce" content="${nonce}">`);
      nonces.push(nonce);
    }
    expect(nonces[0]).to.not.equal(nonces[1]);
  });

  it('a missing file is 404, and an unbuilt console 503 saying how to build it', async () => {
    const missing = await fetch(`${base}/admin/nothing.js`);
    expect(missing.status).to.equal(404);
    const unbuilt = await fetch(`${base}/unbuilt/content`);
    expect(unbuilt.status).to.equal(503);
    const body = (await unbuilt.json()) as { errors: { message: string; extensions: { code: string } }[] };
    expect(body.errors[0]?.extensions.code).to.equal('SERVICE_UNAVAILABLE');
    expect(body.errors[0]?.message).to.include('make build');
  });
});
