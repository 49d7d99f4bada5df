import { expect } from 'chai';
import { verifyPassword } from '../../../src/access/passwords.js';
import { describeEachDatabase } from '../../support/server.js';
import {
  ARTICLE_TABLES,
  adminApi,
  countRows,
  createCommandSchema,
  dataOf,
  errorsOf,
  type ApiResult,
} from './schema.js';

type Row = Record<string, unknown>;

const GADGET_TABLES = ['gadgets', 'svc_activity', 'svc_revisions'] as const;

describeEachDatabase('payload validation', (ctx) => {
  const db = () => ctx().server.db;
  const api = (method: string, path: string, body?: unknown) => adminApi(ctx(), method, path, body);
  const valid = (overrides: Row = {}): Row => ({ name: 'gadget', note: 'n', ...overrides });
  let existing: string;

  /** The errors of a write that must leave every table as it was. */
  async function refused(write: () => Promise<ApiResult>, tables: readonly string[] = GADGET_TABLES) {
    const before = await countRows(db(), tables);
    const result = await write();
    expect(await countRows(db(), tables)).to.deep.equal(before);
    return result;
  }

  before(async () => {
    await createCommandSchema(ctx());
    existing = String(dataOf<Row>(await api('POST', '/items/gadgets', valid({ slug: 'taken' })))['id']);
  });

  it('accepts a valid item, generating its uuid key and hashing its hash field', async () => {
    const { id } = dataOf<Row>(
      await api(
        'POST',
        '/items/gadgets',
        valid({ secret: 'open sesame', count: '12', price: 999.99, day: '2024-05-01' }),
      ),
    );
    expect(id).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const row = await db()('gadgets').where({ id }).first<Row>('secret', 'count');
    expect(Number(row['count'])).to.equal(12);
    expect(await verifyPassword(String(row['secret']), 'open sesame')).to.equal(true);
  });

  it('a value of the wrong type is FAILED_VALIDATION type "type" ([DEVIATION]), not 500', async () => {
    const result = await refused(() => api('POST', '/items/gadgets', valid({ count: 'abc' })));
    expect(result.body?.errors).to.deep.equal([
      {
        message: 'Validation failed for field "count".',
        extensions: { field: 'count', type: 'type', code: 'FAILED_VALIDATION' },
      },
    ]);
    expect(
      errorsOf(await refused(() => api('PATCH', `/items/gadgets/${existing}`, { active: 'maybe' })), 400),
    ).to.deep.equal([['FAILED_VALIDATION', { field: 'active', type: 'type' }]]);
  });

  it('missing required fields on create: one error per field', async () => {
    expect(errorsOf(await refused(() => api('POST', '/items/gadgets', {})), 400)).to.deep.equal([
      ['FAILED_VALIDATION', { field: 'name', type: 'required' }],
      ['FAILED_VALIDATION', { field: 'note', type: 'required' }],
    ]);
  });

  it('null into a non-nullable field is "nnull"', async () => {
    const result = await refused(() => api('PATCH', `/items/gadgets/${existing}`, { name: null }));
    expect(result.body?.errors?.[0]?.message).to.equal('Validation failed for field "name". Value can\'t be null.');
    expect(errorsOf(result, 400)).to.deep.equal([['FAILED_VALIDATION', { field: 'name', type: 'nnull' }]]);
  });

  it('a string longer than the column is VALUE_TOO_LONG on every database', async () => {
    expect(
      errorsOf(await refused(() => api('POST', '/items/gadgets', valid({ name: 'x'.repeat(11) }))), 400),
    ).to.deep.equal([['VALUE_TOO_LONG', { collection: 'gadgets', field: 'name' }]]);
  });

  it('a number outside the column type is VALUE_OUT_OF_RANGE on every database', async () => {
    // knex declares smallint and decimal as integer and float on SQLite: int and bigint ranges hold everywhere.
    expect(
      errorsOf(await refused(() => api('POST', '/items/gadgets', valid({ count: 3000000000 }))), 400),
    ).to.deep.equal([['VALUE_OUT_OF_RANGE', { collection: 'gadgets', field: 'count' }]]);
    expect(
      errorsOf(await refused(() => api('PATCH', `/items/gadgets/${existing}`, { big: '9223372036854775808' })), 400),
    ).to.deep.equal([['VALUE_OUT_OF_RANGE', { collection: 'gadgets', field: 'big' }]]);
    // A float field is 4 bytes (PostgreSQL's real named no field when it refused 1e308).
    expect(errorsOf(await refused(() => api('POST', '/items/gadgets', valid({ ratio: 1e308 }))), 400)).to.deep.equal([
      ['VALUE_OUT_OF_RANGE', { collection: 'gadgets', field: 'ratio' }],
    ]);
  });

  it('a day the calendar lacks is FAILED_VALIDATION on every database, a leap day is stored', async () => {
    // SQLite stored 2024-02-30 as sent; PostgreSQL refused it as a number out of range.
    expect(
      errorsOf(await refused(() => api('POST', '/items/gadgets', valid({ day: '2024-02-30' }))), 400),
    ).to.deep.equal([['FAILED_VALIDATION', { field: 'day', type: 'type' }]]);
    expect(
      errorsOf(
        await refused(() => api('PATCH', `/items/gadgets/${existing}`, { seen_at: '2023-02-29T10:00:00Z' })),
        400,
      ),
    ).to.deep.equal([['FAILED_VALIDATION', { field: 'seen_at', type: 'type' }]]);
    const { id } = dataOf<Row>(await api('POST', '/items/gadgets', valid({ day: '2024-02-29' })));
    expect(dataOf<Row>(await api('GET', `/items/gadgets/${String(id)}?fields=day`))).to.deep.equal({
      day: '2024-02-29',
    });
  });

  it("the field's validation filter, with its validation_message", async () => {
    const result = await refused(() => api('POST', '/items/gadgets', valid({ code: 'lower' })));
    expect(result.body?.errors).to.deep.equal([
      {
        message: 'Codes are upper-case letters.',
        extensions: { field: 'code', type: 'regex', code: 'FAILED_VALIDATION' },
      },
    ]);
    const article = await refused(() => api('POST', '/items/articles', { title: 'x', code: 'X1' }), ARTICLE_TABLES);
    expect(errorsOf(article, 400)).to.deep.equal([
      ['FAILED_VALIDATION', { field: 'code', type: 'starts_with', substring: 'C' }],
    ]);
  });

  it('a duplicate unique value or key is RECORD_NOT_UNIQUE naming the field', async () => {
    expect(errorsOf(await refused(() => api('POST', '/items/gadgets', valid({ slug: 'taken' }))), 400)).to.deep.equal([
      ['RECORD_NOT_UNIQUE', { collection: 'gadgets', field: 'slug' }],
    ]);
    expect(errorsOf(await refused(() => api('POST', '/items/gadgets', valid({ id: existing }))), 400)).to.deep.equal([
      ['RECORD_NOT_UNIQUE', { collection: 'gadgets', field: 'id' }],
    ]);
  });

  it('a key that is not a field is dropped (Directus 10), the rest still validated', async () => {
    const { id } = dataOf<Row>(await api('POST', '/items/gadgets', valid({ colour: 'red' })));
    expect(await db()('gadgets').where({ id }).first<Row>('name')).to.deep.equal({ name: 'gadget' });
    expect(
      errorsOf(await refused(() => api('POST', '/items/gadgets', valid({ colour: 'red', count: 'abc' }))), 400),
    ).to.deep.equal([['FAILED_VALIDATION', { field: 'count', type: 'type' }]]);
  });

  it('several failing fields are reported together', async () => {
    const result = await refused(() =>
      api('PATCH', `/items/gadgets/${existing}`, { count: 1.5, name: null, code: 'x' }),
    );
    expect(errorsOf(result, 400).map(([, e]) => [e['field'], e['type']])).to.deep.equal([
      ['count', 'type'],
      ['name', 'nnull'],
      ['code', 'regex'],
    ]);
  });

  it('a nested item that fails validation rolls back the parent and its siblings', async () => {
    const result = await refused(
      () =>
        api('POST', '/items/articles', {
          title: 'Parent',
          comments: [{ text: 'sibling' }],
          tags: [{ tags_id: { label: 'ok' } }],
          author: { name: null },
        }),
      ARTICLE_TABLES,
    );
    expect(errorsOf(result, 400)).to.deep.equal([['FAILED_VALIDATION', { field: 'name', type: 'nnull' }]]);
    const deeper = await refused(
      () =>
        api('POST', '/items/articles', {
          title: 'Parent',
          comments: [{ text: 'c', author: { name: 'ok', articles: [{ title: 'x'.repeat(21) }] } }],
        }),
      ARTICLE_TABLES,
    );
    expect(errorsOf(deeper, 400)).to.deep.equal([['VALUE_TOO_LONG', { collection: 'articles', field: 'title' }]]);
  });
});
