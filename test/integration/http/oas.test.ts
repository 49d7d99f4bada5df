import { expect } from 'chai';
import { describeEachDatabase, TEST_ADMIN, type ServerContext } from '../../support/server.js';
import { servedRoutes, type ServedRoute } from '../../support/served-routes.js';
import { sqliteTarget } from '../../support/services.js';
import { createCaller, grant } from '../access/permission-helpers.js';
import { graphqlData } from '../graphql/graphql-client.js';
import { createQueryFixture } from '../query/fixture-schema.js';

type Json = Record<string, any>;

const FIXTURE_COLLECTIONS = [
  'countries',
  'authors',
  'articles',
  'comments',
  'categories',
  'articles_categories',
  'headings',
  'texts',
  'articles_sections',
  'site_settings',
];

async function specFor(ctx: ServerContext, token: string | null): Promise<Json> {
  const res = await ctx.api(
    '/server/specs/oas',
    token === null ? {} : { headers: { Authorization: `Bearer ${token}` } },
  );
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
      target =
        typeof target === 'object' && target !== null
          ? (target as Json)[part.replace(/~1/g, '/').replace(/~0/g, '~')]
          : undefined;
    }
    return target === undefined;
  });
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** `<method> <path>` of every operation, trailing slashes dropped (`/server/specs/graphql/`). */
function operationsOf(document: Json): string[] {
  return Object.entries(document['paths'] as Record<string, Json>).flatMap(([path, item]) =>
    Object.keys(item)
      .filter((m) => METHODS.includes(m))
      .map((m) => `${m} ${path.replace(/(.)\/$/, '$1')}`),
  );
}

/**
 * Served routes the document leaves out on purpose, and why. Everything else the app serves
 * must be documented, so a new route without an OpenAPI entry fails here.
 */
const NOT_DOCUMENTED: Readonly<Record<string, string>> = {
  'get /': 'ROOT_REDIRECT (the console by default): a redirect, not an API operation',
  'get /robots.txt': 'ROBOTS_TXT, for crawlers',
  'get /admin/{*path}': 'the web console (HTML, scripts, styles), not an API operation',
  // Items: a singleton (svc_settings) answers these with ROUTE_NOT_FOUND.
  'post /settings': 'singleton',
  'delete /settings': 'singleton',
  'patch /settings/{id}': 'singleton',
  'delete /settings/{id}': 'singleton',
};

/**
 * The operation a served route is documented as: `/items/{collection}` by every collection's
 * paths (checked on articles), `/items/svc_files` and `/items/directus_files` by /files
 * (`/items/svc_<x>` is the dedicated route); an item's history is one
 * fixed route with the readable collections as its `{collection}` values.
 */
function documentedAs(route: ServedRoute): string {
  const path = route.path
    .replace(/^\/items\/(svc|directus)_files(?=\/|$)/, '/files')
    .replace(/^\/items\/\{collection\}(?!\/\{id\}\/history$)/, '/items/articles');
  return `${route.method} ${path}`;
}

