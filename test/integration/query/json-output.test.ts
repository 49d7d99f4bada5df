import { expect } from 'chai';
import { TEST_ADMIN, describeEachDatabase, type ServerContext } from '../../support/server.js';
import { PermissionStore } from '../../../src/access/permission-store.js';
import { ForbiddenError } from '../../../src/errors.js';
import { loadConfig } from '../../../src/config/index.js';
import {
  parseQuery,
  parseQueryString,
  queryLimits,
  readItemByKey,
  readItemJsonByKey,
  readItems,
  readItemsJson,
  readerOf,
  type ReadContext,
  type Reader,
} from '../../../src/query/index.js';
import { createCaller, grant, type Caller } from '../access/permission-helpers.js';
import { createQueryFixture } from './fixture-schema.js';

/**
 * On PostgreSQL, REST reads (list and by id) are written as JSON text by the database
 * (compileReadJson) where every field has such a form; elsewhere, and for everything else
 * (GraphQL, re-reads after writes), rows are shaped in JavaScript (shape-value.ts). Both
 * must give the same JSON, key order included, for every field type and relation kind.
 */
describeEachDatabase('read: JSON written by the database equals shaped rows', (ctx) => {
  before(async () => {
    const c = ctx();
    await createQueryFixture(c);
    const db = c.server.db;
    await db.schema.createTable('measures', (t) => {
      t.increments('id').primary();
      t.double('ratio');
      t.float('ratio4');
      t.decimal('amount', c.dialect === 'mariadb' ? 12 : null, c.dialect === 'mariadb' ? 4 : undefined);
      t.decimal('price', 8, 3);
      t.bigInteger('big');
      t.specificType('code', c.dialect === 'mariadb' ? 'char(5)' : 'character(5)');
      t.datetime('local_at', { useTz: false, precision: 6 });
      t.timestamp('at', { useTz: true, precision: 6 });
      t.date('day');
      t.time('clock');
      t.boolean('flag');
      t.text('labels');
      t.string('pin', 255);
      t.uuid('uid');
    });
    await db('svc_fields').insert([
      { collection: 'measures', field: 'labels', special: 'cast-csv' },
      { collection: 'measures', field: 'pin', special: 'hash' },
    ]);
    await db('measures').insert([
      {
        ratio: 0.1,
        ratio4: 1.5,
        amount: '12.3400',
        price: '-7.5',
        big: '-9007199254740993',
        code: 'ab',
        local_at: '2024-02-29 23:59:59.123456',
        at: '2024-02-29 23:59:59.987654',
        day: '2024-02-29',
        clock: '23:59:59',
        flag: true,
        labels: 'a,,b',
        pin: 'not-a-real-hash',
        uid: '0a0b0c0d-0e0f-4a1b-8c2d-3e4f5a6b7c8d',
      },
      {
        ratio: -2e-7,
        ratio4: 0,
        amount: '0',
        price: '0',
        big: '0',
        local_at: '1999-12-31 00:00:00',
        at: '1970-01-02 00:00:00',
        labels: '',
        flag: false,
      },
      {},
    ]);
    if (c.dialect === 'postgres') await db('measures').insert({ ratio: Number.NaN, ratio4: Number.POSITIVE_INFINITY });
    await c.server.schema.invalidate();
    limited = await createCaller(db);
    const published = { status: { _eq: 'published' } };
    await grant(c, limited.role, [
      {
        collection: 'articles',
        action: 'read',
        permissions: published,
        fields: ['id', 'title', 'author', 'comments', 'categories'],
      },
      { collection: 'authors', action: 'read', permissions: { id: { _neq: 2 } }, fields: ['id', 'name', 'articles'] },
      {
        collection: 'comments',
        action: 'read',
        permissions: { text: { _ncontains: 'spam' } },
        fields: ['id', 'text', 'author'],
      },
      { collection: 'articles_categories', action: 'read', permissions: { categories_id: { _neq: 1 } } },
      { collection: 'categories', action: 'read' },
    ]);
  });

  let limited: Caller;
  /** Keys at PostgreSQL's 63-byte limit on names, and a level of more than 50 keys. */
  const KEY_63 = 'k'.repeat(63);
  const WIDE = Array.from({ length: 60 }, (_, i) => `w${i}`);

  const QUERIES: readonly [string, string][] = [
    ['measures', 'fields=*&sort=id'],
    ['measures', 'fields=id,at,local_at,labels,pin&sort=-at'],
    [
      'articles',
      'fields=id,title,status,views,rating,big,featured,published_on,published,created,starts,tags,uid,secret,author&sort=id',
    ],
    ['articles', 'fields=id,title,author.name,author.country.name,comments.text,comments.author.name&sort=-id'],
    ['articles', 'fields=id,comments,categories&sort=id'],
    ['articles', 'fields=id,categories.categories_id.name,categories.categories_id.id&sort=title'],
    ['articles', 'fields=id,comments.id,comments.text&deep[comments][_sort]=-sort&deep[comments][_limit]=2&sort=id'],
    ['articles', 'fields=id,count(comments),year(published_on)&sort=id'],
    ['articles', 'fields=id,headline,writer.name&alias[headline]=title&alias[writer]=author&sort=id'],
    ['articles', 'fields=id,title&filter[author][name][_eq]=Ann&sort=-views&limit=1&offset=1'],
    ['authors', 'fields=id,articles.title,articles.comments.author.name&sort=id'],
    // Nested levels, each with its own sort, window, filter and aliases (derived tables in SQL).
    [
      'authors',
      'fields=id,articles.id,articles.comments.text,articles.comments.author.name&deep[articles][_sort]=-views&deep[articles][_limit]=1' +
        '&deep[articles][comments][_sort]=-sort&deep[articles][comments][_limit]=2&deep[articles][comments][_offset]=1&sort=id',
    ],
    [
      'authors',
      'fields=id,articles.title,articles.categories.id,articles.categories.categories_id.name&deep[articles][_filter][status][_eq]=published' +
        '&deep[articles][categories][_sort]=-categories_id.name&deep[articles][categories][categories_id][_filter][name][_neq]=tech&sort=id',
    ],
    [
      'countries',
      'fields=id,authors.name,authors.articles.comments,authors.articles.categories&deep[authors][_sort]=-name&deep[authors][articles][_sort]=-id' +
        '&deep[authors][articles][comments][_sort]=-id&deep[authors][articles][categories][_limit]=1&sort=id',
    ],
    [
      'articles',
      'fields=id,sections.id,sections.collection&deep[sections][_sort]=-sort&deep[sections][_filter][collection][_eq]=headings&sort=id',
    ],
    [
      'articles',
      'fields=id,writer.name,notes.text,notes.by.country.name&alias[writer]=author&alias[notes]=comments' +
        '&deep[notes][_alias][by]=author&deep[notes][_filter][text][_contains]=spam&sort=id',
    ],
    [
      'authors',
      `fields=id,articles.${KEY_63},${WIDE.map((k) => `articles.comments.${k}`).join(',')}&deep[articles][_alias][${KEY_63}]=title` +
        `&${WIDE.map((k) => `deep[articles][comments][_alias][${k}]=text`).join('&')}&sort=id`,
    ],
  ];

  for (const [collection, params] of QUERIES) {
    it(`/items/${collection}?${params}`, async () => {
      const c = ctx();
      const read = await readSetup(c);
      const query = parseQuery(parseQueryString(`?${params}`));
      const json = await readItemsJson(read.ctx, collection, query, read.reader);
      const items = await readItems(read.ctx, collection, query, read.reader);
      expect(items.length, 'the query selects items').to.be.greaterThan(0);
      if (c.dialect === 'postgres') {
        expect(json, 'PostgreSQL writes this read as JSON').to.be.a('string');
        expect(inSpelling(json ?? '')).to.equal(JSON.stringify(items));
      } else {
        expect(json, 'only PostgreSQL writes JSON').to.equal(null);
      }

      const key = (items[0] as { id: string | number }).id;
      const one = await readItemJsonByKey(read.ctx, collection, key, query, read.reader);
      const item = await readItemByKey(read.ctx, collection, key, query, read.reader);
      if (c.dialect === 'postgres') expect(inSpelling(one ?? '')).to.equal(JSON.stringify(item));

      // Through HTTP: the envelope around it, whichever path wrote it.
      const listed = await getText(c, `/items/${collection}?${params}`);
      expect(inSpelling(listed)).to.equal(JSON.stringify({ data: items }));
    });
  }

  it('nested levels keep the row permissions of a limited role', async () => {
    const c = ctx();
    const params =
      'fields=id,name,articles.title,articles.comments.text,articles.comments.author.name,' +
      'articles.categories.categories_id.name&sort=id';
    const read = await readSetup(c, limited);
    const query = parseQuery(parseQueryString(`?${params}`));
    const items = await readItems(read.ctx, 'authors', query, read.reader);
    // Bob (2) is not readable; neither are drafts, spam comments or the junction rows of news.
    const hello = {
      title: 'Hello world',
      comments: [
        { text: 'c1 good', author: null },
        { text: 'c3 good', author: null },
      ],
      categories: [{ categories_id: { name: 'tech' } }],
    };
    const quantum = { title: 'Quantum leap', comments: [{ text: 'e1 good', author: { name: 'Ann' } }], categories: [] };
    expect(items).to.deep.equal([
      { id: 1, name: 'Ann', articles: [hello, quantum] },
      { id: 3, name: 'Cid', articles: [] },
    ]);
    const json = await readItemsJson(read.ctx, 'authors', query, read.reader);
    if (c.dialect === 'postgres') expect(inSpelling(json ?? '')).to.equal(JSON.stringify(items));
    else expect(json).to.equal(null);
    const listed = await getText(c, `/items/authors?${params}`, limited.token);
    expect(inSpelling(listed)).to.equal(JSON.stringify({ data: items }));
  });

  it('keys longer than 63 bytes and many-to-any items keep the row path', async () => {
    const c = ctx();
    const read = await readSetup(c);
    const longKey = 'k'.repeat(64);
    const cases: readonly [string, unknown][] = [
      [
        `fields=id,comments.${longKey}&deep[comments][_alias][${longKey}]=text&filter[id][_eq]=1`,
        [{ id: 1, comments: ['c1 good', 'c2 spam', 'c3 good'].map((text) => ({ [longKey]: text })) }],
      ],
      [
        'fields=id,sections.id,sections.item:headings.title&filter[id][_eq]=2',
        [{ id: 2, sections: [{ id: 4, item: { title: 'H2' } }] }],
      ],
    ];
    for (const [params, expected] of cases) {
      const query = parseQuery(parseQueryString(`?${params}`));
      expect(await readItemsJson(read.ctx, 'articles', query, read.reader), params).to.equal(null);
      expect(await readItems(read.ctx, 'articles', query, read.reader)).to.deep.equal(expected);
      const listed = await getText(c, `/items/articles?${params}`);
      expect(JSON.parse(listed)).to.deep.equal({ data: expected });
    }
  });

  it('one read for many keys (compiled once on PostgreSQL): each key its own item, a key not of its type refused', async () => {
    const c = ctx();
    const read = await readSetup(c);
    const query = parseQuery(parseQueryString('?fields=id,title,author.name,comments.text'));
    for (const key of [1, 2, 3, 4, '3', 1]) {
      const item = await readItemByKey(read.ctx, 'articles', key, query, read.reader);
      expect(item['id']).to.equal(Number(key));
      const json = await readItemJsonByKey(read.ctx, 'articles', key, query, read.reader);
      if (c.dialect === 'postgres') expect(inSpelling(json ?? ''), String(key)).to.equal(JSON.stringify(item));
    }
    const refusal = (answer: Promise<unknown>) =>
      answer.then(
        () => 'answered',
        (error: unknown) => error,
      );
    for (const key of ['abc', 999, 1.5]) {
      expect(await refusal(readItemByKey(read.ctx, 'articles', key, query, read.reader))).to.be.instanceOf(
        ForbiddenError,
      );
      const json = refusal(readItemJsonByKey(read.ctx, 'articles', key, query, read.reader));
      if (c.dialect === 'postgres') expect(await json, String(key)).to.be.instanceOf(ForbiddenError);
    }
    // uuid keys, in either case: the item the row path reads.
    const users = (await c.server.db('svc_users').select('id')) as { id: string }[];
    const userQuery = parseQuery(parseQueryString('?fields=id,email'));
    for (const key of [...users.map((u) => u.id), ...users.map((u) => u.id.toUpperCase())]) {
      const item = await readItemByKey(read.ctx, 'svc_users', key, userQuery, read.reader);
      const json = await readItemJsonByKey(read.ctx, 'svc_users', key, userQuery, read.reader);
      if (c.dialect === 'postgres') expect(inSpelling(json ?? ''), key).to.equal(JSON.stringify(item));
    }
  });

  it('a missing item is still 403 FORBIDDEN', async () => {
    const res = await ctx().api('/items/measures/999999?fields=id,at', { headers: auth });
    expect(res.status).to.equal(403);
    const body = (await res.json()) as { errors: { extensions: { code: string } }[] };
    expect(body.errors[0]?.extensions.code).to.equal('FORBIDDEN');
  });

  it('an empty list is [] and meta still comes first', async () => {
    const text = await getText(ctx(), '/items/measures?fields=id&filter[id][_lt]=0&meta=total_count');
    expect(JSON.parse(text)).to.deep.equal({ meta: { total_count: ctx().dialect === 'postgres' ? 4 : 3 }, data: [] });
    expect(text.startsWith('{"meta":')).to.equal(true);
  });
});

