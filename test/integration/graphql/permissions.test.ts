import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { describeEachDatabase } from '../../support/server.js';
import { createQueryFixture } from '../query/fixture-schema.js';
import { graphql, graphqlData } from './graphql-client.js';

const READER_TOKEN = 'graphql-reader-static-token';

/** The names of a type's fields as the caller's schema has them; null when the type is absent. */
async function fieldsOf(
  ctx: Parameters<typeof graphqlData>[0],
  type: string,
  token: string | null,
): Promise<string[] | null> {
  const data = await graphqlData(ctx, `{ __type(name: "${type}") { fields { name } inputFields { name } } }`, {
    token,
  });
  const found = data['__type'] as { fields: { name: string }[] | null; inputFields: { name: string }[] | null } | null;
  if (found === null) return null;
  return (found.fields ?? found.inputFields ?? []).map((f) => f.name);
}

describeEachDatabase("graphql: a limited role's schema", (ctx) => {
  before(async () => {
    await createQueryFixture(ctx());
    const db = ctx().server.db;
    const role = randomUUID();
    await db('svc_roles').insert({ id: role, name: 'Readers', app_access: false, admin_access: false });
    await db('svc_users').insert({
      id: randomUUID(),
      email: 'reader@example.com',
      role,
      status: 'active',
      token: READER_TOKEN,
    });
    await db('svc_permissions').insert([
      {
        role,
        collection: 'articles',
        action: 'read',
        permissions: JSON.stringify({ status: { _eq: 'published' } }),
        fields: 'id,title,author,comments',
      },
      { role, collection: 'comments', action: 'read', fields: '*' },
      { role, collection: 'comments', action: 'create', fields: 'text,article' },
      // Fields that no longer exist (deleted after the permission was given): nothing to read.
      { role, collection: 'authors', action: 'read', fields: 'retired_field' },
      { role: null, collection: 'countries', action: 'read', fields: 'code' },
    ]);
    await ctx().server.schema.invalidate();
  });

  it("has only the root fields of the collections it reads, and no others' types", async () => {
    const data = await graphqlData(ctx(), '{ __schema { queryType { fields { name } } } }', { token: READER_TOKEN });
    const roots = (data['__schema'] as { queryType: { fields: { name: string }[] } }).queryType.fields.map(
      (f) => f.name,
    );
    expect(roots).to.have.members([
      'articles',
      'articles_by_id',
      'articles_aggregated',
      'comments',
      'comments_by_id',
      'comments_aggregated',
    ]);
    expect(await fieldsOf(ctx(), 'authors', READER_TOKEN)).to.equal(null);
    expect(await fieldsOf(ctx(), 'countries', READER_TOKEN)).to.equal(null);
  });

  it('a read permission whose fields all no longer exist leaves the collection out; the rest serves', async () => {
    expect(await fieldsOf(ctx(), 'authors', READER_TOKEN)).to.equal(null);
    expect(await fieldsOf(ctx(), 'authors_aggregated', READER_TOKEN)).to.equal(null);
    const data = await graphqlData(ctx(), '{ comments(limit: 1) { id } }', { token: READER_TOKEN });
    expect(data['comments']).to.have.length(1);
  });

  it('types carry only the fields it reads; a relation into an unreadable collection is its key', async () => {
    expect(await fieldsOf(ctx(), 'articles', READER_TOKEN)).to.have.members([
      'id',
      'title',
      'author',
      'comments',
      'comments_func',
    ]);
    const author = await graphqlData(ctx(), '{ __type(name: "articles") { fields { name type { name } } } }', {
      token: READER_TOKEN,
    });
    const fields = (author['__type'] as { fields: { name: string; type: { name: string | null } }[] }).fields;
    expect(fields.find((f) => f.name === 'author')?.type.name).to.equal('Int');
    const res = await graphql(ctx(), '{ articles { body } }', { token: READER_TOKEN });
    expect(res.status).to.equal(400);
    const [error] = res.body.errors?.[0]?.extensions['errors'] as { message: string }[];
    expect(error?.message).to.match(/^Cannot query field "body" on type "articles"\./);
  });

  it('mutations and inputs follow its write rules', async () => {
    const data = await graphqlData(ctx(), '{ __schema { mutationType { fields { name } } } }', { token: READER_TOKEN });
    const mutations = (data['__schema'] as { mutationType: { fields: { name: string }[] } }).mutationType.fields.map(
      (f) => f.name,
    );
    expect(mutations).to.have.members(['create_comments_items', 'create_comments_item']);
    expect(await fieldsOf(ctx(), 'create_comments_input', READER_TOKEN)).to.have.members(['text', 'article']);
    expect(await fieldsOf(ctx(), 'update_comments_input', READER_TOKEN)).to.equal(null);
  });

  it('reads apply its row filter at every level', async () => {
    const data = await graphqlData(ctx(), '{ articles(sort: ["id"]) { id title comments(sort: ["id"]) { id } } }', {
      token: READER_TOKEN,
    });
    expect(data).to.deep.equal({
      articles: [
        { id: '1', title: 'Hello world', comments: [{ id: '1' }, { id: '2' }, { id: '3' }] },
        { id: '3', title: 'Quantum leap', comments: [{ id: '5' }] },
      ],
    });
    expect(await graphqlData(ctx(), '{ articles_by_id(id: 2) { id } }', { token: READER_TOKEN })).to.deep.equal({
      articles_by_id: null,
    });
  });

  it('the public role reads what its rows allow', async () => {
    expect(await graphqlData(ctx(), '{ countries(sort: ["code"]) { code } }', { token: null })).to.deep.equal({
      countries: [{ code: 'DE' }, { code: 'NL' }],
    });
    expect(await fieldsOf(ctx(), 'countries', null)).to.deep.equal(['code']);
    expect((await graphql(ctx(), '{ articles { id } }', { token: null })).status).to.equal(400);
  });
});