/** The served route an operation of the document stands for: the inverse of {@link documentedAs}. */
function servedAs(operation: string): { method: string; path: string } {
  const [method = '', path = ''] = operation.split(' ');
  return { method, path: path.replace(/^\/items\/[^/{]+/, '/items/{collection}') };
}

/** Paths whose `{name}` some operation does not declare as a path parameter (refs resolved). */
function undeclaredPathParameters(document: Json): string[] {
  const resolve = (parameter: Json): Json => {
    const ref = parameter['$ref'] as string | undefined;
    return ref === undefined
      ? parameter
      : (document['components'].parameters[ref.replace('#/components/parameters/', '')] as Json);
  };
  const problems: string[] = [];
  for (const [path, item] of Object.entries(document['paths'] as Record<string, Json>)) {
    const names = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
    for (const [method, operation] of Object.entries(item)) {
      const declared = ((operation['parameters'] ?? []) as Json[])
        .map(resolve)
        .filter((p) => p['in'] === 'path' && p['required'] === true)
        .map((p) => p['name']);
      if (!names.every((n) => declared.includes(n)) || declared.length !== names.length)
        problems.push(`${method} ${path}`);
    }
  }
  return problems;
}

/** What every document must be, whoever asks: refs resolve, path parameters declared, operation ids unique. */
function expectWellFormed(document: Json): void {
  expect(unresolvedRefs(document)).to.deep.equal([]);
  expect(undeclaredPathParameters(document)).to.deep.equal([]);
  const operations = Object.values(document['paths'] as Record<string, Json>).flatMap(
    (item) => Object.values(item) as Json[],
  );
  const ids = operations.map((o) => o['operationId']);
  expect(ids.length, 'operation ids are unique').to.equal(new Set(ids).size);
}

/** The collections a `{collection}` route lists for the caller; undefined when the route is absent. */
function collectionsOf(document: Json, method: string, path: string): string[] | undefined {
  const operation = document['paths'][path]?.[method] as Json | undefined;
  if (operation === undefined) return undefined;
  const parameter = (operation['parameters'] as Json[]).find((p) => p['name'] === 'collection');
  return parameter?.['schema'].enum as string[];
}

/** Routes only admins may call (admin auth routes, schema writes, cache clear). */
const ADMIN_ONLY = [
  'post /utils/cache/clear',
  'post /users/{id}/tfa/disable',
  'post /collections',
  'patch /collections',
  'patch /collections/{collection}',
  'delete /collections/{collection}',
  'post /fields/{collection}',
  'patch /fields/{collection}',
  'patch /fields/{collection}/{field}',
  'delete /fields/{collection}/{field}',
  'post /relations',
  'patch /relations/{collection}/{field}',
  'delete /relations/{collection}/{field}',
];

/** The collection each component schema documents. */
function documentedCollections(document: Json): string[] {
  return Object.values(document['components'].schemas as Record<string, Json>)
    .map((schema) => schema['x-collection'] as string | undefined)
    .filter((c): c is string => c !== undefined);
}

describeEachDatabase(
  'GET /server/specs/oas',
  (ctx) => {
    before(async () => {
      await createQueryFixture(ctx());
      await ctx().server.db('svc_settings').update({ project_name: 'OAS Project' });
      // comments gets a sort field: /utils/sort/{collection} has a collection to list.
      await ctx().server.db('svc_collections').insert({ collection: 'comments', sort_field: 'sort' });
      await ctx().server.schema.invalidate();
    });

    it('admin: a 3.0.1 document of every collection, every $ref resolving, the project and server named', async () => {
      const doc = await specFor(ctx(), TEST_ADMIN.token);
      expect(doc['openapi']).to.equal('3.0.1');
      expect(doc['info']).to.include({ title: 'OAS Project' });
      expect(doc['info'].version).to.be.a('string');
      expect(doc['servers']).to.deep.equal([{ url: 'http://cds.test', description: 'This server' }]);
      expect(unresolvedRefs(doc)).to.deep.equal([]);
      expect(documentedCollections(doc)).to.include.members([
        ...FIXTURE_COLLECTIONS,
        'svc_users',
        'svc_roles',
        'svc_files',
        'svc_activity',
        'svc_settings',
      ]);
      expect(doc['paths']['/items/articles']).to.have.keys('get', 'post', 'patch', 'delete');
      expect(doc['paths']['/items/articles/{id}']).to.have.keys('get', 'patch', 'delete');
      expect(doc['paths']['/items/articles/{id}'].delete.responses).to.have.keys('204', '400', '401', '403');
      expect(
        doc['paths']['/items/articles/{id}'].get.responses['200'].content['application/json'].schema,
      ).to.deep.equal({
        type: 'object',
        properties: { data: { $ref: '#/components/schemas/ItemsArticles' } },
      });
      expect(doc['paths']['/items/site_settings']).to.have.keys('get', 'patch');
      expect(
        doc['paths']['/items/site_settings/{id}'],
        'a singleton is read by key, never written by key',
      ).to.have.keys('get');
      expect(doc['paths']['/users']).to.have.keys('get', 'post', 'patch', 'delete');
      expect(doc['paths']['/activity']).to.have.keys('get');
      expect(doc['paths']).to.include.keys(
        '/users/me',
        '/users/invite',
        '/utils/cache/clear',
        '/auth/login',
        '/server/specs/oas',
      );
      const listParameters = doc['paths']['/items/articles'].get.parameters.map((p: Json) => p['$ref']);
      expect(listParameters).to.deep.equal(
        ['Fields', 'Filter', 'Sort', 'Limit', 'Offset', 'Page', 'Search', 'Meta'].map(
          (p) => `#/components/parameters/${p}`,
        ),
      );
    });

    it('admin: every route the app serves is documented, and every documented operation is served', async () => {
      const doc = await specFor(ctx(), TEST_ADMIN.token);
      expectWellFormed(doc);
      const served = servedRoutes(ctx().server.app);
      expect(served.length).to.be.greaterThan(100);
      const operations = new Set(operationsOf(doc));
      const paths = new Set(operationsOf(doc).map((o) => o.split(' ')[1]));
      const undocumented = served
        // OpenAPI 3.0 has no SEARCH operation: SEARCH routes sit beside their documented GET.
        .filter((r) => r.method !== 'search' && !Object.hasOwn(NOT_DOCUMENTED, `${r.method} ${r.path}`))
        // router.all (GraphQL, the reserved ids of system routes): some operation of that path.
        .filter((r) =>
          r.method === 'all' ? !paths.has(documentedAs(r).split(' ')[1] ?? '') : !operations.has(documentedAs(r)),
        )
        .map((r) => `${r.method} ${r.path}`);
      expect(undocumented).to.deep.equal([]);

      const servedKeys = new Set(served.map((r) => `${r.method} ${r.path}`));
      const unserved = [...operations].filter((o) => {
        const { method, path } = servedAs(o);
        return !servedKeys.has(`${method} ${path}`) && !servedKeys.has(`all ${path}`);
      });
      expect(unserved).to.deep.equal([]);
      expect(operations).to.include.members(ADMIN_ONLY);
    });

    it('fixed routes: path parameters, request bodies and answers as the routes take and give them', async () => {
      const doc = await specFor(ctx(), TEST_ADMIN.token);
      const paths = doc['paths'];
      expect(
        collectionsOf(doc, 'post', '/utils/sort/{collection}'),
        'admin: every collection with a sort field',
      ).to.deep.equal(['comments']);
      expect(collectionsOf(doc, 'post', '/utils/import/{collection}'))
        .to.include.members([...FIXTURE_COLLECTIONS, 'svc_users'])
        .and.not.include('svc_activity');
      expect(collectionsOf(doc, 'post', '/utils/export/{collection}')).to.include.members([
        ...FIXTURE_COLLECTIONS,
        'svc_activity',
      ]);
      expect(paths['/utils/sort/{collection}'].post.requestBody.content['application/json'].schema).to.deep.include({
        required: ['item', 'to'],
      });
      expect(paths['/utils/sort/{collection}'].post.responses).to.have.keys('200', '400', '401', '403');
      const importBody = paths['/utils/import/{collection}'].post.requestBody.content;
      expect(importBody).to.have.keys('multipart/form-data');
      expect(importBody['multipart/form-data'].schema).to.deep.equal({
        type: 'object',
        properties: { file: { type: 'string', format: 'binary' } },
        required: ['file'],
      });
      expect(importBody['multipart/form-data'].encoding.file.contentType).to.equal(
        'application/json, text/csv, application/vnd.ms-excel',
      );
      const exportBody = paths['/utils/export/{collection}'].post.requestBody.content['application/json'].schema;
      expect(exportBody.required).to.deep.equal(['format', 'query']);
      expect(exportBody.properties.format.enum).to.deep.equal(['csv', 'json', 'xml', 'yaml']);
      expect(paths['/utils/export/{collection}'].post.responses).to.have.keys('204', '400', '401', '403');
      expect(paths['/utils/revert/{revision}'].post.parameters).to.deep.equal([
        {
          name: 'revision',
          in: 'path',
          required: true,
          description: 'The svc_revisions row',
          schema: { type: 'integer' },
        },
      ]);
      expect(paths['/activity/comment'].post.requestBody.content['application/json'].schema.required).to.deep.equal([
        'collection',
        'item',
        'comment',
      ]);
      expect(paths['/activity/comment'].post.responses['200'].content['application/json'].schema).to.deep.equal({
        type: 'object',
        properties: { data: { $ref: '#/components/schemas/Activity' } },
      });
      expect(paths['/activity/comment/{id}']).to.have.keys('patch', 'delete');
      expect(paths['/assets/{id}'].get.responses).to.include.keys('200', '206', '416');
      expect(paths['/assets/{id}/{filename}'].get.parameters.map((p: Json) => p['name'])).to.include.members([
        'id',
        'filename',
        'download',
        'width',
      ]);
      expect(paths['/files/import'].post.requestBody.content['application/json'].schema.required).to.deep.equal([
        'url',
      ]);
      expect(paths['/files'].post.requestBody.content).to.have.keys('application/json', 'multipart/form-data');
      expect(paths['/files'].post.requestBody.content['multipart/form-data'].schema.required).to.deep.equal(['file']);
      expect(paths['/files/{id}'].patch.requestBody.content['multipart/form-data'].schema).to.not.have.key('required');
      expect(paths['/items/articles'].post.requestBody.content, 'uploads are svc_files only').to.have.keys(
        'application/json',
      );
      expect(paths['/auth'].get.responses['200'].content['application/json'].schema.properties).to.have.keys(
        'data',
        'disableDefault',
      );
      expect(
        paths['/auth/login'].post.requestBody.content['application/json'].schema.properties.mode.enum,
      ).to.deep.equal(['json', 'cookie', 'session']);
      expect(paths['/auth/login'].post.requestBody.required).to.equal(true);
      expect(paths['/auth/refresh'].post.requestBody.required, 'the refresh token may be a cookie').to.equal(false);
      expect(paths['/graphql']).to.have.keys('get', 'post');
      expect(paths['/graphql'].post.requestBody.content).to.have.keys('application/json', 'application/graphql');
      expect(paths['/fields/{collection}/{field}'].patch.parameters.map((p: Json) => p['name'])).to.deep.equal([
        'collection',
        'field',
        'allow_destructive',
      ]);
    });

    it('public and a limited role: no admin-only route; collection routes list what their permissions allow', async () => {
      const publicDoc = await specFor(ctx(), null);
      expectWellFormed(publicDoc);
      expect(operationsOf(publicDoc)).to.not.include.any.members(ADMIN_ONLY);
      expect(publicDoc['paths']).to.include.keys('/collections', '/fields', '/relations', '/graphql', '/auth');
      expect(publicDoc['paths'], 'public reads no collection').to.not.have.any.keys(
        '/utils/sort/{collection}',
        '/utils/import/{collection}',
        '/utils/export/{collection}',
        '/utils/revert/{revision}',
        '/fields/{collection}',
        '/assets/{id}',
        '/activity/comment',
        '/files/import',
      );

      const caller = await createCaller(ctx().server.db);
      await grant(ctx(), caller.role, [
        { collection: 'comments', action: 'read' },
        { collection: 'comments', action: 'create' },
        { collection: 'comments', action: 'update', fields: ['text', 'sort'] },
        { collection: 'articles', action: 'read', fields: ['id', 'title'] },
        { collection: 'articles', action: 'update', fields: ['title'] },
        { collection: 'categories', action: 'create' },
        { collection: 'svc_revisions', action: 'read' },
        { collection: 'svc_files', action: 'read' },
      ]);
      const doc = await specFor(ctx(), caller.token);
      expectWellFormed(doc);
      expect(operationsOf(doc)).to.not.include.any.members(ADMIN_ONLY);
      expect(collectionsOf(doc, 'post', '/utils/sort/{collection}')).to.deep.equal(['comments']);
      expect(collectionsOf(doc, 'post', '/utils/import/{collection}'), 'create and update').to.deep.equal(['comments']);
      expect(collectionsOf(doc, 'post', '/utils/export/{collection}')).to.deep.equal([
        'articles',
        'comments',
        'svc_files',
        'svc_revisions',
      ]);
      expect(collectionsOf(doc, 'get', '/fields/{collection}')).to.deep.equal([
        'articles',
        'comments',
        'svc_files',
        'svc_revisions',
      ]);
      expect(collectionsOf(doc, 'get', '/collections/{collection}')).to.deep.equal([
        'articles',
        'comments',
        'svc_files',
        'svc_revisions',
      ]);
      expect(doc['paths']).to.include.keys(
        '/utils/revert/{revision}',
        '/assets/{id}',
        '/assets/{id}/{filename}',
        '/users/me',
      );
      expect(doc['paths'], 'no create on svc_files, svc_activity or svc_comments').to.not.have.any.keys(
        '/files/import',
        '/activity/comment',
      );
    });

    it('without sort permission on the sort field, no manual sort', async () => {
      const caller = await createCaller(ctx().server.db);
      await grant(ctx(), caller.role, [
        { collection: 'comments', action: 'read' },
        { collection: 'comments', action: 'update', fields: ['text'] },
      ]);
      const doc = await specFor(ctx(), caller.token);
      expect(doc['paths']).to.not.have.any.keys(
        '/utils/sort/{collection}',
        '/utils/revert/{revision}',
        '/utils/import/{collection}',
      );
      expect(collectionsOf(doc, 'post', '/utils/export/{collection}')).to.deep.equal(['comments']);
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
      expect(properties['author']).to.deep.equal({
        nullable: true,
        oneOf: [{ type: 'integer' }, { $ref: '#/components/schemas/ItemsAuthors' }],
      });
      expect(properties['comments']).to.deep.equal({
        type: 'array',
        nullable: true,
        items: { oneOf: [{ type: 'integer' }, { $ref: '#/components/schemas/ItemsComments' }] },
      });
      const item = doc['components'].schemas['ItemsArticlesSections'].properties['item'];
      expect(item.oneOf).to.deep.equal([
        { type: 'string' },
        { $ref: '#/components/schemas/ItemsHeadings' },
        { $ref: '#/components/schemas/ItemsTexts' },
      ]);
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
        expect(properties['author'], 'authors is not readable: the key').to.deep.equal({
          type: 'integer',
          nullable: true,
        });
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
      expect(properties['article'], 'articles is not readable: the key').to.deep.equal({
        type: 'integer',
        nullable: true,
      });
    });

    it('GraphQL server_specs_oas answers the same document', async () => {
      const data = await graphqlData(ctx(), '{ server_specs_oas }', { scope: 'system' });
      expect(data['server_specs_oas']).to.deep.equal(await specFor(ctx(), TEST_ADMIN.token));
      const publicData = await graphqlData(ctx(), '{ server_specs_oas }', { scope: 'system', token: null });
      expect(publicData['server_specs_oas']).to.deep.equal(await specFor(ctx(), null));
    });
  },
  { env: { PUBLIC_URL: 'http://cds.test' } },
);

describeEachDatabase(
  'GET /server/specs/oas with AUTH_DISABLE_DEFAULT',
  (ctx) => {
    it('documents no e-mail/password login, as none is served', async () => {
      const doc = await specFor(ctx(), null);
      expect(doc['paths']['/auth/login']).to.equal(undefined);
      expect(servedRoutes(ctx().server.app).map((r) => `${r.method} ${r.path}`)).to.not.include('post /auth/login');
      expect(doc['paths']).to.include.keys('/auth', '/auth/refresh');
    });
  },
  { targets: [sqliteTarget], env: { AUTH_DISABLE_DEFAULT: 'true' } },
);
