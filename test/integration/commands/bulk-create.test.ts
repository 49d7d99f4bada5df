import { expect } from 'chai';
import { describeEachDatabase } from '../../support/server.js';
import { adminApi, createCommandSchema, dataOf } from './schema.js';

type Row = Record<string, unknown>;

/** Values of every column type, with text that needs escaping in SQL and in JSON. */
const gadgets: Row[] = [
  {
    name: 'quoted',
    rank: 3,
    count: -12,
    big: '9007199254740993',
    ratio: 0.25,
    price: '12.50',
    active: true,
    day: '2024-02-29',
    seen_at: '2024-05-01T10:20:30.123Z',
    doc: { nested: { list: [1, 'two', null] }, quote: 'it\'s "so"', slash: 'a\\b' },
    code: 'ABC',
    note: 'O\'Brien said "hi" \\ \u00e9\u00e8 \u{1F600} \n new line',
  },
  {
    name: 'json text',
    rank: null,
    active: false,
    doc: 'just a string',
    note: '{"looks": "like json"}',
    seen_at: '2024-01-01T00:00:00+02:00',
  },
  { name: 'json list', doc: [1, 2, 3], note: ' ', price: 7, ratio: -1.5e-7 },
  { name: 'nulls', doc: null, note: 'n', day: null, seen_at: null, big: null },
];

describeEachDatabase('POST of many items: the same rows as one at a time', (ctx) => {
  const db = () => ctx().server.db;
  const api = (method: string, path: string, body?: unknown) => adminApi(ctx(), method, path, body);

  before(async () => {
    await createCommandSchema(ctx());
  });

  /** The stored row without what differs between two creates of the same payload. */
  async function storedRow(id: unknown): Promise<Row> {
    const { id: _id, slug: _slug, ...rest } = await db()('gadgets').where({ id }).first<Row>();
    return rest;
  }

  it('stores every type of value exactly as a single create does, and reads it back the same', async () => {
    const together = dataOf<Row[]>(
      await api(
        'POST',
        '/items/gadgets',
        gadgets.map((g, i) => ({ ...g, slug: `together-${i}` })),
      ),
    );
    const alone: Row[] = [];
    for (const [i, g] of gadgets.entries())
      alone.push(dataOf<Row>(await api('POST', '/items/gadgets', { ...g, slug: `alone-${i}` })));
    expect(together.map((g) => g['name'])).to.deep.equal(gadgets.map((g) => g['name']));
    for (const [i, item] of together.entries()) {
      expect(await storedRow(item['id'])).to.deep.equal(await storedRow(alone[i]?.['id']));
      const { id: _a, slug: _b, ...read } = item;
      const { id: _c, slug: _d, ...readAlone } = alone[i] ?? {};
      expect(read).to.deep.equal(readAlone);
    }
    expect(together[0]).to.include({ note: gadgets[0]?.['note'], big: '9007199254740993' });
    expect(together[0]?.['doc']).to.deep.equal(gadgets[0]?.['doc']);
    expect(together[1]?.['doc']).to.equal('just a string');
  });

  it('creates through a one-to-many payload are inserted together, the keys in payload order', async () => {
    const texts = Array.from({ length: 30 }, (_, i) => `comment ${i}`);
    const article = dataOf<Row>(
      await api('POST', '/items/articles?fields=id,comments.id,comments.text', {
        title: 'Many',
        comments: { create: texts.map((text) => ({ text })) },
      }),
    );
    const comments = article['comments'] as Row[];
    expect(comments.map((c) => c['text'])).to.deep.equal(texts);
    const ids = comments.map((c) => Number(c['id']));
    expect(ids).to.deep.equal([...ids].sort((a, b) => a - b));
  });
});
