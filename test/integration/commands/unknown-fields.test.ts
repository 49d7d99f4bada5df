import { expect } from 'chai';
import { pino } from 'pino';
import { startServer } from '../../../src/server.js';
import { describeEachDatabase, TEST_ADMIN, testConfig } from '../../support/server.js';
import { call, createCaller, grant } from '../access/permission-helpers.js';
import { sendForm } from '../files/helpers.js';
import { ARTICLE_TABLES, adminApi, countRows, createCommandSchema, dataOf, errorsOf } from './schema.js';

type Row = Record<string, unknown>;

// Directus 10 drops payload keys that are not fields (items and system collections alike);
// fields that exist but are not writable stay FORBIDDEN. Imports refuse them at a row's top level.
describeEachDatabase('payload keys that are not fields', (ctx) => {
  const db = () => ctx().server.db;
  const api = (method: string, path: string, body?: unknown) => adminApi(ctx(), method, path, body);

  before(async () => {
    await createCommandSchema(ctx());
  });

  it('a create drops them, at every level, and writes the rest', async () => {
    const before = await countRows(db(), ['articles', 'comments']);
    const created = dataOf<Row>(
      await api('POST', '/items/articles', {
        title: 'Known',
        views: 3,
        name: 'x',
        comments: [{ text: 'c1', colour: 'red' }],
      }),
    );
    expect(created).to.not.have.property('name');
    expect(created).to.include({ title: 'Known', views: 3 });
    const after = await countRows(db(), ['articles', 'comments']);
    expect(after).to.deep.equal({ articles: before['articles']! + 1, comments: before['comments']! + 1 });
    const comment = await db()('comments')
      .where({ article: created['id'] as number })
      .first<Row>('text');
    expect(comment).to.deep.equal({ text: 'c1' });
    const batch = dataOf<Row[]>(
      await api('POST', '/items/articles', [
        { title: 'B1', nope: 1 },
        { title: 'B2', nope: 2 },
      ]),
    );
    expect(batch.map((item) => item['title'])).to.deep.equal(['B1', 'B2']);
  });

  it('an update drops them; one of nothing but unknown keys changes nothing', async () => {
    const { id } = dataOf<Row>(await api('POST', '/items/articles', { title: 'Before', views: 1 }));
    const updated = dataOf<Row>(await api('PATCH', `/items/articles/${String(id)}`, { views: 2, unknown_key: true }));
    expect(updated).to.include({ title: 'Before', views: 2 }).and.not.have.property('unknown_key');
    const rowBefore = await db()('articles')
      .where({ id: id as number })
      .first<Row>('title', 'views');
    dataOf(await api('PATCH', `/items/articles/${String(id)}`, { nope: 'x' }));
    expect(
      await db()('articles')
        .where({ id: id as number })
        .first<Row>('title', 'views'),
    ).to.deep.equal(rowBefore);
    // A missing item is still FORBIDDEN, whatever the payload holds.
    expect(errorsOf(await api('PATCH', '/items/articles/999999', { nope: 1 }), 403)).to.deep.equal([['FORBIDDEN', {}]]);
  });

  it('system collections: POST /users with "name" creates the user', async () => {
    const email = `unknown-key-${ctx().dialect}@example.com`;
    const user = dataOf<Row>(
      await api('POST', '/users', { email, password: 'secret-password', first_name: 'Ann', name: 'x' }),
    );
    expect(user).to.include({ email, first_name: 'Ann' }).and.not.have.property('name');
    expect(await db()('svc_users').where({ email }).first<Row>('first_name')).to.deep.equal({ first_name: 'Ann' });
  });

  it('a role limited to some fields: any other key is 403, as in Directus 10, and nothing is written', async () => {
    const caller = await createCaller(db());
    await grant(ctx(), caller.role, [
      { collection: 'articles', action: 'create', fields: ['title'] },
      { collection: 'articles', action: 'read' },
      { collection: 'authors', action: 'create' },
      { collection: 'authors', action: 'read' },
    ]);
    const before = await countRows(db(), ARTICLE_TABLES);
    for (const payload of [
      { title: 'Limited', views: 9 },
      { title: 'Limited', nope: 1 },
    ]) {
      const refused = await call(ctx(), caller.token, 'POST', '/items/articles', payload);
      expect(refused.status, JSON.stringify(payload)).to.equal(403);
    }
    expect(await countRows(db(), ARTICLE_TABLES)).to.deep.equal(before);
    expect((await call(ctx(), caller.token, 'POST', '/items/articles', { title: 'Limited' })).status).to.equal(200);
    // A role with every field ('*') has its unknown keys dropped like an admin.
    const author = await call(ctx(), caller.token, 'POST', '/items/authors', { name: 'Star', nope: 1 });
    expect(author.status, JSON.stringify(author.body)).to.equal(200);
    expect(await db()('authors').where({ name: 'Star' }).count({ n: '*' }).first()).to.satisfy(
      (r: { n: unknown }) => Number(r.n) === 1,
    );
  });

  it('an import refuses them at the top level of a row (issue 13), drops them in nested payloads', async () => {
    const importJson = (rows: unknown) =>
      sendForm(ctx(), 'POST', '/utils/import/articles', [
        ['file', JSON.stringify(rows), 'data.json', 'application/json'],
      ]);
    const before = await countRows(db(), ARTICLE_TABLES);
    const refused = await importJson([{ title: 'Fine' }, { title: 'Imported', nope: 1 }]);
    expect(errorsOf(refused, 400)).to.deep.equal([
      ['INVALID_PAYLOAD', { reason: 'Column "nope" is not a field of collection "articles"', row: 2 }],
    ]);
    expect(await countRows(db(), ARTICLE_TABLES)).to.deep.equal(before);
    const res = await importJson([{ title: 'Imported', comments: [{ text: 'ic', nope: 2 }] }]);
    expect([res.status, res.body]).to.deep.equal([200, undefined]);
    const article = await db()('articles').where({ title: 'Imported' }).first<Row>('id');
    expect(article).to.not.equal(undefined);
    expect(
      await db()('comments')
        .where({ article: article?.['id'] as number })
        .select<Row[]>('text'),
    ).to.deep.equal([{ text: 'ic' }]);
  });

  it('the dropped keys are logged at debug level', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(line) });
    const second = await startServer(testConfig(ctx().database), { logger });
    try {
      const res = await fetch(`${second.url}/items/articles`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${TEST_ADMIN.token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ title: 'Logged', nope: 1 }),
      });
      expect(res.status).to.equal(200);
    } finally {
      await second.close();
    }
    const entries = lines
      .map((line) => JSON.parse(line) as Row)
      .filter((entry) => entry['msg'] === 'payload keys that are not fields dropped');
    expect(entries.map((entry) => [entry['level'], entry['collection'], entry['keys']])).to.deep.equal([
      [20, 'articles', ['nope']],
    ]);
  });
});
