import { expect } from 'chai';
import { describeEachDatabase } from '../../support/server.js';
import {
  ARTICLE_TABLES,
  adminApi,
  countRows,
  createCommandSchema,
  dataOf,
  errorsOf,
  parseJson,
} from '../commands/schema.js';
import { sendForm } from './helpers.js';

type Row = Record<string, unknown>;

/*
 * The set-based import paths (PostgreSQL: COPY with the journal copied in the same batch,
 * copy-creates.ts; MariaDB and SQLite: multi-row INSERTs) write what the item writer would:
 * the same activity and revision per item, defaults for empty cells, text as sent, and an
 * upsert of the keys a file gives, across batches.
 */
describeEachDatabase('imports through the set-based paths', (ctx) => {
  const db = () => ctx().server.db;
  const importCsv = (csv: string) =>
    sendForm(ctx(), 'POST', '/utils/import/articles', [['file', csv, 'rows.csv', 'text/csv']]);
  let author = 0;

  before(async () => {
    await createCommandSchema(ctx());
    author = Number(dataOf<Row>(await adminApi(ctx(), 'POST', '/items/authors', { name: 'Copier' }))['id']);
  });

  const activityOf = async (id: unknown): Promise<Row> => {
    const activity = await db()('svc_activity')
      .where({ collection: 'articles', item: String(id) })
      .first<Row>();
    const revision = await db()('svc_revisions').where({ activity: activity?.['id'] }).first<Row>();
    const { id: _id, item: _item, timestamp: _t, ...fields } = activity ?? {};
    return {
      ...fields,
      data: parseJson(revision?.['data']),
      delta: parseJson(revision?.['delta']),
      parent: revision?.['parent'],
    };
  };

  it('an imported item has the activity row and revision a created one has', async () => {
    const created = dataOf<Row>(
      await adminApi(ctx(), 'POST', '/items/articles', { title: 'same', views: 7, author, code: 'C1' }),
    );
    const res = await importCsv(`title,views,author,code\nsame,7,${author},C1\n`);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    const imported = await db()('articles').where({ title: 'same' }).orderBy('id', 'desc').first<Row>();
    expect(imported?.['id']).to.not.equal(created['id']);
    const strip = (row: Row): Row => {
      const data = row['data'] as Row;
      const delta = row['delta'] as Row;
      const { id: _a, date_created: _b, ...restData } = data;
      const { id: _c, date_created: _d, ...restDelta } = delta;
      expect(data['id']).to.equal(delta['id']);
      // A CSV cell is text: numbers are recorded as sent, on every path.
      const typed = (values: Row) => ({ ...values, views: Number(values['views']), author: Number(values['author']) });
      return { ...row, data: typed(restData), delta: typed(restDelta) };
    };
    const fromApi = strip(await activityOf(created['id']));
    const fromFile = strip(await activityOf(imported?.['id']));
    expect(fromFile).to.deep.equal(fromApi);
    expect(fromFile['action']).to.equal('create');
  });

  it('empty cells take the column default; tabs, newlines and backslashes are stored as sent', async () => {
    const text = 'a\tb\\n\\c';
    const res = await importCsv(`title,status,code\n"${text}",,Cx\n"line\nbreak",published,\n`);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    const rows = await db()('articles').whereIn('code', ['Cx']).orWhere('title', 'line\nbreak').orderBy('id');
    expect(rows.map((r: Row) => [r['title'], r['status'], r['code']])).to.deep.equal([
      [text, 'draft', 'Cx'],
      ['line\nbreak', 'published', null],
    ]);
  });

  it('keys of the file: existing ones are updated, new ones created, across batches of 2,000', async () => {
    const existing = dataOf<Row>(await adminApi(ctx(), 'POST', '/items/articles', { title: 'old', views: 1 }));
    const base = Number(existing['id']) + 1000;
    const lines = Array.from({ length: 2500 }, (_, i) => `,new ${i},${i}`);
    // Row 2,100 (second batch) updates the item created before the file; row 5 gives a new key.
    lines[2099] = `${String(existing['id'])},updated,99`;
    lines[4] = `${base},given,5`;
    const before = await countRows(db(), ['articles', 'svc_activity', 'svc_revisions']);
    // Issue 13: row 2,200 repeating row 5's key refuses the file, nothing written.
    const repeated = lines.map((line, i) => (i === 2199 ? `${base},given again,6` : line));
    const refused = await importCsv(`id,title,views\n${repeated.join('\n')}\n`);
    expect(errorsOf(refused, 400)).to.deep.equal([['FAILED_VALIDATION', { field: 'id', type: 'unique', row: 2200 }]]);
    expect(refused.body?.errors?.[0]?.message).to.match(/^Row 2200: .*row 5 of the file/);
    expect(await countRows(db(), ['articles', 'svc_activity', 'svc_revisions'])).to.deep.equal(before);
    const res = await importCsv(`id,title,views\n${lines.join('\n')}\n`);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    const after = await countRows(db(), ['articles', 'svc_activity', 'svc_revisions']);
    expect((after['articles'] ?? 0) - (before['articles'] ?? 0)).to.equal(2499);
    expect((after['svc_activity'] ?? 0) - (before['svc_activity'] ?? 0)).to.equal(2500);
    expect((after['svc_revisions'] ?? 0) - (before['svc_revisions'] ?? 0)).to.equal(2500);
    const updated = await db()('articles').where({ id: existing['id'] }).first<Row>();
    expect([updated?.['title'], Number(updated?.['views'])]).to.deep.equal(['updated', 99]);
    const given = await db()('articles').where({ id: base }).first<Row>();
    expect([given?.['title'], Number(given?.['views'])]).to.deep.equal(['given', 5]);
    // New rows after a given key get keys past it (the sequence moved).
    const fresh = dataOf<Row>(await adminApi(ctx(), 'POST', '/items/articles', { title: 'after' }));
    expect(Number(fresh['id'])).to.be.above(base);
  });

  it("accountability 'activity': an activity row per imported item, no revision; null: neither", async () => {
    const before = await countRows(db(), ['svc_activity', 'svc_revisions']);
    const names = Array.from({ length: 2500 }, (_, i) => `n${i}`);
    for (const collection of ['logged', 'quiet']) {
      const res = await sendForm(ctx(), 'POST', `/utils/import/${collection}`, [
        ['file', `name\n${names.join('\n')}\n`, 'rows.csv', 'text/csv'],
      ]);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(await countRows(db(), [collection])).to.deep.equal({ [collection]: 2500 });
    }
    expect(await countRows(db(), ['svc_activity', 'svc_revisions'])).to.deep.equal({
      svc_activity: (before['svc_activity'] ?? 0) + 2500,
      svc_revisions: before['svc_revisions'] ?? 0,
    });
    const last = await db()('logged').where('name', 'n2499').first<Row>();
    const activity = await db()('svc_activity').where({ collection: 'logged', item: String(last?.['id']) });
    expect(activity.map((a: Row) => a['action'])).to.deep.equal(['create']);
  });

  it('a bad row in the third batch rolls back the two batches already written, journal included', async () => {
    const before = await countRows(db(), ARTICLE_TABLES);
    const lines = Array.from({ length: 5000 }, (_, i) => (i === 4321 ? `${'x'.repeat(30)},1` : `late ${i},${i}`));
    const res = await importCsv(`title,views\n${lines.join('\n')}\n`);
    const [[code, extensions] = []] = errorsOf(res, 400);
    expect(code).to.be.oneOf(['FAILED_VALIDATION', 'INVALID_PAYLOAD', 'VALUE_TOO_LONG']);
    expect(extensions?.['row']).to.equal(4322);
    expect(await countRows(db(), ARTICLE_TABLES)).to.deep.equal(before);
  });
});

