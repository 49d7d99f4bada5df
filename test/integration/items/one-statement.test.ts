import { expect } from 'chai';
import { statementsRunOn } from '../../support/statements.js';
import { describeEachDatabase } from '../../support/server.js';
import { call, createCaller, grant, type Caller } from '../access/permission-helpers.js';
import {
  ARTICLE_TABLES,
  adminApi,
  countRows,
  createCommandSchema,
  dataOf,
  errorsOf,
  parseJson,
} from '../commands/schema.js';

type Row = Record<string, unknown>;

/** Statements of the write itself: not the token's user lookup. */
const ownStatements = (statements: readonly string[]) => statements.filter((sql) => !/svc_users/.test(sql));

/**
 * A single create or update of one plain item: on PostgreSQL one statement writes the row,
 * its activity and its revision (items/one-statement.ts), and answers plain readable
 * fields from it; elsewhere the general path. The same rows and answers on every database.
 */
describeEachDatabase('single writes in one statement', (ctx) => {
  const db = () => ctx().server.db;
  const api = (method: string, path: string, body?: unknown) => adminApi(ctx(), method, path, body);
  const isPg = () => ctx().dialect === 'postgres';
  let writer: Caller;

  async function journalOf(collection: string, item: unknown): Promise<{ activity: Row[]; revisions: Row[] }> {
    const activity = await db()('svc_activity')
      .where({ collection, item: String(item) })
      .orderBy('id')
      .select<Row[]>('*');
    const revisions = await db()('svc_revisions')
      .where({ collection, item: String(item) })
      .orderBy('id')
      .select<Row[]>('*');
    return {
      activity,
      revisions: revisions.map((r) => ({ ...r, data: parseJson(r['data']), delta: parseJson(r['delta']) })),
    };
  }

  before(async () => {
    await createCommandSchema(ctx());
    writer = await createCaller(db());
    await grant(ctx(), writer.role, [
      { collection: 'articles', action: 'read', fields: ['id', 'title', 'status'] },
      {
        collection: 'articles',
        action: 'create',
        fields: ['title', 'status', 'code'],
        presets: { code: 'C-preset' },
        validation: { status: { _in: ['draft', 'review'] } },
      },
      {
        collection: 'articles',
        action: 'update',
        fields: ['title', 'status'],
        permissions: { status: { _eq: 'draft' } },
      },
      { collection: 'authors', action: 'read' },
      { collection: 'authors', action: 'create' },
      { collection: 'authors', action: 'update' },
    ]);
  });

  it('a create writes the row, one activity row and its revision, and answers plain fields from the write', async () => {
    // The first request loads the schema; the write is measured after it.
    dataOf(await api('POST', '/items/authors', { name: 'Warm' }));
    let created: Row = {};
    const statements = await statementsRunOn(db(), async () => {
      created = dataOf<Row>(await api('POST', '/items/authors?fields=id,name', { name: 'One' }));
    });
    expect(created).to.deep.equal({ id: created['id'], name: 'One' });
    if (isPg()) expect(ownStatements(statements), statements.join('\n')).to.have.length(1);
    const { activity, revisions } = await journalOf('authors', created['id']);
    expect(activity.map((a) => a['action'])).to.deep.equal(['create']);
    expect(revisions).to.have.length(1);
    expect(revisions[0]).to.deep.include({ activity: activity[0]?.['id'], parent: null });
    expect(revisions[0]?.['data']).to.deep.equal({ name: 'One', id: created['id'] });
    expect(revisions[0]?.['delta']).to.deep.equal({ name: 'One', id: created['id'] });
  });

  it('a create of no values writes the defaults; fields sent in another order write the same statement', async () => {
    let empty: Row = {};
    const defaults = await statementsRunOn(db(), async () => {
      empty = dataOf<Row>(await api('POST', '/items/tags?fields=id,label', {}));
    });
    expect(empty).to.deep.equal({ id: empty['id'], label: null });
    if (isPg()) expect(ownStatements(defaults), defaults.join('\n')).to.have.length(1);
    expect((await journalOf('tags', empty['id'])).revisions.map((r) => r['data'])).to.deep.equal([{ id: empty['id'] }]);

    const article = dataOf<Row>(await api('POST', '/items/articles?fields=id', { title: 'Commented' }))['id'];
    const written: Row[] = [];
    const orders = [
      { text: 'first', article },
      { article, text: 'second' },
    ];
    const statements: string[][] = [];
    for (const body of orders) {
      statements.push(
        ownStatements(
          await statementsRunOn(db(), async () => {
            written.push(dataOf<Row>(await api('POST', '/items/comments?fields=id,text,article', body)));
          }),
        ),
      );
    }
    expect(written.map(({ text, article: of }) => ({ text, of }))).to.deep.equal([
      { text: 'first', of: article },
      { text: 'second', of: article },
    ]);
    expect(statements[0], statements.flat().join('\n')).to.deep.equal(statements[1]);
  });

  it('an update records the whole item as its snapshot and the field as its delta', async () => {
    const article = dataOf<Row>(await api('POST', '/items/articles', { title: 'Before', comments: [{ text: 'c' }] }));
    let updated: Row = {};
    const statements = await statementsRunOn(db(), async () => {
      updated = dataOf<Row>(
        await api('PATCH', `/items/articles/${String(article['id'])}?fields=title,id`, { title: 'After' }),
      );
    });
    expect(updated).to.deep.equal({ title: 'After', id: article['id'] });
    if (isPg()) expect(ownStatements(statements), statements.join('\n')).to.have.length(1);
    const item = dataOf<Row>(await api('GET', `/items/articles/${String(article['id'])}`));
    const { activity, revisions } = await journalOf('articles', article['id']);
    expect(activity.map((a) => a['action'])).to.deep.equal(['create', 'update']);
    expect(revisions.at(-1)?.['activity']).to.equal(activity.at(-1)?.['id']);
    expect(revisions.at(-1)?.['data']).to.deep.equal(item);
    expect(revisions.at(-1)?.['data']).to.have.property('comments').with.length(1);
    // date_updated: the special field the update set.
    expect(revisions.at(-1)?.['delta']).to.have.keys('title', 'date_updated').and.include({ title: 'After' });
  });

  it('writes of one shape run one statement with their own values; another order of fields or answer is another', async () => {
    const ids = [
      dataOf<Row>(await api('POST', '/items/articles?fields=id', { title: 'Shaped' }))['id'],
      dataOf<Row>(await api('POST', '/items/articles?fields=id', { title: 'Shaped too' }))['id'],
    ];
    const writes: [number, string, Row][] = [
      [0, 'id', { title: 'A' }],
      [0, 'id,title', { title: 'B', status: 'review' }],
      [0, 'id', { status: 'draft', title: 'C' }],
      [0, 'id,title,status', { title: 'D' }],
      [1, 'id', { title: 'E' }],
      [0, 'id', { title: 'F' }],
    ];
    const answers: Row[] = [];
    const statements: string[] = [];
    for (const [which, fields, body] of writes) {
      const run = await statementsRunOn(db(), async () => {
        answers.push(dataOf<Row>(await api('PATCH', `/items/articles/${String(ids[which])}?fields=${fields}`, body)));
      });
      statements.push(ownStatements(run).join('\n'));
    }
    expect(answers).to.deep.equal([
      { id: ids[0] },
      { id: ids[0], title: 'B' },
      { id: ids[0] },
      { id: ids[0], title: 'D', status: 'draft' },
      { id: ids[1] },
      { id: ids[0] },
    ]);
    for (const [index, id] of ids.entries()) {
      const { revisions } = await journalOf('articles', id);
      const item = dataOf<Row>(await api('GET', `/items/articles/${String(id)}`));
      expect(revisions.at(-1)?.['data']).to.deep.equal(item);
      expect(item).to.include(index === 0 ? { title: 'F', status: 'draft' } : { title: 'E' });
      expect(revisions.slice(1).map((r) => (r['delta'] as Row)['title'])).to.deep.equal(
        index === 0 ? ['A', 'B', 'C', 'D', 'F'] : ['E'],
      );
    }
    // The same shape, whichever item: the same text; another order of the fields or another answer: another.
    expect(statements[4]).to.equal(statements[0]).and.equal(statements[5]);
    expect(new Set(statements.slice(0, 4)).size).to.equal(4);
  });

  it('answers fields that are not plain columns by reading the item again', async () => {
    const created = dataOf<Row>(
      await api('POST', '/items/articles?fields=id,date_created,comments', { title: 'Dated' }),
    );
    expect(created['date_created']).to.be.a('string');
    expect(created['comments']).to.deep.equal([]);
    const all = dataOf<Row>(await api('PATCH', `/items/articles/${String(created['id'])}`, { views: 3 }));
    expect(all).to.include({ id: created['id'], title: 'Dated', views: 3, status: 'draft' });
  });

  it('collections with accountability null or activity keep their journal rules', async () => {
    const quiet = dataOf<Row>(await api('POST', '/items/quiet?fields=id', { name: 'q' }));
    dataOf(await api('PATCH', `/items/quiet/${String(quiet['id'])}?fields=id`, { name: 'q2' }));
    expect(await journalOf('quiet', quiet['id'])).to.deep.equal({ activity: [], revisions: [] });
    const logged = dataOf<Row>(await api('POST', '/items/logged?fields=id', { name: 'l' }));
    dataOf(await api('PATCH', `/items/logged/${String(logged['id'])}?fields=id`, { name: 'l2' }));
    const { activity, revisions } = await journalOf('logged', logged['id']);
    expect(activity.map((a) => a['action'])).to.deep.equal(['create', 'update']);
    expect(revisions).to.deep.equal([]);
  });

  it('refused writes leave nothing: a missing item, a value too long, a broken foreign key', async () => {
    const before = await countRows(db(), ARTICLE_TABLES);
    expect(errorsOf(await api('PATCH', '/items/articles/999999?fields=id', { title: 'x' }), 403)[0]?.[0]).to.equal(
      'FORBIDDEN',
    );
    const tooLong = 'x'.repeat(40);
    expect(errorsOf(await api('POST', '/items/articles?fields=id', { title: tooLong }), 400)[0]?.[0]).to.be.a('string');
    const fk = errorsOf(await api('POST', '/items/articles?fields=id', { title: 'fk', author: 999999 }), 400);
    expect(fk[0]?.[0]).to.equal('INVALID_FOREIGN_KEY');
    expect(await countRows(db(), ARTICLE_TABLES)).to.deep.equal(before);
  });

  it('a write the database refuses is tried in one statement once, then the general way once', async () => {
    const oneStatement = (statements: readonly string[]) => statements.filter((sql) => /^with "[iu]" as/.test(sql));
    const attempts = async (method: string, path: string, body: unknown) => {
      const statements = await statementsRunOn(db(), async () => {
        expect(errorsOf(await api(method, path, body), 400)[0]?.[0]).to.equal('INVALID_FOREIGN_KEY');
      });
      return oneStatement(statements).length;
    };
    const article = dataOf<Row>(await api('POST', '/items/articles', { title: 'Target' }));
    const create = await attempts('POST', '/items/articles?fields=id,title', { title: 'fk', author: 999999 });
    const update = await attempts('PATCH', `/items/articles/${String(article['id'])}?fields=id,title`, {
      author: 999999,
    });
    expect([create, update]).to.deep.equal(isPg() ? [1, 1] : [0, 0]);
  });

  it('an item listed among its own children: the update goes the general way and its revision lists it', async () => {
    // One statement would read the o2m alias from the table as it was before the update.
    expect((await api('POST', '/collections', { collection: 'nodes', schema: {}, fields: [] })).status).to.equal(200);
    expect((await api('POST', '/fields/nodes', { field: 'parent', type: 'integer' })).status).to.equal(200);
    const relation = {
      collection: 'nodes',
      field: 'parent',
      related_collection: 'nodes',
      meta: { one_field: 'children' },
    };
    expect((await api('POST', '/relations', relation)).status).to.equal(200);
    const root = dataOf<Row>(await api('POST', '/items/nodes?fields=id', {}));
    const child = dataOf<Row>(await api('POST', '/items/nodes?fields=id', { parent: root['id'] }));
    const statements = await statementsRunOn(db(), async () => {
      dataOf(await api('PATCH', `/items/nodes/${String(root['id'])}?fields=id`, { parent: root['id'] }));
    });
    expect(statements.filter((sql) => /^with "u" as/.test(sql))).to.deep.equal([]);
    const item = dataOf<Row>(await api('GET', `/items/nodes/${String(root['id'])}?fields=id,parent,children`));
    expect(item['children']).to.have.members([root['id'], child['id']]);
    const { revisions } = await journalOf('nodes', root['id']);
    expect(revisions.at(-1)?.['data']).to.deep.include({ parent: root['id'] });
    expect(revisions.at(-1)?.['data']).to.have.property('children').with.members([root['id'], child['id']]);
  });

  it('a limited role: presets and validation apply, the item filter refuses, the answer is what it may read', async () => {
    const as = (method: string, path: string, body?: unknown) => call(ctx(), writer.token, method, path, body);
    const refused = await as('POST', '/items/articles?fields=id', { title: 'Bad', status: 'published' });
    expect(refused.status).to.equal(400);
    const res = await as('POST', '/items/articles?fields=id,title', { title: 'Mine' });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    const created = res.body?.['data'] as Row;
    expect(created).to.deep.equal({ id: created['id'], title: 'Mine' });
    const { revisions } = await journalOf('articles', created['id']);
    expect(revisions[0]?.['data']).to.include({ title: 'Mine', code: 'C-preset' });
    const unreadable = await as('PATCH', `/items/articles/${String(created['id'])}?fields=id,code`, { title: 'M2' });
    // `code` is not readable: the general re-read is refused, so the write answers 204 (read-written.ts).
    expect(unreadable.status).to.equal(204);
    await db()('articles').where({ id: created['id'] }).update({ status: 'review' });
    const outside = await as('PATCH', `/items/articles/${String(created['id'])}?fields=id`, { title: 'M3' });
    expect(outside.status).to.equal(403);
    expect((await db()('articles').where({ id: created['id'] }).first<Row>('title'))['title']).to.equal('M2');
  });
});
