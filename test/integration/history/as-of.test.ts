import { expect } from 'chai';
import { describeEachDatabase } from '../../support/server.js';
import { day, stampJournal } from './journal-clock.js';
import { graphql, graphqlData } from '../graphql/graphql-client.js';
import { call, createCaller, grant, type Caller } from '../access/permission-helpers.js';
import { adminApi, countRows, createCommandSchema, dataOf, errorsOf, type ApiResult } from '../commands/schema.js';

type Row = Record<string, unknown>;

const JOURNAL = ['svc_activity', 'svc_revisions', 'articles', 'authors', 'comments', 'gadgets'] as const;

describeEachDatabase('items as of a moment', (ctx) => {
  const db = () => ctx().server.db;
  const api = (method: string, path: string, body?: unknown) => adminApi(ctx(), method, path, body);
  const as = async (caller: Caller | undefined, path: string): Promise<ApiResult> =>
    (await call(ctx(), caller?.token, 'GET', path)) as ApiResult;
  const stamp = (collection: string, item: unknown, days: readonly number[]) =>
    stampJournal(db(), collection, item, days);
  let reader: Caller;

  before(async () => {
    await createCommandSchema(ctx());
    reader = await createCaller(db());
    await grant(ctx(), reader.role, [
      {
        collection: 'articles',
        action: 'read',
        fields: ['id', 'title', 'comments', 'author'],
        permissions: { status: { _eq: 'draft' } },
      },
      { collection: 'authors', action: 'read', fields: ['id', 'name'] },
      { collection: 'comments', action: 'read', fields: ['id', 'text'] },
    ]);
  });

  /** Article created day 1 (author Ann, one comment), edited day 3, author renamed day 4. */
  const story = async (): Promise<{ article: number; author: number; comment: number; revisions: number[] }> => {
    const { id: author } = dataOf<Row>(await api('POST', '/items/authors', { name: 'Ann' }));
    const { id: article } = dataOf<Row>(await api('POST', '/items/articles', { title: 'First', views: 1, author }));
    const { id: comment } = dataOf<Row>(await api('POST', '/items/comments', { text: 'hi', article }));
    dataOf(await api('PATCH', `/items/articles/${String(article)}`, { title: 'Second', views: 2 }));
    dataOf(await api('PATCH', `/items/authors/${String(author)}`, { name: 'Bea' }));
    await stamp('authors', author, [1, 4]);
    await stamp('articles', article, [1, 3]);
    await stamp('comments', comment, [2]);
    const revisions = (
      await db()('svc_revisions')
        .where({ collection: 'articles', item: String(article) })
        .orderBy('id')
        .select<Row[]>('id')
    ).map((r) => Number(r['id']));
    return { article: Number(article), author: Number(author), comment: Number(comment), revisions };
  };

  it('answers the item as its last revision before the moment had it; before the creation FORBIDDEN', async () => {
    const { article, revisions } = await story();
    const counts = await countRows(db(), JOURNAL);
    const first = dataOf<Row>(
      await api('GET', `/items/articles/${String(article)}?as_of=${day(2)}&fields=id,title,views`),
    );
    expect(first).to.deep.equal({ id: article, title: 'First', views: 1 });
    const now = dataOf<Row>(await api('GET', `/items/articles/${String(article)}?as_of=${day(5)}&fields=title,views`));
    expect(now).to.deep.equal({ title: 'Second', views: 2 });
    // a revision id is the moment that revision was written
    const byRevision = dataOf<Row>(
      await api('GET', `/items/articles/${String(article)}?as_of=${String(revisions[0])}&fields=title`),
    );
    expect(byRevision).to.deep.equal({ title: 'First' });
    errorsOf(await api('GET', `/items/articles/${String(article)}?as_of=2026-02-01T00:00:00Z`), 403);
    errorsOf(await api('GET', `/items/articles/${String(article)}?as_of=99999999`), 403);
    // beyond the revision key's range: no revision has it (PostgreSQL's integer was a 400)
    expect(errorsOf(await api('GET', `/items/articles/${String(article)}?as_of=999999999999999`), 403)).to.deep.equal([
      ['FORBIDDEN', {}],
    ]);
    errorsOf(await api('GET', `/items/articles/99999999?as_of=${day(5)}`), 403);
    expect(await countRows(db(), JOURNAL)).to.deep.equal(counts);
  });

  it('malformed moments are INVALID_QUERY', async () => {
    const { article } = await story();
    const bad = ['yesterday', '2026-13-45T00:00:00Z', '2026-03-01T10:00:00+2', ''];
    // days the calendar lacks, which Date rolls over into the next month, and year 0
    for (const moment of [...bad, '2026-02-30', '2026-02-29T10:00:00Z', '2026-04-31', '0000-01-01']) {
      expect(
        errorsOf(await api('GET', `/items/articles/${String(article)}?as_of=${encodeURIComponent(moment)}`), 400),
      ).to.deep.equal([['INVALID_QUERY', { reason: '"as_of" must be an ISO 8601 timestamp or a revision id' }]]);
    }
  });

  it('moments a zone offset carries past year 9999 or before year 1 read as the last or first moment, alike everywhere', async () => {
    const { article } = await story();
    const path = (moment: string) =>
      `/items/articles/${String(article)}?fields=title&as_of=${encodeURIComponent(moment)}`;
    // 9999-12-31T23:59:59-14:00 is year 10000 in UTC: SQLite and MariaDB found no revision then
    for (const late of ['9999-12-31T23:59:59-14:00', '9999-12-31T23:59:59Z', '9999-12-31'])
      expect(dataOf<Row>(await api('GET', path(late)))).to.deep.equal({ title: 'Second' });
    for (const early of ['0001-01-01T00:00:00+14:00', '0001-01-01']) errorsOf(await api('GET', path(early)), 403);
  });

  it('reads related items as of the same moment: many-to-one and one-to-many', async () => {
    const { article, author } = await story();
    const path = `/items/articles/${String(article)}?fields=title,author.name,comments.text`;
    expect(dataOf<Row>(await api('GET', `${path}&as_of=${day(1, 12)}`))).to.deep.equal({
      title: 'First',
      author: { name: 'Ann' },
      comments: [],
    });
    expect(dataOf<Row>(await api('GET', `${path}&as_of=${day(3, 12)}`))).to.deep.equal({
      title: 'Second',
      author: { name: 'Ann' },
      comments: [{ text: 'hi' }],
    });
    expect(dataOf<Row>(await api('GET', `${path}&as_of=${day(5)}`))).to.deep.include({ author: { name: 'Bea' } });
    // a related item without revisions then keeps its key
    await db()('svc_revisions')
      .where({ collection: 'authors', item: String(author) })
      .delete();
    expect(dataOf<Row>(await api('GET', `${path}&as_of=${day(5)}`))).to.deep.include({
      author,
      comments: [{ text: 'hi' }],
    });
  });

  it('a deleted item reads as it was before the deletion; after it FORBIDDEN', async () => {
    const { article } = await story();
    expect((await api('DELETE', `/items/articles/${String(article)}`)).status).to.equal(204);
    await stamp('articles', article, [1, 3, 6]);
    expect(
      dataOf<Row>(await api('GET', `/items/articles/${String(article)}?as_of=${day(5)}&fields=title`)),
    ).to.deep.equal({ title: 'Second' });
    errorsOf(await api('GET', `/items/articles/${String(article)}?as_of=${day(7)}&fields=title`), 403);
  });

  it('GraphQL: C_by_id(as_of:) answers the same item; null before the creation; malformed moments INVALID_QUERY', async () => {
    const { article } = await story();
    const query = `query ($at: String) { articles_by_id(id: ${String(article)}, as_of: $at) { title author { name } comments { text } } }`;
    const then = await graphqlData(ctx(), query, { variables: { at: day(1, 12) } });
    expect(then['articles_by_id']).to.deep.equal({ title: 'First', author: { name: 'Ann' }, comments: [] });
    const later = await graphqlData(ctx(), query, { variables: { at: day(3, 12) }, token: reader.token });
    expect(later['articles_by_id']).to.deep.equal({
      title: 'Second',
      author: { name: 'Ann' },
      comments: [{ text: 'hi' }],
    });
    expect((await graphqlData(ctx(), query, { variables: { at: '2026-02-01T00:00:00Z' } }))['articles_by_id']).to.equal(
      null,
    );
    const bad = await graphql(ctx(), query, { variables: { at: 'yesterday' } });
    expect(bad.body.errors?.map((e) => e.extensions['code'])).to.deep.equal(['INVALID_QUERY']);
  });

  it('a limited caller: fields readable now, `*` trimmed, other fields and items FORBIDDEN; hash values masked', async () => {
    const { article, author, comment } = await story();
    const item = dataOf<Row>(
      await as(reader, `/items/articles/${String(article)}?as_of=${day(3, 12)}&fields=*,author.*`),
    );
    expect(item).to.deep.equal({
      id: article,
      title: 'Second',
      author: { id: author, name: 'Ann' },
      comments: [comment],
    });
    errorsOf(await as(reader, `/items/articles/${String(article)}?as_of=${day(3, 12)}&fields=views`), 403);
    errorsOf(await as(undefined, `/items/articles/${String(article)}?as_of=${day(3, 12)}`), 403);
    await db()('articles').where({ id: article }).update({ status: 'published' });
    errorsOf(await as(reader, `/items/articles/${String(article)}?as_of=${day(3, 12)}&fields=title`), 403);
    const { id: gadget } = dataOf<Row>(
      await api('POST', '/items/gadgets', { name: 'g', note: 'n', secret: 'plain secret' }),
    );
    const res = await api(
      'GET',
      `/items/gadgets/${String(gadget)}?as_of=${new Date(Date.now() + 60_000).toISOString()}&fields=secret,note`,
    );
    expect(dataOf<Row>(res)).to.deep.equal({ secret: '**********', note: 'n' });
  });
});