/* Issue 13, bad input: each a 400 naming the row (or the limit), and not one row written. */
describeEachDatabase(
  'imports refusing bad files',
  (ctx) => {
    const db = () => ctx().server.db;
    const importFile = (body: string, type = 'text/csv') =>
      sendForm(ctx(), 'POST', '/utils/import/articles', [['file', body, 'rows', type]]);
    const good = (count: number) => Array.from({ length: count }, (_, i) => `fine ${i},${i}`).join('\n');

    before(() => createCommandSchema(ctx()));

    it('a file over IMPORT_MAX_SIZE, after rows already written, is INVALID_PAYLOAD naming the limit', async () => {
      const before = await countRows(db(), ARTICLE_TABLES);
      const res = await importFile(`title,views\n${good(4000)}\n`);
      const [[code, extensions] = []] = errorsOf(res, 400);
      expect(code).to.equal('INVALID_PAYLOAD');
      expect(String(extensions?.['reason'])).to.match(/IMPORT_MAX_SIZE/);
      expect(await countRows(db(), ARTICLE_TABLES)).to.deep.equal(before);
      const small = await importFile(`title,views\n${good(3)}\n`);
      expect(small.status, JSON.stringify(small.body)).to.equal(200);
    });

    it('a malformed line, a value of the wrong type, a file ending mid-row: 400 naming the row', async () => {
      const before = await countRows(db(), ARTICLE_TABLES);
      const cases: [string, string, RegExp][] = [
        [`title,views\n${good(2100)}\nbad "quote,1\n`, 'text/csv', /row 2101/i],
        [`title,views\n${good(2200)}\nwrong,lots\n`, 'text/csv', /^Row 2201: /],
        [`title,views\n${good(10)}\n"cut off,`, 'text/csv', /row 11/i],
        [`[{"title":"a"},{"title":"b"},{"title":"c`, 'application/json', /row 3/],
      ];
      for (const [body, type, message] of cases) {
        const res = await importFile(body, type);
        const [[code] = []] = errorsOf(res, 400);
        expect(code).to.be.oneOf(['INVALID_PAYLOAD', 'FAILED_VALIDATION']);
        expect(res.body?.errors?.[0]?.message, body.slice(-30)).to.match(message);
      }
      expect(await countRows(db(), ARTICLE_TABLES)).to.deep.equal(before);
    });

    it('a column that is not a field: CSV header or JSON key, 400 naming it (and the row), nothing written', async () => {
      const before = await countRows(db(), ARTICLE_TABLES);
      const reason = (name: string) => `Column "${name}" is not a field of collection "articles"`;
      const csv = await importFile('title,views,colour\nx,1,red\ny,2,\n');
      expect(errorsOf(csv, 400)).to.deep.equal([['INVALID_PAYLOAD', { reason: reason('colour') }]]);
      // A dotted header is a path through many-to-one fields to a field of the related collection.
      for (const header of ['author.colour', 'title.length', 'comments.text']) {
        const dotted = await importFile(`title,${header}\nx,1\n`);
        expect(errorsOf(dotted, 400), header).to.deep.equal([['INVALID_PAYLOAD', { reason: reason(header) }]]);
      }
      // The bad key in the second batch: the first one written is rolled back.
      const rows: Row[] = Array.from({ length: 2100 }, () => ({ title: 'j' }));
      rows[2049] = { title: 'late', colour: 'red' };
      const json = await importFile(JSON.stringify(rows), 'application/json');
      expect(errorsOf(json, 400)).to.deep.equal([['INVALID_PAYLOAD', { reason: reason('colour'), row: 2050 }]]);
      expect(json.body?.errors?.[0]?.message).to.match(/^Row 2050: /);
      expect(await countRows(db(), ARTICLE_TABLES)).to.deep.equal(before);
      // Alias fields (one-to-many) and dotted many-to-one paths remain allowed.
      const fine = await importFile(`title,author.name,comments\nok,Someone,"[{""text"":""hi""}]"\n`);
      expect(fine.status, JSON.stringify(fine.body)).to.equal(200);
      const aliased = await importFile(
        JSON.stringify([{ title: 'ok2', comments: [{ text: 'x' }] }]),
        'application/json',
      );
      expect(aliased.status, JSON.stringify(aliased.body)).to.equal(200);
    });
  },
  { env: { IMPORT_MAX_SIZE: '40kb' } },
);
