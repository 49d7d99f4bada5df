import { expect } from 'chai';
import { describeEachDatabase, TEST_ADMIN, type ServerContext } from '../../support/server.js';
import { createCaller, grant } from '../access/permission-helpers.js';
import { graphqlData } from '../graphql/graphql-client.js';
import { createQueryFixture } from '../query/fixture-schema.js';

type Json = Record<string, any>;

const FIXTURE_COLLECTIONS = ['countries', 'authors', 'articles', 'comments', 'categories', 'articles_categories', 'headings', 'texts', 'articles_sections', 'site_settings'];

async function specFor(ctx: ServerContext, token: string | null): Promise<Json> {
  const res = await ctx.api('/server/specs/oas', token === null ? {} : { headers: { Authorization: `Bearer ${token}` } });
  expect(res.status).to.equal(200);
  expect(res.headers.get('content-type')).to.match(/^application\/json/);
  return (await res.json()) as Json;
}

/** Every `$ref` of the document, with whether it points at something inside the document. */
function unresolvedRefs(document: Json): string[] {
  const refs: string[] = [];
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (typeof value === 'object' && value !== null) {
      for (const [key, child] of Object.entries(value)) {
        if (key === '$ref' && typeof child === 'string') refs.push(child);
        else walk(child);
      }
    }
  };
  walk(document);
  expect(refs.length).to.be.greaterThan(0);
  return refs.filter((ref) => {
    if (!ref.startsWith('#/')) return true;
    let target: unknown = document;
    for (const part of ref.slice(2).split('/')) {
      target = typeof target === 'object' && target !== null ? (target as Json)[part.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
    }
    return target === undefined;
  });
}

/** The collection each component schema documents. */
function documentedCollections(document: Json): string[] {
  return Object.values(document['components'].schemas as Record<string, Json>)
    .map((schema) => schema['x-collection'] as string | undefined)
    .filter((c): c is string => c !== undefined);
}

