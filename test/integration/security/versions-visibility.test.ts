import { expect } from 'chai';
import { describeEachDatabase } from '../../support/server.js';
import { call, createCaller, dataOf, grant, type Caller, type JsonResponse } from '../access/permission-helpers.js';
import { adminApi, createCommandSchema, dataOf as dataOfResult } from '../commands/schema.js';
import { graphql } from '../graphql/graphql-client.js';
import { dumpTables, expectSameRefusal, type Row } from './helpers.js';

/*
 * Issue 36, items 7 and 11. A version's `delta` is a draft of its item: a caller whose read
 * permission leaves the item out must not see its versions by any door (GET /versions[/:id],
 * /items/svc_versions, SEARCH, aggregates, GraphQL), as they do not see its revisions. And
 * POST /versions decides permission before it looks at the collection, so an existing
 * collection the caller may not use answers like a missing one.
 */

const WATCHED: readonly (readonly [string, string])[] = [
  ['svc_versions', 'id'],
  ['svc_activity', 'id'],
  ['svc_revisions', 'id'],
];

describeEachDatabase('versions of items outside the caller read permission stay hidden', (context) => {
  const ctx = () => context();
  const api = (method: string, path: string, body?: unknown) => adminApi(ctx(), method, path, body);
  let reader: Caller;
  let noVersions: Caller;
  let published: { id: string; version: string };
  let hidden: { id: string; version: string };

  const drafted = async (status: string, key: string): Promise<{ id: string; version: string }> => {
    const item = dataOfResult<Row>(await api('POST', '/items/articles', { title: `Live ${key}`, status }));
    const id = String(item['id']);
    const version = dataOfResult<Row>(await api('POST', '/versions', { key, collection: 'articles', item: id }));
    dataOfResult(await api('POST', `/versions/${String(version['id'])}/save`, { title: `Secret ${key}` }));
    return { id, version: String(version['id']) };
  };

  before(async () => {
    const db = ctx().server.db;
    await createCommandSchema(ctx());
    await db('svc_collections').insert({ collection: 'articles', versioning: true });
    await ctx().server.schema.invalidate();
    [reader, noVersions] = [await createCaller(db), await createCaller(db)];
    // The reader reads published articles only, and every version row (no filter of their own).
    await grant(ctx(), reader.role, [
      { collection: 'articles', action: 'read', permissions: { status: { _eq: 'published' } } },
      { collection: 'svc_versions', action: 'read' },
      { collection: 'svc_versions', action: 'create' },
    ]);
    // Reads authors and articles but may not create versions.
    await grant(ctx(), noVersions.role, [
      { collection: 'articles', action: 'read' },
      { collection: 'authors', action: 'read' },
      { collection: 'svc_versions', action: 'read' },
    ]);
    published = await drafted('published', 'open');
    hidden = await drafted('draft', 'closed');
  });

  const as = (method: string, path: string, body?: unknown): Promise<JsonResponse> =>
    call(ctx(), reader.token, method, path, body);
  const ids = (res: JsonResponse): string[] => dataOf<Row[]>(res).map((row) => String(row['id']));

  it('GET /versions, /items/svc_versions, SEARCH and ?export= list only versions of readable items', async () => {
    expect(ids(await as('GET', '/versions?fields=id,delta'))).to.deep.equal([published.version]);
    expect(ids(await as('GET', '/items/svc_versions?fields=id'))).to.deep.equal([published.version]);
    expect(ids(await as('SEARCH', '/versions', { query: { fields: ['id'] } }))).to.deep.equal([published.version]);
    // Asking for it by name, by filter, changes nothing.
    const filtered = await as('GET', `/versions?filter[item][_eq]=${hidden.id}&fields=id,delta`);
    expect(dataOf<Row[]>(filtered)).to.deep.equal([]);
    const deltas = dataOf<Row[]>(await as('GET', '/versions?fields=delta'));
    expect(JSON.stringify(deltas)).to.not.include('Secret closed');
    // The file download of a read (?export=) holds the same rows.
    const exported = await ctx().api('/versions?export=json&fields=id,delta', {
      headers: { Authorization: `Bearer ${reader.token}` },
    });
    expect(exported.status).to.equal(200);
    const file = await exported.text();
    expect(file).to.include(published.version).and.not.include(hidden.version);
  });

  it('GET /versions/:id of a hidden item is FORBIDDEN like a missing version; compare too', async () => {
    expectSameRefusal(
      await as('GET', `/versions/00000000-0000-4000-8000-000000000000`),
      await as('GET', `/versions/${hidden.version}`),
    );
    expectSameRefusal(
      await as('GET', `/items/svc_versions/00000000-0000-4000-8000-000000000000`),
      await as('GET', `/items/svc_versions/${hidden.version}`),
    );
    expectSameRefusal(
      await as('GET', `/versions/00000000-0000-4000-8000-000000000000/compare`),
      await as('GET', `/versions/${hidden.version}/compare`),
    );
    expect(dataOf<Row>(await as('GET', `/versions/${published.version}?fields=id`))).to.deep.equal({
      id: published.version,
    });
  });

  it('counts and groups only versions of readable items', async () => {
    expect(dataOf<Row[]>(await as('GET', '/versions?aggregate[count]=*'))).to.deep.equal([{ count: 1 }]);
    const grouped = dataOf<Row[]>(await as('GET', '/versions?aggregate[count]=*&groupBy[]=item'));
    expect(grouped.map((g) => String(g['item']))).to.deep.equal([published.id]);
  });

  it('GraphQL versions lists and fetches only versions of readable items', async () => {
    const list = await graphql(ctx(), '{ versions { id delta } }', { scope: 'system', token: reader.token });
    expect(list.status).to.equal(200);
    const rows = (list.body.data?.['versions'] ?? []) as Row[];
    expect(rows.map((r) => r['id'])).to.deep.equal([published.version]);
    const one = await graphql(ctx(), `{ versions_by_id(id: "${hidden.version}") { id delta } }`, {
      scope: 'system',
      token: reader.token,
    });
    expect(one.body.data?.['versions_by_id'] ?? null).to.equal(null);
  });

  it('POST /versions is FORBIDDEN alike for a missing collection and an existing one the caller may not use; nothing written', async () => {
    const before = await dumpTables(ctx().server.db, WATCHED);
    const post = (token: string | undefined, collection: string) =>
      call(ctx(), token, 'POST', '/versions', { key: 'probe', collection, item: '1' });
    // Anonymous, a role without create on svc_versions, and one that may create versions but not read `authors`.
    for (const token of [undefined, noVersions.token, reader.token]) {
      const missing = await post(token, 'no_such_collection');
      expectSameRefusal(missing, await post(token, 'authors'));
      expectSameRefusal(missing, await post(token, 'svc_users'));
    }
    expectSameRefusal(await post(undefined, 'no_such_collection'), await post(undefined, 'articles'));
    expect(await dumpTables(ctx().server.db, WATCHED)).to.deep.equal(before);
  });
});
