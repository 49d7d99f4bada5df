import { expect } from 'chai';
import { describeEachDatabase } from '../../support/server.js';
import { call, createCaller, dataOf, expectForbidden, grant, type Caller } from '../access/permission-helpers.js';
import { createCommandSchema } from '../commands/schema.js';
import { graphql, graphqlData } from './graphql-client.js';

type Row = Record<string, unknown>;

/*
 * The schema objects a limited role sees are the same on REST (/collections, /fields,
 * /relations) and on the GraphQL system scope: fields it may not read, relations it could
 * follow into what it may not read and collections it may not read are hidden or FORBIDDEN
 * on both.
 */
describeEachDatabase('graphql: schema objects follow the read permissions', (ctx) => {
  let role: Caller;
  const rest = async (path: string) => call(ctx(), role.token, 'GET', path);
  const gql = (query: string) => graphql(ctx(), query, { scope: 'system', token: role.token });
  const gqlData = (query: string) => graphqlData(ctx(), query, { scope: 'system', token: role.token });
  const names = (rows: unknown, key: string) => (rows as Row[]).map((r) => String(r[key])).sort();

  before(async () => {
    await createCommandSchema(ctx());
    role = await createCaller(ctx().server.db);
    await grant(ctx(), role.role, [
      { collection: 'articles', action: 'read', fields: ['id', 'title', 'author'] },
      { collection: 'authors', action: 'read', fields: ['id', 'name', 'articles'] },
      { collection: 'svc_collections', action: 'read' },
      { collection: 'svc_fields', action: 'read' },
      { collection: 'svc_relations', action: 'read' },
    ]);
  });

  it('fields_in_collection and fields list only the readable fields, as /fields does', async () => {
    const data = await gqlData(
      `{ fields_in_collection(collection: "articles") { field } fields { collection field } }`,
    );
    expect(names(data['fields_in_collection'], 'field')).to.deep.equal(['author', 'id', 'title']);
    expect(names(data['fields_in_collection'], 'field')).to.deep.equal(
      names(dataOf(await rest('/fields/articles')), 'field'),
    );
    const all = (data['fields'] as Row[]).map((f) => `${String(f['collection'])}.${String(f['field'])}`).sort();
    const restAll = dataOf<Row[]>(await rest('/fields'))
      .map((f) => `${String(f['collection'])}.${String(f['field'])}`)
      .sort();
    expect(all).to.deep.equal(restAll);
    expect(all).to.include.members(['articles.title', 'authors.articles']);
    expect(all).to.not.include.members(['articles.views']);
    expect(all.some((f) => f.startsWith('comments.'))).to.equal(false);
  });

  it('fields_by_name of a hidden field, of a hidden collection and of a missing one are FORBIDDEN, as on /fields', async () => {
    const shown = await gqlData(`{ fields_by_name(collection: "articles", field: "title") { collection field type } }`);
    const restShown = dataOf<Row>(await rest('/fields/articles/title'));
    expect(shown['fields_by_name']).to.deep.equal({ collection: 'articles', field: 'title', type: restShown['type'] });
    for (const [collection, field] of [
      ['articles', 'views'],
      ['comments', 'text'],
      ['articles', 'nope'],
      ['nope', 'id'],
    ] as const) {
      const res = await gql(`{ fields_by_name(collection: "${collection}", field: "${field}") { field } }`);
      expect(res.body.data?.['fields_by_name'], `${collection}.${field}`).to.equal(null);
      expect(res.body.errors?.map((e) => e.extensions['code'])).to.deep.equal(['FORBIDDEN']);
      expectForbidden(await rest(`/fields/${collection}/${field}`));
    }
    const hidden = await gql(`{ fields_in_collection(collection: "comments") { field } }`);
    expect(hidden.body.errors?.map((e) => e.extensions['code'])).to.deep.equal(['FORBIDDEN']);
    expectForbidden(await rest('/fields/comments'));
  });

  it('relations_* show only relations whose both ends are readable, as /relations does', async () => {
    const data = await gqlData(
      `{ relations { collection field } relations_in_collection(collection: "articles") { field related_collection } }`,
    );
    const keys = (rows: unknown) =>
      (rows as Row[]).map((r) => `${String(r['collection'])}.${String(r['field'])}`).sort();
    expect(keys(data['relations'])).to.deep.equal(['articles.author']);
    expect(keys(data['relations'])).to.deep.equal(keys(dataOf(await rest('/relations'))));
    expect(data['relations_in_collection']).to.deep.equal([{ field: 'author', related_collection: 'authors' }]);
    const byName = await gqlData(
      `{ relations_by_name(collection: "articles", field: "author") { collection field related_collection } }`,
    );
    expect(byName['relations_by_name']).to.deep.equal({
      collection: 'articles',
      field: 'author',
      related_collection: 'authors',
    });
    for (const [collection, field] of [
      ['comments', 'article'],
      ['articles_tags', 'articles_id'],
      ['articles', 'nope'],
    ] as const) {
      const res = await gql(`{ relations_by_name(collection: "${collection}", field: "${field}") { field } }`);
      expect(
        res.body.errors?.map((e) => e.extensions['code']),
        `${collection}.${field}`,
      ).to.deep.equal(['FORBIDDEN']);
      expectForbidden(await rest(`/relations/${collection}/${field}`));
    }
    // Another role that may not read the other end (authors.articles): the relation is hidden.
    const narrow = await createCaller(ctx().server.db);
    await grant(ctx(), narrow.role, [
      { collection: 'articles', action: 'read', fields: ['id', 'title', 'author'] },
      { collection: 'authors', action: 'read', fields: ['id', 'name'] },
      { collection: 'svc_relations', action: 'read' },
    ]);
    const narrowData = await graphqlData(
      ctx(),
      `{ relations { field } relations_in_collection(collection: "articles") { field } }`,
      { scope: 'system', token: narrow.token },
    );
    expect(narrowData).to.deep.equal({ relations: [], relations_in_collection: [] });
    expect(dataOf(await call(ctx(), narrow.token, 'GET', '/relations/articles'))).to.deep.equal([]);
    const narrowByName = await graphql(
      ctx(),
      `
        {
          relations_by_name(collection: "articles", field: "author") {
            field
          }
        }
      `,
      { scope: 'system', token: narrow.token },
    );
    expect(narrowByName.body.errors?.map((e) => e.extensions['code'])).to.deep.equal(['FORBIDDEN']);
    expectForbidden(await call(ctx(), narrow.token, 'GET', '/relations/articles/author'));
    const hidden = await gql(`{ relations_in_collection(collection: "comments") { field } }`);
    expect(hidden.body.errors?.map((e) => e.extensions['code'])).to.deep.equal(['FORBIDDEN']);
    expectForbidden(await rest('/relations/comments'));
  });

  it('collections and collections_by_name show the readable collections only, as /collections does', async () => {
    const data = await gqlData(`{ collections { collection } collections_by_name(name: "articles") { collection } }`);
    const listed = names(data['collections'], 'collection');
    expect(listed).to.deep.equal(names(dataOf(await rest('/collections')), 'collection'));
    expect(listed).to.include.members(['articles', 'authors']);
    expect(listed).to.not.include.members(['comments', 'gadgets']);
    expect(data['collections_by_name']).to.deep.equal({ collection: 'articles' });
    const hidden = await gql(`{ collections_by_name(name: "comments") { collection } }`);
    expect(hidden.body.errors?.map((e) => e.extensions['code'])).to.deep.equal(['FORBIDDEN']);
    expectForbidden(await rest('/collections/comments'));
  });
});
