import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { describeEachDatabase, TEST_ADMIN } from '../../support/server.js';
import { createQueryFixture } from '../query/fixture-schema.js';

const admin = { Authorization: `Bearer ${TEST_ADMIN.token}` };
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const persisted = (hash: string) => ({ persistedQuery: { version: 1, sha256Hash: hash } });
const NOT_FOUND = {
  errors: [{ message: 'PersistedQueryNotFound', extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } }],
};

// Automatic persisted queries as Apollo's clients send them: the hash first, the document with
// it on a miss, the hash alone from then on.
describeEachDatabase('graphql: automatic persisted queries', (ctx) => {
  before(async () => {
    await createQueryFixture(ctx());
  });

  const post = (body: Record<string, unknown>, path = '/graphql') =>
    ctx().api(path, {
      method: 'POST',
      headers: { ...admin, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
  const get = (params: Record<string, string>) =>
    ctx().api(`/graphql?${new URLSearchParams(params).toString()}`, { headers: admin });

  it('POST: an unknown hash is 200 PersistedQueryNotFound; sent with its document it runs, then the hash alone runs it', async () => {
    const query = 'query One($id: ID!) { articles_by_id(id: $id) { title } } # post';
    const hash = sha256(query);
    const variables = { id: '3' };
    const miss = await post({ variables, extensions: persisted(hash) });
    expect(miss.status).to.equal(200);
    expect(await miss.json()).to.deep.equal(NOT_FOUND);
    const expected = { data: { articles_by_id: { title: 'Quantum leap' } } };
    const registered = await post({ query, variables, extensions: persisted(hash) });
    expect(await registered.json()).to.deep.equal(expected);
    const hit = await post({ variables, extensions: persisted(hash), operationName: 'One' });
    expect(hit.status).to.equal(200);
    expect(await hit.json()).to.deep.equal(expected);
    // Other variables with the same hash: the document is stored, not its answer.
    const other = await post({ variables: { id: '1' }, extensions: persisted(hash) });
    const { data } = (await other.json()) as { data: { articles_by_id: { title: string } } };
    expect(data.articles_by_id.title).not.to.equal('Quantum leap');
  });

  it('GET: the hash in `extensions` as JSON text, with the variables, a miss never replayed from a cache', async () => {
    const query = '{ countries(sort: ["id"]) { code } } # get';
    const extensions = JSON.stringify(persisted(sha256(query)));
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const miss = await get({ extensions });
      expect(await miss.json()).to.deep.equal(NOT_FOUND);
      expect(miss.headers.get('cache-control')).to.equal('no-store');
    }
    const registered = await get({ query, extensions });
    expect(await registered.json()).to.deep.equal({ data: { countries: [{ code: 'NL' }, { code: 'DE' }] } });
    const hit = await get({ extensions });
    expect(await hit.json()).to.deep.equal({ data: { countries: [{ code: 'NL' }, { code: 'DE' }] } });
  });

  it('a document that is not its hash, a bad version or hash is 400 INVALID_PAYLOAD, and nothing is stored', async () => {
    const query = '{ countries { code } } # mismatch';
    const wrong = sha256('{ countries { id } }');
    const refusals = [
      { query, extensions: persisted(wrong) },
      { query, extensions: { persistedQuery: { version: 2, sha256Hash: sha256(query) } } },
      { extensions: { persistedQuery: { version: 1, sha256Hash: 'abc' } } },
      { extensions: { persistedQuery: { version: 1, sha256Hash: sha256(query).toUpperCase() } } },
    ];
    for (const body of refusals) {
      const res = await post(body);
      expect(res.status, JSON.stringify(body)).to.equal(400);
      const { errors } = (await res.json()) as { errors: { extensions: { code: string } }[] };
      expect(errors.map((e) => e.extensions.code)).to.deep.equal(['INVALID_PAYLOAD']);
    }
    const bad = await get({ extensions: '{not json' });
    expect(bad.status).to.equal(400);
    expect(await (await post({ extensions: persisted(wrong) })).json()).to.deep.equal(NOT_FOUND);
  });

  it('a stored document is still checked against the caller: without the right, the hash runs into the same errors', async () => {
    const query = '{ articles { title } } # rights';
    const hash = sha256(query);
    expect((await post({ query, extensions: persisted(hash) })).status).to.equal(200);
    const res = await ctx().api('/graphql', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ extensions: persisted(hash) }),
    });
    const { errors } = (await res.json()) as { errors: { extensions: { code: string } }[] };
    expect(errors.map((e) => e.extensions.code)).to.deep.equal(['GRAPHQL_VALIDATION']);
    // The system scope shares the store, and validates against its own schema.
    const system = await post({ extensions: persisted(hash) }, '/graphql/system');
    const body = (await system.json()) as { errors: { extensions: { code: string } }[] };
    expect(body.errors.map((e) => e.extensions.code)).to.deep.equal(['GRAPHQL_VALIDATION']);
  });
});
