import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeEachDatabase, type ServerContext } from '../../support/server.js';
import { call, createCaller, expectForbidden, grant, type JsonResponse } from '../access/permission-helpers.js';
import { sendForm, type FormPart } from '../files/helpers.js';
import { graphql } from '../graphql/graphql-client.js';
import { dumpTables } from './helpers.js';

/*
 * A caller must not learn which collections exist from a write it may not make (spec,
 * Errors, rule 1): every route taking a collection name decides permission before it looks
 * at the body, the query string or the collection's shape, so an existing collection the
 * caller may not write answers exactly like a missing one. Item writes are tried through
 * both doors: the HTTP server's direct path (fast-path.ts) and Express (a proxy header
 * sends a request there).
 */

const dir = mkdtempSync(join(tmpdir(), 'svc-oracle-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const MISSING = 'no_such_collection';

const WATCHED: readonly (readonly [string, string])[] = [
  ['secrets', 'id'],
  ['steps', 'id'],
  ['front_page', 'id'],
  ['svc_activity', 'id'],
  ['svc_comments', 'id'],
  ['svc_files', 'id'],
];

type Probe = (ctx: ServerContext, token: string | undefined, collection: string) => Promise<JsonResponse>;

const json =
  (
    method: string,
    path: (c: string) => string,
    body?: unknown,
    headers: Readonly<Record<string, string>> = {},
  ): Probe =>
  (ctx, token, collection) =>
    call(ctx, token, method, path(collection), body, headers);

const form =
  (path: (c: string) => string, parts: readonly FormPart[]): Probe =>
  (ctx, token, collection) =>
    sendForm(ctx, 'POST', path(collection), parts, { token: token ?? null }) as Promise<JsonResponse>;

/** Sends the request to Express rather than the direct path (fast-path.ts `EXPRESS_HEADERS`). */
const VIA_EXPRESS = { 'X-Forwarded-For': '203.0.113.7' };

/** Item writes with bodies or query strings that are wrong in some way besides the permission. */
const ITEM_WRITES: readonly (readonly [string, string, (c: string) => string, unknown])[] = [
  ['POST an empty array', 'POST', (c) => `/items/${c}`, []],
  ['POST a non-object', 'POST', (c) => `/items/${c}`, ['x']],
  ['PATCH without keys or query', 'PATCH', (c) => `/items/${c}`, {}],
  ['PATCH an empty batch', 'PATCH', (c) => `/items/${c}`, []],
  ['PATCH /:id with an array', 'PATCH', (c) => `/items/${c}/1`, []],
  ['PATCH /:id with a key no row can have', 'PATCH', (c) => `/items/${c}/not-a-key`, { name: 'x' }],
  ['PATCH with a malformed query string', 'PATCH', (c) => `/items/${c}/1?limit=abc`, { name: 'x' }],
  ['DELETE without keys or query', 'DELETE', (c) => `/items/${c}`, {}],
  ['DELETE an empty list', 'DELETE', (c) => `/items/${c}`, []],
];

/** Other routes naming a collection, and the existing collections to try (steps is readable, not writable). */
const WRITABLE_ONLY = ['secrets', 'steps'];
const READABLE_ONLY = ['secrets'];
const OTHER_ROUTES: readonly (readonly [string, Probe, readonly string[]])[] = [
  ['POST /utils/export with an empty body', json('POST', (c) => `/utils/export/${c}`, {}), READABLE_ONLY],
  [
    'POST /utils/export with a bad format',
    json('POST', (c) => `/utils/export/${c}`, { format: 'pdf', query: {} }),
    READABLE_ONLY,
  ],
  ['POST /utils/import with a JSON body', json('POST', (c) => `/utils/import/${c}`, { file: 'x' }), WRITABLE_ONLY],
  [
    'POST /utils/import with a file of another type',
    form((c) => `/utils/import/${c}`, [['file', 'x', 'x.txt', 'text/plain']]),
    WRITABLE_ONLY,
  ],
  ['POST /utils/import without a file part', form((c) => `/utils/import/${c}`, [['note', 'x']]), WRITABLE_ONLY],
  ['POST /utils/sort with an empty body', json('POST', (c) => `/utils/sort/${c}`, {}), WRITABLE_ONLY],
  [
    'POST /utils/sort of a collection without a sort field',
    json('POST', (c) => `/utils/sort/${c}`, { item: 1, to: 2 }),
    WRITABLE_ONLY,
  ],
  [
    'POST /activity/comment on a key no row can have',
    (ctx, token, collection) =>
      call(ctx, token, 'POST', '/activity/comment', { collection, item: 'not-a-key', comment: 'x' }),
    WRITABLE_ONLY,
  ],
  ['GET /fields/:collection', json('GET', (c) => `/fields/${c}`), READABLE_ONLY],
  ['GET /items/:collection/:id', json('GET', (c) => `/items/${c}/1`), READABLE_ONLY],
];

describeEachDatabase(
  'a write to a forbidden collection reads like one to a missing collection',
  (context) => {
    let ctx: ServerContext;
    let callers: readonly (readonly [string, string | undefined])[];

    before(async () => {
      ctx = context();
      callers = [
        ['anonymous', undefined],
        ['a limited role', await createWorld(ctx)],
      ];
    });

    /** `probe` on `existing` and on a missing collection: one FORBIDDEN, the same, and nothing written. */
    async function expectNoOracle(probe: Probe, existing: readonly string[]): Promise<void> {
      for (const [who, token] of callers) {
        const before = await dumpTables(ctx.server.db, WATCHED);
        const missing = await probe(ctx, token, MISSING);
        expectForbidden(missing);
        for (const collection of existing) {
          expect(await probe(ctx, token, collection), `${who} on ${collection}`).to.deep.equal(missing);
        }
        expect(await dumpTables(ctx.server.db, WATCHED), 'no row changed').to.deep.equal(before);
      }
    }

    for (const [name, method, path, body] of ITEM_WRITES) {
      it(`items: ${name}, on the direct path and through Express`, async () => {
        await expectNoOracle(json(method, path, body), WRITABLE_ONLY);
        await expectNoOracle(json(method, path, body, VIA_EXPRESS), WRITABLE_ONLY);
      });
    }

    it('items: POST to a singleton (a route that does not exist) is FORBIDDEN first', async () => {
      await expectNoOracle(
        json('POST', (c) => `/items/${c}`, { headline: 'x' }),
        ['front_page'],
      );
      await expectNoOracle(
        json('POST', (c) => `/items/${c}`, { headline: 'x' }, VIA_EXPRESS),
        ['front_page'],
      );
    });

    for (const [name, probe, existing] of OTHER_ROUTES) {
      it(name, () => expectNoOracle(probe, existing));
    }

    it('GraphQL utils_sort answers the same errors for a forbidden and a missing collection', async () => {
      for (const [, token] of callers) {
        const sort = (collection: string) =>
          graphql(ctx, `mutation { utils_sort(collection: "${collection}", item: "1", to: "2") }`, {
            scope: 'system',
            token: token ?? null,
          });
        const missing = await sort(MISSING);
        expect(missing.body.errors?.map((e) => e.extensions['code'])).to.deep.equal(['FORBIDDEN']);
        expect(await sort('secrets')).to.deep.equal(missing);
        expect(await sort('steps')).to.deep.equal(missing);
      }
    });
  },
  { env: { STORAGE_LOCAL_ROOT: join(dir, 'uploads'), TEMP_PATH: join(dir, 'tmp') } },
);

/**
 * secrets (nobody's), steps (a sort field; the limited role may read it, not write it) and
 * a singleton; returns the limited role's token.
 */
async function createWorld(ctx: ServerContext): Promise<string> {
  const db = ctx.server.db;
  await db.schema.createTable('secrets', (t) => {
    t.increments('id');
    t.string('name', 255);
  });
  await db.schema.createTable('steps', (t) => {
    t.increments('id');
    t.string('name', 255);
    t.integer('sort');
  });
  await db.schema.createTable('front_page', (t) => {
    t.increments('id');
    t.string('headline', 255);
  });
  await db('svc_collections').insert({ collection: 'steps', sort_field: 'sort' });
  await db('svc_collections').insert({ collection: 'front_page', singleton: true });
  await db('secrets').insert([{ name: 'one' }, { name: 'two' }]);
  await db('steps').insert([
    { name: 'a', sort: 1 },
    { name: 'b', sort: 2 },
  ]);
  const role = await createCaller(db, { app: true });
  await grant(ctx, role.role, [{ collection: 'steps', action: 'read' }]);
  return role.token;
}