const auth = { Authorization: `Bearer ${TEST_ADMIN.token}` };

async function getText(ctx: ServerContext, path: string, token = TEST_ADMIN.token): Promise<string> {
  const res = await ctx.api(path, { headers: { Authorization: `Bearer ${token}` } });
  const text = await res.text();
  expect(res.status, text).to.equal(200);
  expect(res.headers.get('content-type')).to.equal('application/json; charset=utf-8');
  return text;
}

/**
 * PostgreSQL spells some numbers its own way (`-2e-07` for JSON.stringify's `-2e-7`): the same
 * JSON, compared through one spelling. (JSON.parse keeps key order, but for integer-like keys.)
 */
function inSpelling(text: string): string {
  return JSON.stringify(JSON.parse(text));
}

/** The read side as the service calls it, for the admin or a limited caller. */
async function readSetup(c: ServerContext, caller?: Caller): Promise<{ ctx: ReadContext; reader: Reader }> {
  const db = c.server.db;
  const overview = await c.server.schema.getOverview();
  const who =
    caller === undefined
      ? { user: null, role: null, admin: true }
      : { user: caller.user, role: caller.role, admin: false };
  const accountability = { ...who, app: caller === undefined, ip: null, userAgent: null, origin: null };
  const reader = await readerOf(
    { db, permissions: new PermissionStore(db, { enabled: false }) },
    overview,
    accountability,
  );
  return { ctx: { db, overview, limits: queryLimits(loadConfig({})) }, reader };
}