describeEachDatabase('GET /server/specs/oas', (ctx) => {
  before(async () => {
    await createQueryFixture(ctx());
    await ctx().server.db('svc_settings').update({ project_name: 'OAS Project' });
  });

  it('admin: a 3.0.1 document of every collection, every $ref resolving, the project and server named', async () => {
    const doc = await specFor(ctx(), TEST_ADMIN.token);
    expect(doc['openapi']).to.equal('3.0.1');
    expect(doc['info']).to.include({ title: 'OAS Project' });
    expect(doc['info'].version).to.be.a('string');
    expect(doc['servers']).to.deep.equal([{ url: 'http://cds.test', description: 'This server' }]);
    expect(unresolvedRefs(doc)).to.deep.equal([]);
    expect(documentedCollections(doc)).to.include.members([...FIXTURE_COLLECTIONS, 'svc_users', 'svc_roles', 'svc_files', 'svc_activity', 'svc_settings']);
    expect(doc['paths']['/items/articles']).to.have.keys('get', 'post', 'patch', 'delete');
    expect(doc['paths']['/items/articles/{id}']).to.have.keys('get', 'patch', 'delete');
    expect(doc['paths']['/items/articles/{id}'].delete.responses).to.have.keys('204', '400', '401', '403');
    expect(doc['paths']['/items/articles/{id}'].get.responses['200'].content['application/json'].schema).to.deep.equal({
      type: 'object',
      properties: { data: { $ref: '#/components/schemas/ItemsArticles' } },
    });
    expect(doc['paths']['/items/site_settings']).to.have.keys('get', 'patch');
    expect(doc['paths']['/items/site_settings/{id}']).to.equal(undefined);
    expect(doc['paths']['/users']).to.have.keys('get', 'post', 'patch', 'delete');
    expect(doc['paths']['/activity']).to.have.keys('get');
    expect(doc['paths']).to.include.keys('/users/me', '/users/invite', '/utils/cache/clear', '/auth/login', '/server/specs/oas');
    const listParameters = doc['paths']['/items/articles'].get.parameters.map((p: Json) => p['$ref']);
    expect(listParameters).to.deep.equal(['Fields', 'Filter', 'Sort', 'Limit', 'Offset', 'Page', 'Search', 'Meta'].map((p) => `#/components/parameters/${p}`));
  });

  it('field types, nullability and relations as key-or-object', async () => {
    const doc = await specFor(ctx(), TEST_ADMIN.token);
    const { properties } = doc['components'].schemas['ItemsArticles'];
    expect(properties['id']).to.deep.equal({ type: 'integer' });
    expect(properties['title']).to.deep.equal({ type: 'string', nullable: true });
    expect(properties['views']).to.deep.equal({ type: 'integer', nullable: true });
    expect(properties['rating']).to.deep.equal({ type: 'number', nullable: true });
    expect(properties['big']).to.deep.equal({ type: 'integer', format: 'int64', nullable: true });
    expect(properties['featured']).to.deep.equal({ type: 'boolean', nullable: true });
    expect(properties['published_on']).to.deep.equal({ type: 'string', format: 'date', nullable: true });
    expect(properties['tags']).to.deep.equal({ type: 'array', items: { type: 'string' }, nullable: true });
    expect(properties['author']).to.deep.equal({ nullable: true, oneOf: [{ type: 'integer' }, { $ref: '#/components/schemas/ItemsAuthors' }] });
    expect(properties['comments']).to.deep.equal({
      type: 'array',
      nullable: true,
      items: { oneOf: [{ type: 'integer' }, { $ref: '#/components/schemas/ItemsComments' }] },
    });
    const item = doc['components'].schemas['ItemsArticlesSections'].properties['item'];
    expect(item.oneOf).to.deep.equal([{ type: 'string' }, { $ref: '#/components/schemas/ItemsHeadings' }, { $ref: '#/components/schemas/ItemsTexts' }]);
    expect(doc['components'].schemas['Users'].properties).to.include.keys('id', 'email', 'role');
  });

  it('public: only what public permissions allow; forbidden collections and fields are absent', async () => {
    const before = await specFor(ctx(), null);
    expect(documentedCollections(before)).to.deep.equal([]);
    expect(Object.keys(before['paths']).filter((p) => p.startsWith('/items'))).to.deep.equal([]);
    expect(before['paths']).to.include.keys('/auth/login', '/users/register', '/users/invite/accept', '/server/info');
    expect(before['paths']).to.not.have.any.keys('/users/me', '/users/invite', '/utils/cache/clear', '/users');
    await grant(ctx(), null, [{ collection: 'articles', action: 'read', fields: ['id', 'title', 'author'] }]);
    try {
      const doc = await specFor(ctx(), null);
      expect(unresolvedRefs(doc)).to.deep.equal([]);
      expect(documentedCollections(doc)).to.deep.equal(['articles']);
      const { properties } = doc['components'].schemas['ItemsArticles'];
      expect(Object.keys(properties)).to.have.members(['id', 'title', 'author']);
      expect(properties['author'], 'authors is not readable: the key').to.deep.equal({ type: 'integer', nullable: true });
      expect(doc['paths']['/items/articles']).to.have.keys('get');
      expect(doc['paths']['/items/articles/{id}']).to.have.keys('get');
      expect(doc['paths']).to.not.have.any.keys('/items/authors', '/items/comments');
    } finally {
      await ctx().server.db('svc_permissions').whereNull('role').delete();
      await ctx().server.schema.invalidate();
    }
  });

  it("a role's writes and user routes follow its permissions", async () => {
    const caller = await createCaller(ctx().server.db);
    await grant(ctx(), caller.role, [
      { collection: 'comments', action: 'read' },
      { collection: 'comments', action: 'create', fields: ['comment'] },
      { collection: 'svc_users', action: 'create', fields: ['email', 'role', 'status'] },
    ]);
    const doc = await specFor(ctx(), caller.token);
    expect(unresolvedRefs(doc)).to.deep.equal([]);
    expect(documentedCollections(doc)).to.deep.equal(['comments']);
    expect(doc['paths']['/items/comments']).to.have.keys('get', 'post');
    expect(doc['paths']['/items/comments/{id}']).to.have.keys('get');
    expect(doc['paths']).to.include.keys('/users/me', '/users/invite');
    expect(doc['paths']).to.not.have.any.keys('/utils/cache/clear', '/users');
    const { properties } = doc['components'].schemas['ItemsComments'];
    expect(properties['article'], 'articles is not readable: the key').to.deep.equal({ type: 'integer', nullable: true });
  });

  it('GraphQL server_specs_oas answers the same document', async () => {
    const data = await graphqlData(ctx(), '{ server_specs_oas }', { scope: 'system' });
    expect(data['server_specs_oas']).to.deep.equal(await specFor(ctx(), TEST_ADMIN.token));
    const publicData = await graphqlData(ctx(), '{ server_specs_oas }', { scope: 'system', token: null });
    expect(publicData['server_specs_oas']).to.deep.equal(await specFor(ctx(), null));
  });
}, { env: { PUBLIC_URL: 'http://cds.test' } });
