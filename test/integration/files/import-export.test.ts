import { expect } from 'chai';
import { XMLParser } from 'fast-xml-parser';
import { describeEachDatabase, TEST_ADMIN } from '../../support/server.js';
import {
  ARTICLE_TABLES,
  adminApi,
  countRows,
  createCommandSchema,
  dataOf,
  errorsOf,
  parseJson,
} from '../commands/schema.js';
import { adminGet, sendForm } from './helpers.js';

type Row = Record<string, unknown>;

describeEachDatabase('import and export downloads', (ctx) => {
  const db = () => ctx().server.db;
  const api = (method: string, path: string, body?: unknown) => adminApi(ctx(), method, path, body);
  const importFile = (collection: string, content: string, type: string, options: { token?: string | null } = {}) =>
    sendForm(
      ctx(),
      'POST',
      `/utils/import/${collection}`,
      [
        ['note', 'ignored'],
        ['file', content, `data.${type.endsWith('json') ? 'json' : 'csv'}`, type],
      ],
      options,
    );
  const articles = async (ids?: readonly unknown[]) => {
    const query = db()('articles').orderBy('id').select<Row[]>('id', 'title', 'status', 'views', 'author');
    if (ids !== undefined) query.whereIn('id', ids.map(Number));
    return (await query).map((r) => ({
      title: r['title'],
      status: r['status'],
      id: Number(r['id']),
      views: r['views'] === null ? null : Number(r['views']),
      author: r['author'] === null ? null : Number(r['author']),
    }));
  };

  before(async () => {
    await createCommandSchema(ctx());
  });

  describe('POST /utils/import/:collection', () => {
    it('imports a JSON array in one go: 200 with an empty body, every item journaled', async () => {
      const before = await countRows(db(), ['articles', 'svc_activity', 'svc_revisions']);
      const res = await importFile(
        'articles',
        JSON.stringify([
          { title: 'J1', views: 1 },
          { title: 'J2', status: 'published', author: { name: 'Nested Author' } },
        ]),
        'application/json',
      );
      expect([res.status, res.body]).to.deep.equal([200, undefined]);
      const after = await countRows(db(), ['articles', 'svc_activity', 'svc_revisions']);
      // Two articles and the nested author: three activity rows and three revisions.
      expect(after).to.deep.equal({
        articles: before['articles']! + 2,
        svc_activity: before['svc_activity']! + 3,
        svc_revisions: before['svc_revisions']! + 3,
      });
      const [j2] = await db()('articles').where('title', 'J2').select<Row[]>('author');
      const author = await db()('authors')
        .where('id', j2?.['author'] as number)
        .first<Row>('name');
      expect(author?.['name']).to.equal('Nested Author');
      const revision = await db()('svc_revisions')
        .where({ collection: 'articles' })
        .orderBy('id', 'desc')
        .first<Row>('data', 'parent');
      expect(parseJson(revision?.['data'])).to.include({ title: 'J2', status: 'published' });
    });

    it('upserts: an item whose key exists is updated, any other created', async () => {
      const [existing] = dataOf<Row[]>(await api('POST', '/items/articles', [{ title: 'Before', views: 1 }]));
      const id = Number(existing?.['id']);
      const res = await importFile(
        'articles',
        JSON.stringify([
          { id, title: 'After' },
          { id: id + 1_000_000, title: 'Fresh key' },
        ]),
        'application/json',
      );
      expect(res.status).to.equal(200);
      expect(await articles([id, id + 1_000_000])).to.deep.equal([
        { id, title: 'After', status: 'draft', views: 1, author: null },
        { id: id + 1_000_000, title: 'Fresh key', status: 'draft', views: null, author: null },
      ]);
      const actions = await db()('svc_activity')
        .where({ collection: 'articles' })
        .whereIn('item', [String(id), String(id + 1_000_000)])
        .orderBy('id')
        .select<Row[]>('action', 'item');
      expect(actions.map((a) => [a['item'], a['action']])).to.deep.equal([
        [String(id), 'create'],
        [String(id), 'update'],
        [String(id + 1_000_000), 'create'],
      ]);
    });

    it('imports CSV: header line of field names, cells typed per field, JSON cells for relations', async () => {
      const author = dataOf<Row>(await api('POST', '/items/authors', { name: 'CSV Author' }));
      const csv = [
        'title,status,views,author,comments',
        `C1,published,12,${String(author['id'])},`,
        'C2,,0,,"[{""text"":""first""}]"',
        '',
      ].join('\r\n');
      expect((await importFile('articles', csv, 'text/csv')).status).to.equal(200);
      const rows = await db()('articles')
        .whereIn('title', ['C1', 'C2'])
        .orderBy('title')
        .select<Row[]>('id', 'title', 'status', 'views', 'author');
      expect(
        rows.map((r) => [
          r['title'],
          r['status'],
          Number(r['views']),
          r['author'] === null ? null : Number(r['author']),
        ]),
      ).to.deep.equal([
        ['C1', 'published', 12, Number(author['id'])],
        ['C2', 'draft', 0, null],
      ]);
      const comments = await db()('comments')
        .where('article', rows[1]?.['id'] as number)
        .select<Row[]>('text');
      expect(comments.map((c) => c['text'])).to.deep.equal(['first']);
    });

    it('a bad CSV row rejects the whole import, naming the row and field, and leaves every table unchanged', async () => {
      const before = await countRows(db(), ARTICLE_TABLES);
      const csv = [
        'title,views',
        'fine,1',
        'also fine,2',
        'this title is far too long for the column,3',
        'never read,4',
        '',
      ].join('\n');
      const result = await importFile('articles', csv, 'application/vnd.ms-excel');
      const errors = errorsOf(result, 400);
      expect(errors).to.deep.equal([['VALUE_TOO_LONG', { collection: 'articles', field: 'title', row: 3 }]]);
      expect(result.body?.errors?.[0]?.message).to.match(/^Row 3: /);
      expect(await countRows(db(), ARTICLE_TABLES)).to.deep.equal(before);
      const invalid = errorsOf(await importFile('articles', 'title,views\nok,1\nbad,abc\n', 'text/csv'), 400);
      expect(invalid).to.deep.equal([['FAILED_VALIDATION', { field: 'views', type: 'type', row: 2 }]]);
      expect(await countRows(db(), ARTICLE_TABLES)).to.deep.equal(before);
    });

    it('imports many rows across batches; a key repeated within the file refuses it, naming both rows', async () => {
      const rows = Array.from({ length: 1203 }, (_, i) => `bulk ${i},${i}`);
      const res = await importFile('articles', `title,views\n${rows.join('\n')}\n`, 'text/csv');
      expect(res.status).to.equal(200);
      const count = await db()('articles')
        .where('title', 'like', 'bulk %')
        .count({ n: '*' })
        .first<{ n: number | string }>();
      expect(Number(count?.n)).to.equal(1203);
      // Far above the sequence: PostgreSQL does not move a serial past keys given explicitly.
      const [last] = await db()('articles').max({ id: 'id' });
      const next = Number(last?.['id']) + 2_000_000;
      const before = await countRows(db(), ARTICLE_TABLES);
      const twice = await importFile(
        'articles',
        JSON.stringify([{ id: next, title: 'twice' }, { title: 'between' }, { id: String(next), title: 'second' }]),
        'application/json',
      );
      expect(errorsOf(twice, 400)).to.deep.equal([['FAILED_VALIDATION', { field: 'id', type: 'unique', row: 3 }]]);
      expect(twice.body?.errors?.[0]?.message).to.match(/^Row 3: .*row 1 of the file/);
      expect(await countRows(db(), ARTICLE_TABLES)).to.deep.equal(before);
    });

    it('refuses invalid JSON, a non-multipart body, an unsupported file type and a body without a file part', async () => {
      const before = await countRows(db(), ['articles']);
      expect(
        errorsOf(await importFile('articles', '[{"title":"x"}, {"title":]', 'application/json'), 400)[0]?.[1]['reason'],
      ).to.match(/^Invalid JSON in row 2/);
      const notMultipart = await api('POST', '/utils/import/articles', [{ title: 'x' }]);
      expect(errorsOf(notMultipart, 415)).to.deep.equal([
        ['UNSUPPORTED_MEDIA_TYPE', { mediaType: 'application/json', where: 'Content-Type header' }],
      ]);
      expect(errorsOf(await importFile('articles', 'title\nx\n', 'text/plain'), 415)).to.deep.equal([
        ['UNSUPPORTED_MEDIA_TYPE', { mediaType: 'text/plain', where: 'file import' }],
      ]);
      expect(errorsOf(await sendForm(ctx(), 'POST', '/utils/import/articles', [['title', 'x']]), 400)).to.deep.equal([
        ['INVALID_PAYLOAD', { reason: '"file" is required' }],
      ]);
      expect(await countRows(db(), ['articles'])).to.deep.equal(before);
    });

    it('is FORBIDDEN for unknown collections and for callers without write permission', async () => {
      expect(errorsOf(await importFile('nothing_here', '[]', 'application/json'), 403)[0]?.[0]).to.equal('FORBIDDEN');
      const before = await countRows(db(), ['articles']);
      expect((await importFile('articles', '[{"title":"anon"}]', 'application/json', { token: null })).status).to.equal(
        403,
      );
      expect(await countRows(db(), ['articles'])).to.deep.equal(before);
    });
  });

  describe('GET /items/:collection?export=', () => {
    let ids: number[] = [];
    before(async () => {
      const author = dataOf<Row>(await api('POST', '/items/authors', { name: 'Exporter' }));
      const created = dataOf<Row[]>(
        await api('POST', '/items/articles', [
          { title: 'E "one"', status: 'published', views: 3, author: author['id'] },
          { title: 'E two', status: 'published', views: null },
        ]),
      );
      ids = created.map((r) => Number(r['id']));
    });
    const query = () => `filter[id][_in]=${ids.join(',')}&sort=id`;

    it('json: the items of the read as a tab-indented attachment named after the collection', async () => {
      const plain = dataOf<Row[]>(await api('GET', `/items/articles?${query()}&fields=id,title,author.name`));
      const res = await adminGet(ctx(), `/items/articles?${query()}&fields=id,title,author.name&export=json`);
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.equal('application/json; charset=utf-8');
      expect(res.headers.get('content-disposition')).to.match(/^attachment; filename="articles \d{8}-\d{5,6}\.json"$/);
      expect(await res.text()).to.equal(JSON.stringify(plain, null, '\t'));
    });

    it('csv: flattened related fields; the file imports back', async () => {
      const res = await adminGet(ctx(), `/items/articles?${query()}&fields=id,title,views,author.name&export=csv`);
      expect(res.headers.get('content-type')).to.equal('text/csv; charset=utf-8');
      expect(await res.text()).to.equal(
        [
          '"id","title","views","author.name","author"',
          `${ids[0]},"E ""one""",3,"Exporter",`,
          `${ids[1]},"E two",,,`,
          '',
        ].join('\n'),
      );
      const exported = await (
        await adminGet(ctx(), `/items/articles?${query()}&fields=id,title,views&export=csv`)
      ).text();
      await db()('articles').whereIn('id', ids).update({ title: 'changed', views: 9 });
      expect((await importFile('articles', exported, 'text/csv')).status).to.equal(200);
      // Empty cells leave a field out: views of the second item keeps the value it had.
      expect((await articles(ids)).map((a) => [a.title, a.views])).to.deep.equal([
        ['E "one"', 3],
        ['E two', 9],
      ]);
    });

    it('csv: a json field flattened to dotted columns imports back to the same objects', async () => {
      const gadgets = dataOf<Row[]>(
        await api('POST', '/items/gadgets', [
          { name: 'boxed', note: 'n', doc: { a: 1, b: { c: 'x', d: [1, 'two'] } } },
          { name: 'empty', note: 'n', doc: null },
          { name: 'flat', note: 'n', doc: { k: true } },
        ]),
      );
      const keys = gadgets.map((g) => String(g['id']));
      const read = `/items/gadgets?filter[id][_in]=${keys.join(',')}&sort=name&fields=id,name,note,doc`;
      const before = dataOf<Row[]>(await api('GET', read));
      const exported = await (await adminGet(ctx(), `${read}&export=csv`)).text();
      expect(exported.split('\n')[0]).to.equal('"id","name","note","doc.a","doc.b.c","doc.b.d","doc","doc.k"');
      await db()('gadgets').whereIn('id', keys).delete();
      const res = await importFile('gadgets', exported, 'text/csv');
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(dataOf<Row[]>(await api('GET', read))).to.deep.equal(before);
    });

    it('xml and yaml downloads', async () => {
      const xml = await (await adminGet(ctx(), `/items/articles?${query()}&fields=id,author.name&export=xml`)).text();
      const parsed = new XMLParser({ parseTagValue: false }).parse(xml) as { data: { data: Row[] } };
      expect(parsed.data.data).to.deep.equal([
        { id: String(ids[0]), author: { name: 'Exporter' } },
        { id: String(ids[1]), author: 'null' },
      ]);
      const yaml = await adminGet(ctx(), `/items/articles?${query()}&fields=id&export=yaml`);
      expect(yaml.headers.get('content-type')).to.equal('text/yaml; charset=utf-8');
      expect(await yaml.text()).to.equal(`- "id": ${ids[0]}\n- "id": ${ids[1]}\n`);
    });

    it("keeps the read's limit, works for SEARCH, and refuses bad formats and unknown collections", async () => {
      const limited = await (await adminGet(ctx(), `/items/articles?${query()}&fields=id&limit=1&export=json`)).json();
      expect(limited).to.deep.equal([{ id: ids[0] }]);
      const searched = await ctx().api('/items/articles?export=json', {
        method: 'SEARCH',
        headers: { Authorization: `Bearer ${TEST_ADMIN.token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ query: { fields: ['id'], filter: { id: { _eq: ids[1] } }, export: 'json' } }),
      });
      expect(await searched.json()).to.deep.equal([{ id: ids[1] }]);
      expect(errorsOf(await api('GET', '/items/articles?export=pdf'), 400)[0]?.[0]).to.equal('INVALID_QUERY');
      expect((await adminGet(ctx(), '/items/nothing_here?export=csv')).status).to.equal(403);
      expect((await ctx().api('/items/articles?export=csv')).status).to.equal(403);
    });
  });
});
