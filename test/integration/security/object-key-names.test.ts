import { expect } from 'chai';
import { createLogger } from '../../../src/logger/index.js';
import { startServer } from '../../../src/server.js';
import { describeEachDatabase, TEST_ADMIN, testConfig, type ServerContext } from '../../support/server.js';
import { expectError, expectOk, schemaApi } from '../catalog/schema-api.js';
import { TEST_REDIS_URL } from '../../support/services.js';
import { dumpTables } from './helpers.js';

/*
 * Collection and field names become object keys all through a request. A collection named
 * `constructor`, `toString` or `__proto__` once answered its create with 500 yet stayed, and
 * from then on every request needing the schema (anonymous ones too) was a 500 and the service
 * no longer started; a field `__proto__` stored null. The API refuses such names (400
 * INVALID_PAYLOAD naming the rule, nothing created), and a table given such a name outside the
 * service is served like any other, also when the schema overview is read back from Redis.
 * (A column named `__proto__` made outside stays out of reach: mysql2 refuses to read one and
 * knex's update() drops the key; the API never makes one.)
 */

const RESERVED = ['__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty'];
const CATALOGUE: readonly (readonly [string, string])[] = [
  ['svc_collections', 'collection'],
  ['svc_fields', 'id'],
  ['svc_relations', 'id'],
];

const reserved = /is reserved: "prototype" and the names of Object\.prototype's members/;

async function tableNames(ctx: ServerContext): Promise<string[]> {
  const { db } = ctx.server;
  const names = await Promise.all(RESERVED.map(async (name) => ((await db.schema.hasTable(name)) ? name : null)));
  return names.filter((name): name is string => name !== null);
}

/** The requests any caller makes, each needing the schema: none may be a 500. */
async function expectServing(ctx: ServerContext, api: ReturnType<typeof schemaApi>): Promise<void> {
  expect(expectOk(await api('GET', '/items/plain'))).to.be.an('array');
  expectError(await api('GET', '/items/plain', undefined, null), 403, 'FORBIDDEN');
  expect(expectOk(await api('GET', '/collections')).map((c: { collection: string }) => c.collection)).to.include(
    'plain',
  );
  expect((await ctx.api('/server/ping')).status).to.equal(200);
}

