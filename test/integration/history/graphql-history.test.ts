import { expect } from 'chai';
import { describeEachDatabase } from '../../support/server.js';
import { createCaller, grant, type Caller } from '../access/permission-helpers.js';
import { adminApi, countRows, createCommandSchema, dataOf } from '../commands/schema.js';
import { graphql, graphqlData } from '../graphql/graphql-client.js';

type Row = Record<string, unknown>;

const TABLES = ['svc_activity', 'svc_revisions', 'svc_versions', 'articles'] as const;

describeEachDatabase('GraphQL: content versions, diffs, history and undo (system scope)', (ctx) => {
  const db = () => ctx().server.db;
  const api = (method: string, path: string, body?: unknown) => adminApi(ctx(), method, path, body);
  const system = (query: string, variables: Record<string, unknown> = {}, token?: string) =>
    graphqlData(ctx(), query, { scope: 'system', variables, ...(token === undefined ? {} : { token }) });
  const article = async (): Promise<number> =>
    Number(dataOf<Row>(await api('POST', '/items/articles', { title: 'Live', views: 1 }))['id']);
  let reader: Caller;

  before(async () => {
    await createCommandSchema(ctx());
    await db()('svc_collections').insert({ collection: 'articles', versioning: true });
    await ctx().server.schema.invalidate();
    reader = await createCaller(db());
    await grant(ctx(), reader.role, [
      { collection: 'articles', action: 'read' },
      { collection: 'svc_versions', action: 'read' },
      { collection: 'svc_revisions', action: 'read' },
    ]);
  });

  it('versions: create, rename, save, read with C_by_id(version:), compare, promote, delete', async () => {
    const id = await article();
    const created = await system(
      'mutation ($d: JSON!) { create_versions_item(data: $d) { id key name collection item } }',
      { d: { key: 'draft', name: 'Draft', collection: 'articles', item: String(id) } },
    );
    const version = created['create_versions_item'] as Row;
    expect(version).to.deep.include({ key: 'draft', name: 'Draft', collection: 'articles', item: String(id) });
    const vid = String(version['id']);
    const renamed = await system(
      'mutation ($id: ID!) { update_versions_item(id: $id, data: {name: "Spring"}) { name } }',
      {
        id: vid,
      },
    );
    expect(renamed['update_versions_item']).to.deep.equal({ name: 'Spring' });
    const saved = await system('mutation ($id: ID!) { save_version(id: $id, delta: {title: "Draft"}) }', { id: vid });
    expect(saved['save_version']).to.deep.include({ id, title: 'Draft', views: 1 });
    const read = await graphqlData(
      ctx(),
      `{ articles_by_id(id: ${String(id)}, version: "draft") { title views } live: articles_by_id(id: ${String(id)}) { title } }`,
    );
    expect(read).to.deep.equal({ articles_by_id: { title: 'Draft', views: 1 }, live: { title: 'Live' } });
    const compared = (await system('mutation ($id: ID!) { compare_version(id: $id) }', { id: vid }))[
      'compare_version'
    ] as Row;
    expect(compared).to.deep.include({ outdated: false, current: { title: 'Draft' }, main: { title: 'Live' } });
    const promoted = await system('mutation ($id: ID!, $h: String!) { promote_version(id: $id, mainHash: $h) }', {
      id: vid,
      h: compared['mainHash'],
    });
    expect(String(promoted['promote_version'])).to.equal(String(id));
    expect(await db()('articles').where({ id }).first('title')).to.deep.equal({ title: 'Draft' });
    expect(await system('mutation ($id: ID!) { delete_versions_item(id: $id) { id } }', { id: vid })).to.deep.equal({
      delete_versions_item: { id: vid },
    });
    expect(await db()('svc_versions').where({ id: vid }).first()).to.equal(undefined);
  });

  it('a stale mainHash and a role that may not update are errors with their codes; nothing written', async () => {
    const id = await article();
    const { id: vid } = dataOf<Row>(await api('POST', '/versions', { key: 'draft', collection: 'articles', item: id }));
    const counts = await countRows(db(), TABLES);
    const stale = await graphql(ctx(), `mutation { promote_version(id: "${String(vid)}", mainHash: "x") }`, {
      scope: 'system',
    });
    expect(stale.body.errors?.map((e) => e.extensions['code'])).to.deep.equal(['UNPROCESSABLE_ENTITY']);
    const refused = await graphql(ctx(), `mutation { save_version(id: "${String(vid)}", delta: {title: "No"}) }`, {
      scope: 'system',
      token: reader.token,
    });
    expect(refused.body.errors?.map((e) => e.extensions['code'])).to.deep.equal(['FORBIDDEN']);
    const schema = await graphql(ctx(), '{ __type(name: "Mutation") { fields { name } } }', {
      scope: 'system',
      token: reader.token,
    });
    const names = ((schema.body.data?.['__type'] as { fields: { name: string }[] }).fields ?? []).map((f) => f.name);
    expect(names).to.include('save_version').and.not.include('create_versions_item');
    expect(await countRows(db(), TABLES)).to.deep.equal(counts);
  });

  it('revisions_diff and items_history answer what the REST routes answer, for a limited reader too', async () => {
    const id = await article();
    dataOf(await api('PATCH', `/items/articles/${String(id)}`, { title: 'Second' }));
    const history = dataOf<Row[]>(await api('GET', `/items/articles/${String(id)}/history`));
    const revision = String(history[0]?.['revision']);
    const diff = dataOf<Row>(await api('GET', `/revisions/${revision}/diff`));
    const got = await system(
      'query ($id: ID!, $c: String!, $r: ID!) { items_history(collection: $c, id: $id, limit: 10) revisions_diff(id: $r) }',
      { id: String(id), c: 'articles', r: revision },
      reader.token,
    );
    expect(got['items_history']).to.deep.equal(history);
    expect(got['revisions_diff']).to.deep.equal(diff);
    const field = await system('{ items_history(collection: "articles", id: "' + String(id) + '", field: "title") }');
    expect((field['items_history'] as Row[]).map((h) => h['value'])).to.deep.equal(['Second', 'Live']);
  });

  it('utils_undo: the plan on a dry run, then the undo itself', async () => {
    const id = await article();
    dataOf(await api('PATCH', `/items/articles/${String(id)}`, { title: 'Oops' }));
    const last = await db()('svc_activity')
      .where({ collection: 'articles', item: String(id) })
      .max({ id: 'id' })
      .first();
    const filter = { id: { _eq: Number(last?.id) } };
    const plan = await system('mutation ($f: JSON!) { utils_undo(filter: $f, dry_run: true) }', { f: filter });
    expect(plan['utils_undo']).to.deep.equal([
      {
        collection: 'articles',
        item: String(id),
        action: 'update',
        fields: ['title'],
        values: { title: 'Live' },
        conflicts: [],
      },
    ]);
    expect(await db()('articles').where({ id }).first('title')).to.deep.equal({ title: 'Oops' });
    await system('mutation ($f: JSON!) { utils_undo(filter: $f) }', { f: filter });
    expect(await db()('articles').where({ id }).first('title')).to.deep.equal({ title: 'Live' });
  });
});
