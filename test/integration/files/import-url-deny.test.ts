import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeEachDatabase } from '../../support/server.js';
import { adminApi, countRows, errorsOf } from '../commands/schema.js';
import { startHttpServer, storedNames, type TestHttpServer } from './helpers.js';

const root = mkdtempSync(join(tmpdir(), 'svc-import-deny-'));
after(() => rmSync(root, { recursive: true, force: true }));

const env = {
  STORAGE_LOCAL_ROOT: root,
  FILES_MIME_TYPE_ALLOW_LIST: 'text/*',
  // 127.0.0.2 stays allowed for the redirecting server; every other way to 127.0.0.1 is refused.
  IMPORT_IP_DENY_LIST: '127.0.0.1,169.254.169.254',
};

/**
 * The ways of writing the machine's own address that a deny list of plain addresses used to
 * miss. The target listens on every IPv4 and IPv6 address, so any of them that got through
 * would reach it.
 */
const HOSTS = [
  '[::ffff:127.0.0.1]',
  '[::ffff:0:127.0.0.1]',
  '[::127.0.0.1]',
  '[64:ff9b::127.0.0.1]',
  '[2002:7f00:1::]',
  '2130706433',
  '0x7f.1',
  '017700000001',
  '127.1',
  '0.0.0.0',
  '0',
  '[::]',
];

describeEachDatabase(
  "POST /files/import refuses the machine's own address in every spelling",
  (ctx) => {
    const db = () => ctx().server.db;
    const api = (method: string, path: string, body?: unknown) => adminApi(ctx(), method, path, body);
    let target: TestHttpServer;
    let redirector: TestHttpServer;
    let port = '';
    before(async () => {
      target = await startHttpServer('::', (_req, res) => res.end('internal secret'));
      port = target.url.slice(target.url.lastIndexOf(':') + 1);
      redirector = await startHttpServer('127.0.0.2', (req, res) => {
        res.writeHead(302, { Location: `http://${decodeURIComponent(req.url?.slice(1) ?? '')}:${port}/secret` });
        res.end();
      });
    });
    after(async () => {
      await target.close();
      await redirector.close();
    });

    /** Every URL answers 503 SERVICE_UNAVAILABLE and leaves no row, file or connection. */
    async function expectRefused(urls: readonly string[]): Promise<void> {
      const tables = ['svc_files', 'svc_activity', 'svc_revisions'];
      const rowsBefore = await countRows(db(), tables);
      const filesBefore = await storedNames(root);
      for (const url of urls) {
        const errors = errorsOf(await api('POST', '/files/import', { url, data: { title: 'stolen' } }), 503);
        expect(errors, url).to.deep.equal([
          ['SERVICE_UNAVAILABLE', { service: 'external-file', reason: `Couldn't fetch file from URL "${url}"` }],
        ]);
      }
      expect(target.hits, 'the target was never reached').to.deep.equal([]);
      expect(await countRows(db(), tables)).to.deep.equal(rowsBefore);
      expect(await storedNames(root)).to.deep.equal(filesBefore);
      expect(await db()('svc_files').where('title', 'stolen').first()).to.equal(undefined);
    }

    it("the target answers when asked directly, so a refusal is the deny list's doing", async () => {
      for (const host of ['127.0.0.1', '[::ffff:127.0.0.1]', '0.0.0.0']) {
        expect((await fetch(`http://${host}:${port}/probe`)).status, host).to.equal(200);
      }
      target.hits.length = 0;
    });

    it("as the URL's host: IPv4 inside IPv6, decimal, octal and hexadecimal IPv4, the unspecified addresses", async () => {
      await expectRefused(HOSTS.map((host) => `http://${host}:${port}/secret`));
    });

    it('as the target of a redirect from an allowed server', async () => {
      await expectRefused(HOSTS.map((host) => `${redirector.url}/${encodeURIComponent(host)}`));
      expect(redirector.hits).to.have.length(HOSTS.length);
    });
  },
  { env },
);