describeEachDatabase(
  'security: collection and field names that are Object.prototype members',
  (ctx) => {
    const api = schemaApi(ctx);

    before(async () => {
      expectOk(
        await api('POST', '/collections', {
          collection: 'plain',
          schema: {},
          fields: [{ field: 'title', type: 'string' }],
        }),
      );
    });

    it('POST /collections refuses them as collection names: 400, no table, no catalogue row', async () => {
      const before = await dumpTables(ctx().server.db, CATALOGUE);
      for (const name of RESERVED) {
        const answer = await api('POST', '/collections', { collection: name, schema: {}, fields: [] });
        expectError(answer, 400, 'INVALID_PAYLOAD', reserved);
        expect(answer.body.errors[0].message).to.contain(`Collection name "${name}"`);
      }
      expect(await dumpTables(ctx().server.db, CATALOGUE)).to.deep.equal(before);
      expect(await tableNames(ctx())).to.deep.equal([]);
      await expectServing(ctx(), api);
    });

    it('POST /collections and POST /fields refuse them as field names: 400, no column', async () => {
      const before = await dumpTables(ctx().server.db, CATALOGUE);
      for (const name of RESERVED) {
        expectError(
          await api('POST', '/collections', {
            collection: 'holder',
            schema: {},
            fields: [{ field: name, type: 'string' }],
          }),
          400,
          'INVALID_PAYLOAD',
          reserved,
        );
        expectError(
          await api('POST', '/fields/plain', { field: name, type: 'string' }),
          400,
          'INVALID_PAYLOAD',
          reserved,
        );
      }
      expect(await dumpTables(ctx().server.db, CATALOGUE)).to.deep.equal(before);
      expect(await ctx().server.db.schema.hasTable('holder')).to.equal(false);
      const columns = Object.keys(await ctx().server.db('plain').columnInfo());
      expect(columns.sort()).to.deep.equal(['id', 'title']);
      await expectServing(ctx(), api);
    });

    it('a schema snapshot with such a collection or field is refused and changes nothing', async () => {
      const snapshot = expectOk(await api('GET', '/schema/snapshot'));
      const id = snapshot.fields.find(
        (f: { collection: string; field: string }) => f.collection === 'plain' && f.field === 'id',
      );
      const before = await dumpTables(ctx().server.db, CATALOGUE);
      for (const name of ['constructor', '__proto__', 'toString']) {
        const withCollection = structuredClone(snapshot);
        withCollection.collections.push({ collection: name, meta: null, schema: { name } });
        withCollection.fields.push({ ...id, collection: name });
        const asCollection = await api('POST', '/schema/diff', withCollection);
        if (asCollection.status === 200) {
          expectError(await api('POST', '/schema/apply', asCollection.body.data), 400, 'INVALID_PAYLOAD', reserved);
        } else expectError(asCollection, 400, 'INVALID_PAYLOAD', reserved);

        const withField = structuredClone(snapshot);
        withField.fields.push({
          ...id,
          collection: 'plain',
          field: name,
          schema: { ...id.schema, is_primary_key: false },
        });
        const asField = await api('POST', '/schema/diff', withField);
        if (asField.status === 200) {
          expectError(await api('POST', '/schema/apply', asField.body.data), 400, 'INVALID_PAYLOAD', reserved);
        } else expectError(asField, 400, 'INVALID_PAYLOAD', reserved);
      }
      expect(await dumpTables(ctx().server.db, CATALOGUE)).to.deep.equal(before);
      expect(await tableNames(ctx())).to.deep.equal([]);
      await expectServing(ctx(), api);
    });

    it('tables with such names made outside the service are served, and the service starts again', async () => {
      const { db } = ctx().server;
      for (const name of ['constructor', 'toString', '__proto__']) {
        await db.schema.createTable(name, (t) => {
          t.increments('id');
          t.string('constructor');
          t.string('valueOf');
          t.string('title');
        });
      }
      expectOk(await api('POST', '/utils/cache/clear?system'));
      await expectServing(ctx(), api);
      for (const name of ['constructor', 'toString', '__proto__']) {
        const fields = expectOk(await api('GET', `/fields/${name}`)) as { field: string }[];
        expect(fields.map((f) => f.field).sort()).to.deep.equal(['constructor', 'id', 'title', 'valueOf']);
        const values = { title: 't', constructor: 'c', valueOf: 'v' };
        const created = expectOk(await api('POST', `/items/${name}`, values));
        expect(created).to.deep.equal({ ...values, id: created.id });
        const read = expectOk(
          await api('GET', `/items/${name}?filter[constructor][_eq]=c&fields=id,constructor,valueOf`),
        );
        expect(read).to.deep.equal(
          [{ ...values, id: created.id, title: undefined }].map(({ title: _, ...rest }) => rest),
        );
        expectError(await api('GET', `/items/${name}`, undefined, null), 403, 'FORBIDDEN');
      }
      // A collection that is not one still reads as missing, whatever Object.prototype holds.
      expectError(await api('GET', '/items/hasOwnProperty'), 403, 'FORBIDDEN');

      const second = await startServer(testConfig(ctx().database, ctx().env), {
        logger: createLogger({ logLevel: 'silent', logStyle: 'raw' }),
      });
      try {
        const headers = { Authorization: `Bearer ${TEST_ADMIN.token}` };
        expect((await fetch(`${second.url}/items/plain`, { headers })).status).to.equal(200);
        expect((await fetch(`${second.url}/items/constructor`, { headers })).status).to.equal(200);
        expect((await fetch(`${second.url}/items/plain`)).status).to.equal(403);
      } finally {
        await second.close();
      }
    });
  },
  { env: { REDIS: TEST_REDIS_URL } },
);
