import { expect } from 'chai';
import { describeEachDatabase } from '../../support/server.js';
import { call, createCaller, grant, type Caller } from '../access/permission-helpers.js';
import { adminApi, countRows, createCommandSchema, dataOf, errorsOf, type ApiResult } from '../commands/schema.js';

type Row = Record<string, unknown>;

const JOURNAL = ['svc_activity', 'svc_revisions', 'articles', 'comments', 'gadgets'] as const;

describeEachDatabase('revision diffs and item history', (ctx) => {
  const db = () => ctx().server.db;
  const api = (method: string, path: string, body?: unknown) => adminApi(ctx(), method, path, body);
  const as = async (caller: Caller | undefined, path: string): Promise<ApiResult> => {
    const res = await call(ctx(), caller?.token, 'GET', path);
    return res as ApiResult;
  };
  const revisionsOf = async (collection: string, item: unknown): Promise<number[]> =>
    (
      await db()('svc_revisions')
        .where({ collection, item: String(item) })
        .orderBy('id')
        .select<Row[]>('id')
    ).map((r) => Number(r['id']));
  /** An article created, then edited twice: title, views, then a comment added. */
  const editedArticle = async (): Promise<{ id: number; revisions: number[] }> => {
    const { id } = dataOf<Row>(await api('POST', '/items/articles', { title: 'Hello world', views: 1 }));
    dataOf(await api('PATCH', `/items/articles/${String(id)}`, { title: 'Hello brave world', views: 2 }));
    dataOf(await api('PATCH', `/items/articles/${String(id)}`, { comments: [{ text: 'first' }], views: null }));
    return { id: Number(id), revisions: await revisionsOf('articles', id) };
  };
  let adminUser: string;
  let reader: Caller;
  let stranger: Caller;

  before(async () => {
    await createCommandSchema(ctx());
    adminUser = String(dataOf<Row>(await api('GET', '/users/me'))['id']);
    reader = await createCaller(db());
    stranger = await createCaller(db());
    await grant(ctx(), reader.role, [
      {
        collection: 'articles',
        action: 'read',
        fields: ['id', 'title', 'comments'],
        permissions: { status: { _eq: 'draft' } },
      },
      { collection: 'svc_revisions', action: 'read' },
    ]);
    // may read articles but not their revisions
    await grant(ctx(), stranger.role, [{ collection: 'articles', action: 'read' }]);
  });

  describe('GET /revisions/:id/diff', () => {
    it('compares with the previous revision: text as word changes, numbers as before/after, to-many as added keys', async () => {
      const { id, revisions } = await editedArticle();
      const [, edited, commented] = revisions;
      const counts = await countRows(db(), JOURNAL);
      const diff = dataOf<Row>(await api('GET', `/revisions/${String(edited)}/diff`));
      expect(diff).to.deep.include({ collection: 'articles', item: String(id), from: revisions[0], to: edited });
      const fields = diff['fields'] as Record<string, Row>;
      expect(fields['title']).to.deep.equal({
        before: 'Hello world',
        after: 'Hello brave world',
        changes: [
          { value: 'Hello ', added: false, removed: false },
          { value: 'brave ', added: true, removed: false },
          { value: 'world', added: false, removed: false },
        ],
      });
      expect(fields['views']).to.deep.equal({ before: 1, after: 2 });
      const [comment] = await db()('comments').where({ article: id }).select<Row[]>('id');
      const third = dataOf<Row>(await api('GET', `/revisions/${String(commented)}/diff`))['fields'] as Record<
        string,
        Row
      >;
      expect(third['comments']).to.deep.include({ added: [comment?.['id']], removed: [] });
      expect(third['views']).to.deep.equal({ before: 2, after: null });
      expect(third).to.not.have.property('title');
      // reads write nothing
      expect(await countRows(db(), JOURNAL)).to.deep.equal(counts);
    });

    it('a creation has every value before null; `to` compares two revisions of the item in that order; multi-line text by lines', async () => {
      const { id } = dataOf<Row>(await api('POST', '/items/comments', { text: 'one\ntwo\n' }));
      dataOf(await api('PATCH', `/items/comments/${String(id)}`, { text: 'one\n2\n' }));
      const [created, edited] = await revisionsOf('comments', id);
      const first = dataOf<Row>(await api('GET', `/revisions/${String(created)}/diff`));
      expect(first['from']).to.equal(null);
      expect((first['fields'] as Record<string, Row>)['text']).to.deep.include({ before: null, after: 'one\ntwo\n' });
      const forward = dataOf<Row>(await api('GET', `/revisions/${String(created)}/diff?to=${String(edited)}`));
      expect(forward).to.deep.include({ from: created, to: edited });
      expect((forward['fields'] as Record<string, Row>)['text']).to.deep.equal({
        before: 'one\ntwo\n',
        after: 'one\n2\n',
        changes: [
          { value: 'one\n', added: false, removed: false },
          { value: 'two\n', added: false, removed: true },
          { value: '2\n', added: true, removed: false },
        ],
      });
    });

    it('revisions of different items are INVALID_QUERY; unknown revisions FORBIDDEN', async () => {
      const a = await editedArticle();
      const b = await editedArticle();
      expect(
        errorsOf(await api('GET', `/revisions/${String(a.revisions[1])}/diff?to=${String(b.revisions[1])}`), 400),
      ).to.deep.equal([['INVALID_QUERY', { reason: '"to" must be a revision of the same item' }]]);
      errorsOf(await api('GET', '/revisions/99999999/diff'), 403);
      errorsOf(await api('GET', '/revisions/abc/diff'), 403);
      errorsOf(await api('GET', `/revisions/${String(a.revisions[1])}/diff?to=99999999`), 403);
    });

    it('a hash field never shows its value, not even masked changes', async () => {
      const { id } = dataOf<Row>(
        await api('POST', '/items/gadgets', { name: 'g', note: 'first', secret: 'plain secret one' }),
      );
      dataOf(await api('PATCH', `/items/gadgets/${String(id)}`, { note: 'second', secret: 'plain secret two' }));
      const [, edited] = await revisionsOf('gadgets', id);
      const res = await api('GET', `/revisions/${String(edited)}/diff`);
      const fields = dataOf<Row>(res)['fields'] as Record<string, Row>;
      expect(Object.keys(fields)).to.deep.equal(['note']);
      expect(JSON.stringify(res.body)).to.not.include('plain secret');
    });

    it('a limited caller sees only the fields they may read now, of items they may read now', async () => {
      const { id, revisions } = await editedArticle();
      const fields = dataOf<Row>(await as(reader, `/revisions/${String(revisions[1])}/diff`))['fields'] as Record<
        string,
        Row
      >;
      expect(Object.keys(fields)).to.deep.equal(['title']);
      // the item leaves the caller's row filter: FORBIDDEN like a missing one
      await db()('articles').where({ id }).update({ status: 'published' });
      errorsOf(await as(reader, `/revisions/${String(revisions[1])}/diff`), 403);
      // without read permission on svc_revisions, or without a token
      errorsOf(await as(stranger, `/revisions/${String(revisions[1])}/diff`), 403);
      errorsOf(await as(undefined, `/revisions/${String(revisions[1])}/diff`), 403);
    });
  });

  describe('GET /items/:collection/:id/history', () => {
    it('lists revisions newest first with who, when, action and the fields set; limit and page', async () => {
      const { id, revisions } = await editedArticle();
      const counts = await countRows(db(), JOURNAL);
      const history = dataOf<Row[]>(await api('GET', `/items/articles/${String(id)}/history`));
      expect(history.map((h) => h['revision'])).to.deep.equal([...revisions].reverse());
      expect(history.map((h) => h['action'])).to.deep.equal(['update', 'update', 'create']);
      expect(history.every((h) => h['user'] === adminUser)).to.equal(true);
      expect(history.every((h) => !Number.isNaN(Date.parse(String(h['timestamp']))))).to.equal(true);
      expect(history[0]?.['fields']).to.have.members(['comments', 'views', 'date_updated']);
      expect(history[1]?.['fields']).to.have.members(['title', 'views', 'date_updated']);
      const page = dataOf<Row[]>(await api('GET', `/items/articles/${String(id)}/history?limit=1&page=2`));
      expect(page.map((h) => h['revision'])).to.deep.equal([revisions[1]]);
      expect(await countRows(db(), JOURNAL)).to.deep.equal(counts);
    });

    it('field history: only the revisions that set the field, with the value set (null included)', async () => {
      const { id, revisions } = await editedArticle();
      const views = dataOf<Row[]>(await api('GET', `/items/articles/${String(id)}/history?field=views`));
      expect(views.map((h) => [h['revision'], h['value']])).to.deep.equal([
        [revisions[2], null],
        [revisions[1], 2],
        [revisions[0], 1],
      ]);
      const titles = dataOf<Row[]>(await api('GET', `/items/articles/${String(id)}/history?field=title`));
      expect(titles.map((h) => h['value'])).to.deep.equal(['Hello brave world', 'Hello world']);
    });

    it('a deleted item keeps its history for who may read the whole collection', async () => {
      const { id, revisions } = await editedArticle();
      expect((await api('DELETE', `/items/articles/${String(id)}`)).status).to.equal(204);
      expect(dataOf<Row[]>(await api('GET', `/items/articles/${String(id)}/history`))).to.have.length(revisions.length);
      // a caller with a row filter cannot tell what the deleted item was
      errorsOf(await as(reader, `/items/articles/${String(id)}/history`), 403);
    });

    it('bad paging is INVALID_QUERY; unknown items, collections and fields are FORBIDDEN', async () => {
      const { id } = await editedArticle();
      expect(errorsOf(await api('GET', `/items/articles/${String(id)}/history?limit=0`), 400)).to.deep.equal([
        ['INVALID_QUERY', { reason: '"limit" must be a positive integer' }],
      ]);
      errorsOf(await api('GET', `/items/articles/${String(id)}/history?page=x`), 400);
      errorsOf(await api('GET', '/items/articles/99999999/history'), 403);
      errorsOf(await api('GET', '/items/nothing_here/1/history'), 403);
      errorsOf(await api('GET', `/items/articles/${String(id)}/history?field=nothing_here`), 403);
    });

    it('a limited caller: fields readable now only, hash values never; unreadable fields and items FORBIDDEN', async () => {
      const { id } = await editedArticle();
      const history = dataOf<Row[]>(await as(reader, `/items/articles/${String(id)}/history`));
      expect(history.map((h) => [...(h['fields'] as string[])].sort())).to.deep.equal([
        ['comments'],
        ['title'],
        ['id', 'title'],
      ]);
      errorsOf(await as(reader, `/items/articles/${String(id)}/history?field=views`), 403);
      errorsOf(await as(stranger, `/items/articles/${String(id)}/history`), 403);
      await db()('articles').where({ id }).update({ status: 'published' });
      errorsOf(await as(reader, `/items/articles/${String(id)}/history`), 403);
      errorsOf(await as(undefined, `/items/articles/${String(id)}/history`), 403);
      const { id: gadget } = dataOf<Row>(
        await api('POST', '/items/gadgets', { name: 'g', note: 'n', secret: 'plain secret' }),
      );
      const secret = await api('GET', `/items/gadgets/${String(gadget)}/history?field=secret`);
      expect(dataOf<Row[]>(secret).map((h) => h['value'])).to.deep.equal(['**********']);
      expect(JSON.stringify(secret.body)).to.not.include('plain secret');
    });
  });
});
