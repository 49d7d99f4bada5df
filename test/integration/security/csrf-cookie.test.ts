import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeEachDatabase, TEST_ADMIN, type ServerContext } from '../../support/server.js';
import { cookieNamed } from '../auth/helpers.js';
import { createNotes, retitleInSql, titleOf } from '../cache/cache-helpers.js';
import { storedNames } from '../files/helpers.js';

/**
 * CSRF through the session cookie (issue 36, item 4): a page of another origin, the same site
 * included, cannot make a signed-in browser import rows, upload files, clear caches or write
 * items. A change authenticated by the cookie needs `Sec-Fetch-Site: same-origin` or an Origin
 * of this service (its Host, PUBLIC_URL, or CORS_ORIGIN's list with credentials); a request
 * that carries its own token is not the browser's ambient authority and is not checked.
 */

const root = mkdtempSync(join(tmpdir(), 'svc-csrf-'));
after(() => rmSync(root, { recursive: true, force: true }));

const ALLOWED_APP = 'http://app.example';

/** What a browser adds to a request another page makes it send. */
const FOREIGN: readonly (readonly [string, Record<string, string>])[] = [
  ['cross-site', { Origin: 'http://evil.example', 'Sec-Fetch-Site': 'cross-site' }],
  ['same-site, other origin', { Origin: 'http://evil.localhost:1', 'Sec-Fetch-Site': 'same-site' }],
  ['Origin only (an older browser)', { Origin: 'http://evil.example' }],
  ['Sec-Fetch-Site only', { 'Sec-Fetch-Site': 'cross-site' }],
  ['opaque origin', { Origin: 'null', 'Sec-Fetch-Site': 'cross-site' }],
];

interface Answer {
  readonly status: number;
  readonly body: { errors?: { message: string; extensions: { code: string } }[]; data?: unknown } | undefined;
}

async function send(ctx: ServerContext, method: string, path: string, init: RequestInit): Promise<Answer> {
  const res = await ctx.api(path, { ...init, method });
  const text = await res.text();
  return { status: res.status, body: text === '' ? undefined : (JSON.parse(text) as Answer['body']) };
}

function csv(rows: string): FormData {
  const form = new FormData();
  form.append('file', new Blob([rows], { type: 'text/csv' }), 'notes.csv');
  return form;
}

function upload(name: string): FormData {
  const form = new FormData();
  form.append('file', new Blob(['planted by another page'], { type: 'text/plain' }), name);
  return form;
}

function expectCrossOriginRefusal(answer: Answer, what: string): void {
  expect(answer.status, `${what}: ${JSON.stringify(answer.body)}`).to.equal(403);
  expect(answer.body?.errors).to.have.length(1);
  expect(answer.body?.errors?.[0]?.extensions.code, what).to.equal('FORBIDDEN');
  expect(answer.body?.errors?.[0]?.message, what).to.match(/^Cross-origin request refused: .*session cookie/);
}

