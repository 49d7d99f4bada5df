import { expect } from 'chai';
import fc from 'fast-check';
import { describeEachDatabase } from '../../support/server.js';
import { call, createCaller, grant, type Caller } from '../access/permission-helpers.js';
import { adminApi, countRows, createCommandSchema, dataOf, errorsOf, type ApiResult } from '../commands/schema.js';
import { day, stampJournal } from './journal-clock.js';

type Row = Record<string, unknown>;

/** The fields a restore brings back (date_updated and user_created are the service's to set). */
const FIELDS = ['title', 'status', 'code', 'views', 'author', 'comments'] as const;
const TABLES = ['svc_activity', 'svc_revisions', 'articles'] as const;

/** One write of a random edit sequence: any subset of the article's plain fields, nulls included. */
const edit = (authors: readonly number[]) =>
  fc.record(
    {
      title: fc.string({ minLength: 1, maxLength: 8 }),
      status: fc.constantFrom('draft', 'published', 'archived'),
      code: fc.option(fc.string({ maxLength: 5 }).map((s) => `C${s}`)),
      views: fc.option(fc.integer({ min: -1000, max: 1000 })),
      author: fc.option(fc.constantFrom(...authors)),
    },
    { requiredKeys: [] },
  );

describeEachDatabase('revert restores the state of the moment (revert then read = the as-of read)', (ctx) => {
  const db = () => ctx().server.db;
  const api = (method: string, path: string, body?: unknown) => adminApi(ctx(), method, path, body);
  const as = async (caller: Caller, method: string, path: string, body?: unknown): Promise<ApiResult> =>
    (await call(ctx(), caller.token, method, path, body)) as ApiResult;
  const fieldsQuery = `fields=${FIELDS.join(',')}`;
  const now = async (id: number): Promise<Row> =>
    dataOf<Row>(await api('GET', `/items/articles/${String(id)}?${fieldsQuery}`));
  const asOf = async (id: number, moment: string | number): Promise<Row> =>
    dataOf<Row>(await api('GET', `/items/articles/${String(id)}?${fieldsQuery}&as_of=${encodeURIComponent(moment)}`));
  const revisionsOf = async (id: number): Promise<number[]> =>
    (
      await db()('svc_revisions')
        .where({ collection: 'articles', item: String(id) })
        .orderBy('id')
        .select<Row[]>('id')
    ).map((r) => Number(r['id']));
  const create = async (body: Row): Promise<number> =>
    Number(dataOf<Row>(await api('POST', '/items/articles', body))['id']);
  let authors: number[];
  let titleOnly: Caller;

  before(async () => {
    await createCommandSchema(ctx());
    authors = [];
    for (const name of ['Ann', 'Bob'])
      authors.push(Number(dataOf<Row>(await api('POST', '/items/authors', { name }))['id']));
    titleOnly = await createCaller(db());
    await grant(ctx(), titleOnly.role, [
      { collection: 'articles', action: 'read' },
      { collection: 'articles', action: 'update', fields: ['title'] },
      // A revert by revision id reads the revision with the caller's access.
      { collection: 'svc_revisions', action: 'read' },
    ]);
  });

  it('for random edit sequences, a revert to each revision (by id, by as_of id, by moment) reads as the as-of read of it', async function () {
    this.timeout(600_000);
    await fc.assert(
      fc.asyncProperty(
        edit(authors),
        fc.array(edit(authors), { minLength: 1, maxLength: 5 }),
        fc.array(fc.record({ text: fc.string({ maxLength: 5 }) }), { maxLength: 2 }),
        async (first, edits, comments) => {
          const id = await create({ title: 'Start', ...first, ...(comments.length > 0 ? { comments } : {}) });
          for (const body of edits) dataOf(await api('PATCH', `/items/articles/${String(id)}`, body));
          const revisions = await revisionsOf(id);
          expect(revisions).to.have.length(edits.length + 1);
          // Moments between the writes: day n+1 at noon follows write n, stamped on day n+1 at 10:00.
          await stampJournal(
            db(),
            'articles',
            id,
            revisions.map((_, i) => i + 1),
          );
          const moments = revisions.map((_, i) => day(i + 1, 12));
          for (const [i, revision] of revisions.entries()) {
            const expected = await asOf(id, revision);
            expect(await asOf(id, moments[i] ?? '')).to.deep.equal(expected);
            const how = i % 3;
            const res =
              how === 0
                ? await api('POST', `/utils/revert/${String(revision)}`)
                : await api('POST', '/utils/revert', {
                    collection: 'articles',
                    item: id,
                    as_of: how === 1 ? revision : moments[i],
                  });
            expect(res.status, JSON.stringify(res.body)).to.equal(204);
            expect(await now(id), `revision ${String(i)} (${['id', 'as_of id', 'moment'][how] ?? ''})`).to.deep.equal(
              expected,
            );
          }
        },
      ),
      { seed: 20261129, numRuns: 6, endOnFailure: true },
    );
  });

  it('fields set after the moment go back to null or their default, in one update revision', async () => {
    const id = await create({ title: 'Only a title' });
    dataOf(
      await api('PATCH', `/items/articles/${String(id)}`, { code: 'C added later', views: 9, status: 'published' }),
    );
    await stampJournal(db(), 'articles', id, [1, 3]);
    expect(await asOf(id, day(2))).to.deep.include({ title: 'Only a title', code: null, views: null, status: 'draft' });
    const before = await countRows(db(), TABLES);
    expect((await api('POST', '/utils/revert', { collection: 'articles', item: id, as_of: day(2) })).status).to.equal(
      204,
    );
    expect(await now(id)).to.deep.include({ title: 'Only a title', code: null, views: null, status: 'draft' });
    expect(await countRows(db(), TABLES)).to.deep.equal({
      ...before,
      svc_activity: (before['svc_activity'] ?? 0) + 1,
      svc_revisions: (before['svc_revisions'] ?? 0) + 1,
    });
    const last = await db()('svc_revisions')
      .where({ collection: 'articles', item: String(id) })
      .orderBy('id', 'desc')
      .first<Row>('delta');
    const delta = (typeof last['delta'] === 'string' ? JSON.parse(last['delta']) : last['delta']) as Row;
    expect(delta).to.deep.include({ code: null, views: null, status: 'draft' });
    // Restoring the state the item already has writes nothing.
    expect((await api('POST', '/utils/revert', { collection: 'articles', item: id, as_of: day(2) })).status).to.equal(
      204,
    );
    expect(await countRows(db(), TABLES)).to.deep.equal({
      ...before,
      svc_activity: (before['svc_activity'] ?? 0) + 1,
      svc_revisions: (before['svc_revisions'] ?? 0) + 1,
    });
  });

  it('a field the caller may not update refuses the whole revert (FORBIDDEN, nothing written) only when it would change', async () => {
    const id = await create({ title: 'First' });
    dataOf(await api('PATCH', `/items/articles/${String(id)}`, { title: 'Second', views: 5 }));
    dataOf(await api('PATCH', `/items/articles/${String(id)}`, { title: 'Third' }));
    const revisions = await revisionsOf(id);
    const counts = await countRows(db(), TABLES);
    // Back to the creation: views would go from 5 to null, which titleOnly may not write.
    expect(errorsOf(await as(titleOnly, 'POST', `/utils/revert/${String(revisions[0])}`), 403)).to.have.length(1);
    errorsOf(
      await as(titleOnly, 'POST', '/utils/revert', { collection: 'articles', item: id, as_of: revisions[0] }),
      403,
    );
    expect(await countRows(db(), TABLES)).to.deep.equal(counts);
    expect(await now(id)).to.deep.include({ title: 'Third', views: 5 });
    // Back to the second write: only the title differs.
    expect((await as(titleOnly, 'POST', `/utils/revert/${String(revisions[1])}`)).status).to.equal(204);
    expect(await now(id)).to.deep.include({ title: 'Second', views: 5 });
  });

  it('bulk undo puts a field the undone write set first back to null, and refuses with FORBIDDEN a field the caller may not update', async () => {
    const id = await create({ title: 'Plain' });
    dataOf(await api('PATCH', `/items/articles/${String(id)}`, { code: 'Cnew', views: 3 }));
    const [, update] = await db()('svc_activity')
      .where({ collection: 'articles', item: String(id) })
      .orderBy('id')
      .select<Row[]>('id');
    const filter = { id: { _eq: update?.['id'] } };
    const counts = await countRows(db(), TABLES);
    errorsOf(await as(titleOnly, 'POST', '/utils/undo', { filter }), 403);
    expect(await countRows(db(), TABLES)).to.deep.equal(counts);
    const plan = dataOf<Row[]>(await api('POST', '/utils/undo', { filter }));
    expect(plan[0]).to.deep.include({ action: 'update', values: { code: null, views: null } });
    expect(await now(id)).to.deep.include({ title: 'Plain', code: null, views: null });
  });
});
