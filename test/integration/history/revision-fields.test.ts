import { expect } from 'chai';
import { describeEachDatabase } from '../../support/server.js';
import { call, createCaller, grant, type Caller } from '../access/permission-helpers.js';
import { adminApi, createCommandSchema, dataOf } from '../commands/schema.js';
import { graphqlData } from '../graphql/graphql-client.js';

type Row = Record<string, unknown>;

/** A value only the hidden field `views` ever holds: seen anywhere in an answer, it leaked. */
const SECRET = 987654;
const LATER = 987655;

/**
 * A role that reads articles' id and title (not views, not status) and the journal: every
 * door that hands out values from svc_revisions or svc_versions gives it only those fields.
 */
describeEachDatabase('revisions and versions hold back the fields a role may not read', (ctx) => {
  const db = () => ctx().server.db;
  const api = (method: string, path: string, body?: unknown) => adminApi(ctx(), method, path, body);
  const as = (method: string, path: string, body?: unknown) => call(ctx(), reader.token, method, path, body);
  let reader: Caller;
  let article: number;

  before(async () => {
    await createCommandSchema(ctx());
    await db()('svc_collections').insert([
      { collection: 'articles', versioning: true },
      { collection: 'authors', versioning: true },
    ]);
    await ctx().server.schema.invalidate();
    reader = await createCaller(db());
    await grant(ctx(), reader.role, [
      { collection: 'articles', action: 'read', fields: ['id', 'title'] },
      { collection: 'svc_revisions', action: 'read' },
      { collection: 'svc_activity', action: 'read' },
      { collection: 'svc_versions', action: 'read' },
    ]);
    article = Number(dataOf<Row>(await api('POST', '/items/articles', { title: 'Open', views: SECRET }))['id']);
    dataOf(await api('PATCH', `/items/articles/${String(article)}`, { title: 'Shut', views: LATER }));
  });

  /** The answer's body, checked to hold neither hidden value. */
  const withoutSecrets = async (method: string, path: string, status = 200, body?: unknown): Promise<Row> => {
    const res = await as(method, path, body);
    expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).to.equal(status);
    const text = JSON.stringify(res.body);
    expect(text).not.to.include(String(SECRET));
    expect(text).not.to.include(String(LATER));
    expect(text).not.to.include('"views"');
    return res.body ?? {};
  };
  const revisionsPath = (query: string) =>
    `/revisions?filter[collection][_eq]=articles&filter[item][_eq]=${String(article)}&sort=id&${query}`;

  it('GET /revisions, /revisions/:id, /items/svc_revisions, SEARCH, limit=-1: data and delta keep readable fields', async () => {
    const listed = (await withoutSecrets('GET', revisionsPath('fields=id,data,delta')))['data'] as Row[];
    expect(listed.map((r) => r['data'])).to.deep.equal([
      { id: article, title: 'Open' },
      { id: article, title: 'Shut' },
    ]);
    expect(listed.map((r) => r['delta'])).to.deep.equal([{ id: article, title: 'Open' }, { title: 'Shut' }]);
    const [first] = listed;
    const one = (await withoutSecrets('GET', `/revisions/${String(first?.['id'])}?fields=data,delta`))['data'];
    expect(one).to.deep.equal({ data: { id: article, title: 'Open' }, delta: { id: article, title: 'Open' } });
    const items = await withoutSecrets('GET', `/items/svc_revisions?${revisionsPath('fields=*').split('?')[1] ?? ''}`);
    expect((items['data'] as Row[]).map((r) => r['delta'])).to.deep.equal([
      { id: article, title: 'Open' },
      { title: 'Shut' },
    ]);
    await withoutSecrets('GET', revisionsPath('limit=-1'));
    const searched = await withoutSecrets('SEARCH', '/revisions', 200, {
      query: { filter: { collection: { _eq: 'articles' } }, fields: ['data', 'delta'] },
    });
    expect(searched['data']).to.have.length(2);
    // through the activity row's revisions (a nested one-to-many)
    const nested = await withoutSecrets(
      'GET',
      `/activity?filter[collection][_eq]=articles&fields=revisions.data,revisions.delta`,
    );
    expect(nested['data']).to.have.length(2);
  });

  it('the administrator still reads every field', async () => {
    const listed = dataOf<Row[]>(await api('GET', revisionsPath('fields=data,delta')));
    expect(listed[0]?.['data']).to.deep.include({ title: 'Open', views: SECRET });
    expect(listed[1]?.['delta']).to.deep.include({ title: 'Shut', views: LATER });
  });

  it('exports and GraphQL (system revisions, activity revisions) hold them back too', async () => {
    const exported = await ctx().api(revisionsPath('export=json'), {
      headers: { Authorization: `Bearer ${reader.token}` },
    });
    expect(exported.status).to.equal(200);
    const text = await exported.text();
    expect(text).not.to.include(String(SECRET));
    expect(text).to.include('Shut');
    const query = `{ revisions(filter: {collection: {_eq: "articles"}}) { data delta }
      activity(filter: {collection: {_eq: "articles"}}) { revisions { data delta } } }`;
    const read = await graphqlData(ctx(), query, { scope: 'system', token: reader.token });
    const json = JSON.stringify(read);
    expect(json).not.to.include(String(SECRET));
    expect(json).not.to.include('views');
    expect(read['revisions']).to.have.length(2);
  });

  it('sorts, groups, aggregates and counts on data or delta are FORBIDDEN, as on a masked field; null filters work', async () => {
    const refused = [
      revisionsPath('sort=data'),
      revisionsPath('sort=-delta'),
      revisionsPath('fields=count(delta)'),
      '/revisions?groupBy=data&aggregate[count]=*',
      '/revisions?aggregate[countDistinct]=delta',
      '/versions?sort=delta',
    ];
    for (const path of refused) {
      const body = await withoutSecrets('GET', path, 403);
      expect(body['errors']).to.deep.equal([
        { message: "You don't have permission to access this.", extensions: { code: 'FORBIDDEN' } },
      ]);
    }
    // json fields filter only on null, which tells nothing of a hidden value
    const filtered = await withoutSecrets('GET', revisionsPath('filter[data][_nnull]=true&fields=id,delta'));
    expect(filtered['data']).to.have.length(2);
    // the administrator may
    expect(dataOf<Row[]>(await api('GET', revisionsPath('sort=data&fields=id')))).to.have.length(2);
  });

  it('history, as_of, versions (delta, compare) and the undo plan show only readable fields', async () => {
    const history = (await withoutSecrets('GET', `/items/articles/${String(article)}/history`))['data'] as Row[];
    expect(history).to.have.length(2);
    await withoutSecrets('GET', `/items/articles/${String(article)}/history?field=views`, 403);
    const firstRevision = (
      await db()('svc_revisions')
        .where({ collection: 'articles', item: String(article) })
        .orderBy('id')
        .first<Row>('id')
    )['id'];
    await withoutSecrets('GET', `/items/articles/${String(article)}?as_of=${String(firstRevision)}`);
    await withoutSecrets('GET', `/revisions/${String(firstRevision)}/diff`, 200);

    const version = dataOf<Row>(
      await api('POST', '/versions', { key: 'draft', collection: 'articles', item: article }),
    );
    dataOf(await api('POST', `/versions/${String(version['id'])}/save`, { title: 'Draft', views: SECRET }));
    const versions = (await withoutSecrets('GET', `/versions?filter[id][_eq]=${String(version['id'])}`))[
      'data'
    ] as Row[];
    expect(versions[0]?.['delta']).to.deep.equal({ title: 'Draft' });
    await withoutSecrets('GET', `/versions/${String(version['id'])}`);
    await withoutSecrets('GET', `/versions/${String(version['id'])}/compare`);
    await withoutSecrets('GET', `/items/articles/${String(article)}?version=draft`);
    // a version of an item of a collection the role may not read at all: not listed (issue 36,
    // as its revisions are not; it was listed with a null delta)
    const author = dataOf<Row>(await api('POST', '/items/authors', { name: 'Ann' }));
    const hidden = dataOf<Row>(
      await api('POST', '/versions', { key: 'draft', collection: 'authors', item: author['id'] }),
    );
    dataOf(await api('POST', `/versions/${String(hidden['id'])}/save`, { name: String(SECRET) }));
    const unreadable = await withoutSecrets('GET', `/versions?filter[collection][_eq]=authors&fields=collection,delta`);
    expect(unreadable['data']).to.deep.equal([]);
    expect(dataOf<Row[]>(await api('GET', `/versions?filter[collection][_eq]=authors&fields=delta`))).to.deep.equal([
      { delta: { name: String(SECRET) } },
    ]);
    // the plan of undoing the update names only the fields the role may read
    const plan = await withoutSecrets('POST', '/utils/undo', 200, {
      filter: { collection: { _eq: 'articles' }, action: { _eq: 'update' } },
      dry_run: true,
    });
    expect(plan['data']).to.deep.equal([
      {
        collection: 'articles',
        item: String(article),
        action: 'update',
        fields: ['title'],
        values: { title: 'Open' },
        conflicts: [],
      },
    ]);
  });
});