describeEachDatabase(
  'CSRF: changes authenticated by the session cookie come from this origin only',
  (ctx) => {
    let cookie: string;
    const sameOrigin = () => ({ Origin: ctx().server.url, 'Sec-Fetch-Site': 'same-origin' });
    const withCookie = (headers: Record<string, string>) => ({ ...headers, Cookie: cookie });
    const notes = async () => ctx().server.db('notes').orderBy('id').select('id', 'title');
    const files = async () => ctx().server.db('svc_files').orderBy('id').pluck('id');

    before(async () => {
      await createNotes(ctx());
      const res = await ctx().api('/auth/login', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ email: TEST_ADMIN.email, password: TEST_ADMIN.password, mode: 'session' }),
      });
      expect(res.status).to.equal(200);
      cookie = `svc_session_token=${cookieNamed(res, 'svc_session_token').value}`;
    });

    it('POST /utils/import, POST /files, /utils/cache/clear and item writes from another origin: 403, nothing changed', async () => {
      // A read now cached; changed behind the service's back, so a cleared cache would show it.
      expect(await titleOf(ctx().api, 1)).to.equal('first');
      await retitleInSql(ctx().server.db, 1, 'changed in SQL');
      const rowsBefore = await notes();
      const filesBefore = await files();
      const storedBefore = await storedNames(root);
      for (const [kind, headers] of FOREIGN) {
        expectCrossOriginRefusal(
          await send(ctx(), 'POST', '/utils/import/notes', {
            headers: withCookie(headers),
            body: csv('title,owner\nplanted,evil\n'),
          }),
          `import, ${kind}`,
        );
        expectCrossOriginRefusal(
          await send(ctx(), 'POST', '/files', { headers: withCookie(headers), body: upload('planted.txt') }),
          `upload, ${kind}`,
        );
        expectCrossOriginRefusal(
          await send(ctx(), 'POST', '/utils/cache/clear', { headers: withCookie(headers) }),
          `cache clear, ${kind}`,
        );
        expectCrossOriginRefusal(
          await send(ctx(), 'PATCH', '/items/notes/2', {
            headers: withCookie({ ...headers, 'Content-Type': 'application/json' }),
            body: JSON.stringify({ title: 'planted' }),
          }),
          `item write, ${kind}`,
        );
        expectCrossOriginRefusal(
          await send(ctx(), 'DELETE', '/items/notes/3', { headers: withCookie(headers) }),
          `item delete, ${kind}`,
        );
      }
      // GraphQL's cache clear, and SEARCH (a read, but not a method a page may send elsewhere).
      expectCrossOriginRefusal(
        await send(ctx(), 'POST', '/graphql/system', {
          headers: withCookie({ ...FOREIGN[0]![1], 'Content-Type': 'application/json' }),
          body: JSON.stringify({ query: 'mutation { utils_cache_clear }' }),
        }),
        'graphql cache clear',
      );
      expectCrossOriginRefusal(
        await send(ctx(), 'SEARCH', '/items/notes', {
          headers: withCookie({ ...FOREIGN[1]![1], 'Content-Type': 'application/json' }),
          body: JSON.stringify({ query: { limit: 1 } }),
        }),
        'SEARCH',
      );
      // A form sends text/plain or urlencoded bodies too: refused before the body is looked at.
      expectCrossOriginRefusal(
        await send(ctx(), 'POST', '/items/notes', {
          headers: withCookie({ ...FOREIGN[0]![1], 'Content-Type': 'text/plain' }),
          body: '{"title":"planted"}',
        }),
        'text/plain form',
      );
      expect(await notes()).to.deep.equal(rowsBefore);
      expect(await files()).to.deep.equal(filesBefore);
      expect(await storedNames(root)).to.deep.equal(storedBefore);
      expect(await titleOf(ctx().api, 1), 'the data cache was not cleared').to.equal('first');
    });

    it('the same requests from this origin, with a token, or from a trusted CORS origin still work', async () => {
      // Same origin, as the console at /admin sends them (fetch adds Origin and Sec-Fetch-Site).
      const cleared = await send(ctx(), 'POST', '/utils/cache/clear', { headers: withCookie(sameOrigin()) });
      expect(cleared.status, JSON.stringify(cleared.body)).to.equal(200);
      expect(await titleOf(ctx().api, 1)).to.equal('changed in SQL');
      const imported = await send(ctx(), 'POST', '/utils/import/notes', {
        headers: withCookie(sameOrigin()),
        body: csv('title,owner\nimported,me\n'),
      });
      expect(imported.status, JSON.stringify(imported.body)).to.equal(200);
      const uploaded = await send(ctx(), 'POST', '/files', {
        headers: withCookie(sameOrigin()),
        body: upload('mine.txt'),
      });
      expect(uploaded.status, JSON.stringify(uploaded.body)).to.equal(200);
      // An Origin naming this service's Host, without Sec-Fetch-Site.
      const patched = await send(ctx(), 'PATCH', '/items/notes/2', {
        headers: withCookie({ Origin: ctx().server.url, 'Content-Type': 'application/json' }),
        body: JSON.stringify({ title: 'second, mine' }),
      });
      expect(patched.status, JSON.stringify(patched.body)).to.equal(200);
      // A CORS_ORIGIN app with CORS_CREDENTIALS: its cross-site requests are the ones allowed.
      const fromApp = await send(ctx(), 'PATCH', '/items/notes/3', {
        headers: withCookie({
          Origin: ALLOWED_APP,
          'Sec-Fetch-Site': 'cross-site',
          'Content-Type': 'application/json',
        }),
        body: JSON.stringify({ title: 'third, from the app' }),
      });
      expect(fromApp.status, JSON.stringify(fromApp.body)).to.equal(200);
      // A client that is not a browser (no Origin, no Sec-Fetch-Site).
      const plain = await send(ctx(), 'POST', '/utils/cache/clear', { headers: withCookie({}) });
      expect(plain.status, JSON.stringify(plain.body)).to.equal(200);
      // A bearer token or access_token is the request's own: another origin may send it (CORS decides who reads).
      const bearer = await send(ctx(), 'POST', '/files', {
        headers: { ...FOREIGN[0]![1], Cookie: cookie, Authorization: `Bearer ${TEST_ADMIN.token}` },
        body: upload('bearer.txt'),
      });
      expect(bearer.status, JSON.stringify(bearer.body)).to.equal(200);
      const query = await send(ctx(), 'POST', `/utils/cache/clear?access_token=${TEST_ADMIN.token}`, {
        headers: FOREIGN[0]![1],
      });
      expect(query.status, JSON.stringify(query.body)).to.equal(200);
      // Reads with the cookie are not changes: another origin's GET is answered (CORS decides who reads it).
      const read = await send(ctx(), 'GET', '/items/notes/1', { headers: withCookie(FOREIGN[0]![1]) });
      expect(read.status).to.equal(200);
      expect(await notes()).to.deep.equal([
        { id: 1, title: 'changed in SQL' },
        { id: 2, title: 'second, mine' },
        { id: 3, title: 'third, from the app' },
        { id: 4, title: 'imported' },
      ]);
    });
  },
  {
    env: {
      STORAGE_LOCAL_ROOT: root,
      CACHE_ENABLED: 'true',
      LOGIN_STALL_TIME: '0',
      CORS_ENABLED: 'true',
      CORS_ORIGIN: ALLOWED_APP,
      CORS_CREDENTIALS: 'true',
    },
  },
);
