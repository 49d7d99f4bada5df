import { expect } from 'chai';
import { IMPORT_BATCH_SIZE } from '../../../src/commands/import/handle-import.js';
import { describeEachDatabase } from '../../support/server.js';
import { statementsRunOn } from '../../support/statements.js';
import { call, createCaller, grant } from '../access/permission-helpers.js';
import { ARTICLE_TABLES, adminApi, countRows, createCommandSchema, dataOf, errorsOf } from '../commands/schema.js';
import { sendForm } from './helpers.js';

type Row = Record<string, unknown>;

/*
 * Imports write the new rows of a file together (multi-row INSERTs, the journal in the same
 * batches: handle-import.ts) yet audit every item, apply permissions and validation, and a
 * failing row anywhere rolls back the whole file and is named with its field.
 */
describeEachDatabase('imports written in batches', (ctx) => {
  const db = () => ctx().server.db;
  const importCsv = (csv: string, token?: string) =>
    sendForm(ctx(), 'POST', '/utils/import/articles', [['file', csv, 'rows.csv', 'text/csv']], token ? { token } : {});
  const csvOf = (rows: readonly string[]) => `title,views,author\n${rows.join('\n')}\n`;
  let author = 0;

  before(async () => {
    await createCommandSchema(ctx());
    author = Number(dataOf<Row>(await adminApi(ctx(), 'POST', '/items/authors', { name: 'Importer' }))['id']);
  });

  it('5,000 rows: few INSERTs, one activity row and one revision per item', async () => {
    const before = await countRows(db(), ['articles', 'svc_activity', 'svc_revisions']);
    const rows = Array.from({ length: 5000 }, (_, i) => `batch ${i},${i},${author}`);
    let status = 0;
    const statements = await statementsRunOn(db(), async () => {
      status = (await importCsv(csvOf(rows))).status;
    });
    expect(status).to.equal(200);
    // The batch path: PostgreSQL by COPY (no INSERT), MariaDB and SQLite by one multi-row
    // INSERT per table and batch of 2,000 rows (import-copy.test.ts checks what they write).
    const inserted = statements.flatMap((sql) => /^insert into [`"](\w+)[`"]/i.exec(sql)?.[1] ?? []);
    const batches = ctx().dialect === 'postgres' ? 0 : Math.ceil(5000 / IMPORT_BATCH_SIZE);
    expect(inserted).to.deep.equal(
      Array.from({ length: batches }, () => ['articles', 'svc_activity', 'svc_revisions']).flat(),
    );
    expect(statements.length).to.be.below(200);
    const after = await countRows(db(), ['articles', 'svc_activity', 'svc_revisions']);
    expect(after).to.deep.equal({
      articles: (before['articles'] ?? 0) + 5000,
      svc_activity: (before['svc_activity'] ?? 0) + 5000,
      svc_revisions: (before['svc_revisions'] ?? 0) + 5000,
    });
    const last = await db()('articles').where('title', 'batch 4999').first<Row>();
    const revision = await db()('svc_revisions')
      .where({ collection: 'articles', item: String(last?.['id']) })
      .first<Row>();
    const data = typeof revision?.['data'] === 'string' ? JSON.parse(revision['data']) : revision?.['data'];
    expect(data).to.include({ title: 'batch 4999', id: Number(last?.['id']) });
    expect(Number(data.views)).to.equal(4999);
  });

  it('a foreign key pointing nowhere in row 3,001 rolls back every row, naming the row and field', async () => {
    const before = await countRows(db(), ARTICLE_TABLES);
    const rows = Array.from({ length: 4000 }, (_, i) => `fk ${i},${i},${i === 3000 ? author + 100000 : author}`);
    const res = await importCsv(csvOf(rows));
    expect(errorsOf(res, 400)).to.deep.equal([
      ['INVALID_FOREIGN_KEY', { collection: 'articles', field: 'author', row: 3001 }],
    ]);
    expect(res.body?.errors?.[0]?.message).to.match(/^Row 3001: /);
    expect(await countRows(db(), ARTICLE_TABLES)).to.deep.equal(before);
  });

  it('a value failing validation in row 2,500 rolls back every row, naming the row and field', async () => {
    const before = await countRows(db(), ARTICLE_TABLES);
    const rows = Array.from({ length: 3000 }, (_, i) => `v ${i},${i === 2499 ? 'many' : i},`);
    expect(errorsOf(await importCsv(csvOf(rows)), 400)).to.deep.equal([
      ['FAILED_VALIDATION', { field: 'views', type: 'type', row: 2500 }],
    ]);
    expect(await countRows(db(), ARTICLE_TABLES)).to.deep.equal(before);
  });

  it('an empty file, a CSV header alone and an empty JSON array are each a 400 naming the problem', async () => {
    const reason = [['INVALID_PAYLOAD', { reason: 'The file contains no items' }]];
    expect(errorsOf(await importCsv(''), 400)).to.deep.equal(reason);
    expect(errorsOf(await importCsv('title,views\n'), 400)).to.deep.equal(reason);
    const json = await sendForm(ctx(), 'POST', '/utils/import/articles', [
      ['file', '[]', 'a.json', 'application/json'],
    ]);
    expect(errorsOf(json, 400)).to.deep.equal(reason);
  });

  it("a limited role's create permission applies to every row: one row outside it refuses the file", async () => {
    const caller = await createCaller(db());
    await grant(ctx(), caller.role, [
      { collection: 'articles', action: 'read' },
      { collection: 'articles', action: 'create', permissions: { views: { _lt: 100 } } },
      { collection: 'articles', action: 'update' },
    ]);
    const before = await countRows(db(), ARTICLE_TABLES);
    const rows = Array.from({ length: 150 }, (_, i) => `role ${i},${i === 120 ? 500 : i % 50},`);
    const refused = await importCsv(csvOf(rows), caller.token);
    expect(errorsOf(refused, 403).map(([code]) => code)).to.deep.equal(['FORBIDDEN']);
    expect(await countRows(db(), ARTICLE_TABLES)).to.deep.equal(before);
    const fine = await importCsv(csvOf(rows.filter((_, i) => i !== 120)), caller.token);
    expect(fine.status, JSON.stringify(fine.body)).to.equal(200);
    const created = await call(ctx(), caller.token, 'GET', '/items/articles?filter[title][_starts_with]=role&limit=-1');
    expect((created.body?.['data'] as Row[]).length).to.equal(149);
  });
});
