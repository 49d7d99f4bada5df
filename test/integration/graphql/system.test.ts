import { expect } from 'chai';
import { describeEachDatabase, TEST_ADMIN } from '../../support/server.js';
import { createCommandSchema } from '../commands/schema.js';
import { graphql, graphqlData } from './graphql-client.js';

type Row = Record<string, unknown>;
const system = { scope: 'system' } as const;

describeEachDatabase('graphql: system scope', (ctx) => {
  const db = () => ctx().server.db;

  before(async () => {
    await createCommandSchema(ctx());
  });

  describe('the current user and the server', () => {
    it('users_me reads the caller; update_users_me writes it', async () => {
      expect(await graphqlData(ctx(), '{ users_me { email role { name } } }', system)).to.deep.equal({
        users_me: { email: TEST_ADMIN.email, role: { name: 'Administrator' } },
      });
      const updated = await graphqlData(
        ctx(),
        'mutation { update_users_me(data: { first_name: "Ada" }) { first_name email } }',
        system,
      );
      expect(updated).to.deep.equal({ update_users_me: { first_name: 'Ada', email: TEST_ADMIN.email } });
      expect(await db()('svc_users').where({ email: TEST_ADMIN.email }).first('first_name')).to.deep.equal({
        first_name: 'Ada',
      });
    });

    it('server_info, server_ping and server_health answer as their REST routes', async () => {
      const data = await graphqlData(
        ctx(),
        '{ server_info { project { project_name public_registration } rateLimit rateLimitGlobal websocket queryLimit { default max } exports { retention } } server_ping server_health }',
        system,
      );
      expect(data['server_info']).to.deep.equal({
        project: { project_name: 'Content Data Service', public_registration: false },
        rateLimit: false,
        rateLimitGlobal: false,
        websocket: false,
        queryLimit: { default: 100, max: -1 },
        exports: { retention: '7d' },
      });
      expect(data['server_ping']).to.equal('pong');
      expect(data['server_health']).to.include({ status: 'ok' });
      expect(data['server_health']).to.have.property('checks');
    });

    it('update_settings refuses an export_retention that is no retention as PATCH /settings does', async () => {
      const write = (value: string) =>
        graphql(
          ctx(),
          `mutation { update_settings(data: { export_retention: ${JSON.stringify(value)} }) { export_retention } }`,
          system,
        );
      const bad = await write('a week');
      expect(bad.body.errors?.map((e) => [e.extensions['code'], e.extensions['field']])).to.deep.equal([
        ['FAILED_VALIDATION', 'export_retention'],
      ]);
      const good = await write('30d');
      expect(good.body).to.deep.equal({ data: { update_settings: { export_retention: '30d' } } });
      await graphqlData(ctx(), 'mutation { update_settings(data: { export_retention: null }) { id } }', system);
    });

    it('without a token: the server fields work, the user fields do not exist', async () => {
      const data = await graphqlData(
        ctx(),
        '{ server_ping server_info { project { public_registration } queryLimit { max } } }',
        {
          ...system,
          token: null,
        },
      );
      expect(data).to.deep.equal({
        server_ping: 'pong',
        server_info: { project: { public_registration: false }, queryLimit: null },
      });
      const me = await graphql(ctx(), '{ users_me { email } }', { ...system, token: null });
      expect(me.status).to.equal(400);
    });

    it("server_specs_graphql prints the caller's schema of a scope; so does GET /server/specs/graphql", async () => {
      const data = await graphqlData(
        ctx(),
        '{ items: server_specs_graphql sys: server_specs_graphql(scope: system) }',
        system,
      );
      expect(data['items'])
        .to.be.a('string')
        .and.match(/articles_by_id\(id: ID!, as_of: String, version: String\): articles/);
      expect(data['sys'])
        .to.be.a('string')
        .and.match(/users_me: svc_users/);
      const res = await ctx().api('/server/specs/graphql/', {
        headers: { Authorization: `Bearer ${TEST_ADMIN.token}` },
      });
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^text\/plain/);
      expect(await res.text()).to.equal(data['items']);
    });
  });

  describe('utilities', () => {
    it('random strings, hashes and their verification', async () => {
      const data = await graphqlData(
        ctx(),
        'mutation { r: utils_random_string(length: 12) d: utils_random_string h: utils_hash_generate(string: "secret") }',
        system,
      );
      expect(data['r']).to.match(/^[A-Za-z0-9_-]{12}$/);
      expect(data['d']).to.match(/^[A-Za-z0-9_-]{32}$/);
      expect(data['h']).to.match(/^\$argon2id\$v=19\$/);
      const verify = await graphqlData(
        ctx(),
        'mutation V($h: String!) { yes: utils_hash_verify(string: "secret", hash: $h) no: utils_hash_verify(string: "other", hash: $h) }',
        { ...system, variables: { h: data['h'] } },
      );
      expect(verify).to.deep.equal({ yes: true, no: false });
      const bad = await graphql(
        ctx(),
        'mutation { utils_random_string(length: 501) utils_hash_generate(string: "") }',
        system,
      );
      expect(bad.body.errors?.map((e) => [e.path?.[0], e.extensions['code']])).to.deep.equal([
        ['utils_random_string', 'INVALID_PAYLOAD'],
        ['utils_hash_generate', 'INVALID_PAYLOAD'],
      ]);
    });

    it('utils_sort moves an item; utils_revert applies a revision', async () => {
      await db()('steps').insert([{ name: 'a' }, { name: 'b' }, { name: 'c' }]);
      const ids = (await db()('steps').orderBy('id').select('id')).map((r: Row) => String(r['id']));
      const [first, , third] = ids;
      expect(
        await graphqlData(
          ctx(),
          `mutation { utils_sort(collection: "steps", item: "${first}", to: "${third}") }`,
          system,
        ),
      ).to.deep.equal({
        utils_sort: true,
      });
      const order = (await db()('steps').orderBy('sort').select('name')).map((r: Row) => r['name']);
      expect(order).to.deep.equal(['b', 'c', 'a']);

      const created = await graphqlData(ctx(), 'mutation { create_authors_item(data: { name: "Original" }) { id } }');
      const author = (created['create_authors_item'] as { id: string }).id;
      await graphqlData(ctx(), `mutation { update_authors_item(id: ${author}, data: { name: "Changed" }) { id } }`);
      const revision = (await db()('svc_revisions')
        .where({ collection: 'authors', item: author })
        .orderBy('id')
        .first('id')) as Row;
      expect(
        await graphqlData(ctx(), `mutation { utils_revert(revision: "${String(revision['id'])}") }`, system),
      ).to.deep.equal({ utils_revert: true });
      expect(await db()('authors').where({ id: author }).first('name')).to.deep.equal({ name: 'Original' });
    });

    it('utils_cache_clear is for admins: others do not have it', async () => {
      expect(await graphqlData(ctx(), 'mutation { utils_cache_clear }', system)).to.deep.equal({
        utils_cache_clear: null,
      });
      const publicRes = await graphql(ctx(), 'mutation { utils_cache_clear }', { ...system, token: null });
      expect(publicRes.status).to.equal(400);
    });
  });

  describe('schema', () => {
    it('collections, fields and relations read as the schema routes show them', async () => {
      const data = await graphqlData(
        ctx(),
        `{
          collections_by_name(name: "home") { collection meta { singleton } schema { name } }
          fields_by_name(collection: "articles", field: "title") { collection field type schema { max_length is_nullable } }
          fields_in_collection(collection: "comments") { field }
          relations_by_name(collection: "comments", field: "article") { related_collection meta { one_field } schema { foreign_key_column } }
          collections { collection }
          relations { field }
        }`,
        system,
      );
      expect(data['collections_by_name']).to.deep.equal({
        collection: 'home',
        meta: { singleton: true },
        schema: { name: 'home' },
      });
      expect(data['fields_by_name']).to.deep.equal({
        collection: 'articles',
        field: 'title',
        type: 'string',
        schema: { max_length: 20, is_nullable: false },
      });
      expect(data['fields_in_collection']).to.have.deep.members([
        { field: 'id' },
        { field: 'text' },
        { field: 'article' },
        { field: 'author' },
      ]);
      expect(data['relations_by_name']).to.deep.equal({
        related_collection: 'articles',
        meta: { one_field: 'comments' },
        schema: { foreign_key_column: 'id' },
      });
      expect((data['collections'] as Row[]).map((c) => c['collection'])).to.include.members([
        'articles',
        'home',
        'svc_users',
      ]);
      expect((data['relations'] as Row[]).length).to.be.greaterThan(5);
      const unknown = await graphql(ctx(), '{ collections_by_name(name: "nope") { collection } }', system);
      expect(unknown.body.errors?.[0]?.extensions['code']).to.equal('FORBIDDEN');
    });

    it('schema mutations change the schema; the items scope serves the change', async () => {
      const key = '{ field: "id", type: "integer", schema: { is_primary_key: true, has_auto_increment: true } }';
      const created = await graphqlData(
        ctx(),
        `mutation {
          owners: create_collections_item(data: { collection: "gql_owners", schema: {}, fields: [${key}, { field: "name", type: "string" }] }) {
            collection schema { name }
          }
          things: create_collections_item(data: { collection: "gql_things", schema: {}, fields: [${key}] }) { collection }
        }`,
        system,
      );
      expect(created).to.deep.equal({
        owners: { collection: 'gql_owners', schema: { name: 'gql_owners' } },
        things: { collection: 'gql_things' },
      });
      const field = await graphqlData(
        ctx(),
        'mutation { create_fields_item(collection: "gql_things", data: { field: "owner", type: "integer" }) { field type } }',
        system,
      );
      expect(field).to.deep.equal({ create_fields_item: { field: 'owner', type: 'integer' } });
      const relation = await graphqlData(
        ctx(),
        'mutation { create_relations_item(data: { collection: "gql_things", field: "owner", related_collection: "gql_owners" }) { collection field related_collection } }',
        system,
      );
      expect(relation).to.deep.equal({
        create_relations_item: { collection: 'gql_things', field: 'owner', related_collection: 'gql_owners' },
      });
      const note = await graphqlData(
        ctx(),
        'mutation { update_fields_item(collection: "gql_owners", field: "name", data: { meta: { note: "The name" } }) { meta { note } } }',
        system,
      );
      expect(note).to.deep.equal({ update_fields_item: { meta: { note: 'The name' } } });

      const owner = await graphqlData(ctx(), 'mutation { create_gql_owners_item(data: { name: "Owner" }) { id } }');
      const ownerId = (owner['create_gql_owners_item'] as { id: string }).id;
      const thing = await graphqlData(
        ctx(),
        `mutation { create_gql_things_item(data: { owner: { id: "${ownerId}" } }) { owner { name } } }`,
      );
      expect(thing).to.deep.equal({ create_gql_things_item: { owner: { name: 'Owner' } } });

      expect(
        await graphqlData(
          ctx(),
          'mutation { delete_relations_item(collection: "gql_things", field: "owner") { field } }',
          system,
        ),
      ).to.deep.equal({
        delete_relations_item: { field: 'owner' },
      });
      expect(
        await graphqlData(
          ctx(),
          'mutation { delete_collections_item(collection: "gql_things") { collection } }',
          system,
        ),
      ).to.deep.equal({
        delete_collections_item: { collection: 'gql_things' },
      });
      expect((await graphql(ctx(), '{ gql_things { id } }')).status).to.equal(400);
    });

    it('update_fields_item takes allow_destructive for a type change that rewrites stored values', async () => {
      const key = '{ field: "id", type: "integer", schema: { is_primary_key: true, has_auto_increment: true } }';
      await graphqlData(
        ctx(),
        `mutation { create_collections_item(data: { collection: "gql_measures", schema: {}, fields: [${key}, { field: "ratio", type: "float" }] }) { collection } }`,
        system,
      );
      await graphqlData(ctx(), 'mutation { create_gql_measures_item(data: { ratio: 0.5 }) { id } }');
      const toInteger = (allow: string) =>
        `mutation { update_fields_item(collection: "gql_measures", field: "ratio", data: { type: "integer" }${allow}) { type } }`;
      const refused = await graphql(ctx(), toInteger(''), system);
      expect(refused.body.errors?.[0]?.message).to.match(/0\.5 would become/);
      expect(await graphqlData(ctx(), toInteger(', allow_destructive: true'), system)).to.deep.equal({
        update_fields_item: { type: 'integer' },
      });
    });
  });
});
