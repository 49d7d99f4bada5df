import { expect } from 'chai';
import { describeEachDatabase, TEST_ADMIN } from '../../support/server.js';
import { expectError, expectOk, schemaApi, type ApiResult } from '../catalog/schema-api.js';
import { sendForm } from '../files/helpers.js';
import { dumpTables } from './helpers.js';

/*
 * Documents nesting deeper than 100 levels are refused before they are parsed, at every door
 * a request's document comes through: JSON bodies, snapshot files (YAML), query-string JSON
 * (`filter=`, `deep=`) and brackets (qs), GraphQL documents, CSV and JSON imports. A snapshot of
 * `'['.repeat(100000)` sent twice to /schema/diff once ran the process out of memory. Each
 * refusal is a 400 naming the depth, changes nothing, and the service answers afterwards.
 */

const DEEP = 100_000;
const deepArray = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
const deepObject = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);
const tooDeep = /nests deeper than (100|64) levels/;

const WATCHED: readonly (readonly [string, string])[] = [
  ['holder', 'id'],
  ['svc_collections', 'collection'],
  ['svc_fields', 'id'],
  ['svc_activity', 'id'],
];

describeEachDatabase('security: deeply nested documents are refused before parsing', (ctx) => {
  const api = schemaApi(ctx);
  let untouched: unknown;

  /** The raw request as the admin: the bodies here are not JSON.stringify's. */
  async function raw(method: string, path: string, body?: string, type = 'application/json'): Promise<ApiResult> {
    const res = await ctx().api(path, {
      method,
      headers: { Authorization: `Bearer ${TEST_ADMIN.token}`, ...(body === undefined ? {} : { 'Content-Type': type }) },
      ...(body === undefined ? {} : { body }),
    });
    const text = await res.text();
    return { status: res.status, body: text === '' ? null : (JSON.parse(text) as unknown) };
  }

  before(async () => {
    expectOk(
      await api('POST', '/collections', {
        collection: 'holder',
        schema: {},
        fields: [
          { field: 'title', type: 'string' },
          { field: 'data', type: 'json' },
        ],
      }),
    );
    expectOk(await api('POST', '/items/holder', { title: 'kept', data: { a: [1] } }));
    untouched = await dumpTables(ctx().server.db, WATCHED);
  });

  afterEach(async () => {
    expect(await dumpTables(ctx().server.db, WATCHED)).to.deep.equal(untouched);
    // Alive and answering.
    expect(expectOk(await api('GET', '/items/holder?fields=title'))).to.deep.equal([{ title: 'kept' }]);
  });

  it('JSON bodies: /schema/diff (twice), item writes and SEARCH', async () => {
    for (let i = 0; i < 2; i += 1) {
      expectError(await raw('POST', '/schema/diff', deepArray(DEEP)), 400, 'INVALID_PAYLOAD', tooDeep);
    }
    expectError(await raw('POST', '/schema/diff', deepObject(101)), 400, 'INVALID_PAYLOAD', tooDeep);
    expectError(
      await raw('POST', '/items/holder', `{"title":"x","data":${deepArray(DEEP)}}`),
      400,
      'INVALID_PAYLOAD',
      tooDeep,
    );
    expectError(await raw('PATCH', '/items/holder/1', `{"data":${deepObject(500)}}`), 400, 'INVALID_PAYLOAD', tooDeep);
    expectError(
      await raw('SEARCH', '/items/holder', `{"query":{"filter":${deepObject(500)}}}`),
      400,
      'INVALID_PAYLOAD',
      tooDeep,
    );
    // 100 levels still parse (the route decides what it makes of them).
    const within = await raw('POST', '/items/holder', `{"title":"x","data":${deepArray(100)}}`);
    expect(within.status).to.not.equal(500);
    if (within.status === 200) await ctx().server.db('holder').where('title', 'x').delete();
  });

  it('snapshot files (YAML or JSON in a multipart upload), twice', async () => {
    for (let i = 0; i < 2; i += 1) {
      for (const text of [deepArray(DEEP), `${'- '.repeat(5000)}x\n`, deepObject(300)]) {
        const answer = await sendForm(ctx(), 'POST', '/schema/diff', [['file', text, 'snapshot.yaml', 'text/yaml']]);
        expectError(answer, 400, 'INVALID_PAYLOAD', tooDeep);
      }
    }
  });

  it('query-string JSON (filter=, deep=) and brackets (qs)', async () => {
    const filter = encodeURIComponent(`{"_and":${deepArray(2000)}}`);
    expectError(await api('GET', `/items/holder?filter=${filter}`), 400, 'INVALID_QUERY', tooDeep);
    const deep = encodeURIComponent(deepObject(200));
    expectError(await api('GET', `/items/holder?deep=${deep}`), 400, 'INVALID_QUERY', tooDeep);
    const brackets = `filter${'[_and][0]'.repeat(200)}[title][_eq]=x`;
    expectError(await api('GET', `/items/holder?${brackets}`), 400, 'INVALID_QUERY', tooDeep);
  });

  it('GraphQL documents', async () => {
    const query = `{ holder(sort: ${deepArray(1500)}) { id } }`;
    const answer = await raw('POST', '/graphql', JSON.stringify({ query }));
    expect(answer.status, JSON.stringify(answer.body)).to.equal(400);
    const [error] = answer.body.errors;
    expect(error.extensions.code).to.equal('GRAPHQL_VALIDATION');
    expect(error.extensions.errors[0].message).to.match(tooDeep);
    const get = await raw('GET', `/graphql?query=${encodeURIComponent(query)}`);
    expect(get.status).to.equal(400);
    expect(get.body.errors[0].extensions.errors[0].message).to.match(tooDeep);
  });

  it('CSV and JSON imports', async () => {
    const csv = `title,data\nx,"${deepArray(DEEP)}"\n`;
    expectError(
      await sendForm(ctx(), 'POST', '/utils/import/holder', [['file', csv, 'rows.csv', 'text/csv']]),
      400,
      'INVALID_PAYLOAD',
      tooDeep,
    );
    const json = `[{"title":"x","data":${deepArray(DEEP)}}]`;
    expectError(
      await sendForm(ctx(), 'POST', '/utils/import/holder', [['file', json, 'rows.json', 'application/json']]),
      400,
      'INVALID_PAYLOAD',
      tooDeep,
    );
  });
});
