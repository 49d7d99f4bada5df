import { expect } from 'chai';
import { request } from 'node:http';
import type { Knex } from 'knex';
import { describeEachDatabase, TEST_ADMIN, type ServerContext } from '../../support/server.js';
import { asAdmin, call, createCaller, dataOf, grant } from '../access/permission-helpers.js';
import { createCommandSchema } from '../commands/schema.js';

/** Longer than any read here takes, far shorter than knex's 60 s wait for a connection. */
const READ_WITHIN_MS = 10_000;

interface OpenImport {
  /** Sends the rest of the file; the import's answer. */
  finish(): Promise<{ status: number; body: string }>;
}

/** An import into articles whose upload has sent `rows` and its end is held back: its transaction stays open. */
function openImport(ctx: ServerContext, rows: number): OpenImport {
  const boundary = 'held-boundary';
  const url = new URL('/utils/import/articles', ctx.server.url);
  const req = request(url, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${TEST_ADMIN.token}`,
      'Content-Type': `multipart/form-data; boundary=${boundary}`,
    },
  });
  const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
    req.on('response', (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
  });
  req.write(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="rows.csv"\r\nContent-Type: text/csv\r\n\r\n` +
      'title,views\n' +
      Array.from({ length: rows }, (_, i) => `held ${i},${i}\n`).join(''),
  );
  return {
    finish() {
      req.end(`\r\n--${boundary}--\r\n`);
      return answer;
    },
  };
}

/** The connections of the service's own pool in use (SQLite: its one writer). */
const connectionsInUse = (db: Knex): number => (db.client as { pool: { numUsed(): number } }).pool.numUsed();

/** Until one more connection than `before` is in use: the import's transaction has begun. */
async function untilImportBegun(db: Knex, before: number): Promise<void> {
  for (let attempt = 0; attempt < 200 && connectionsInUse(db) <= before; attempt += 1) {
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  expect(connectionsInUse(db), 'the import holds a connection').to.be.greaterThan(before);
}

const countOf = async (ctx: ServerContext, token: string): Promise<number> => {
  const res = await ctx.api('/items/articles?aggregate[count]=*', {
    headers: { Authorization: `Bearer ${token}` },
    signal: AbortSignal.timeout(READ_WITHIN_MS),
  });
  expect(res.status).to.equal(200);
  const [row] = ((await res.json()) as { data: { count: number | string }[] }).data;
  return Number(row?.count);
};

/*
 * Issue 13: imports and long writes must not starve reads. An import holds its transaction
 * from its first byte to its last; on SQLite the file's one writing connection is held all
 * that time, and reads that waited for it were answered 503 after a minute. Reads, and what
 * a read needs first (the user of a static token, its role's permissions, a schema rebuilt
 * after a change), go to read-only connections there (db/replicas.ts, attachReaders).
 */
describeEachDatabase('reads while an import holds its transaction open', (ctx) => {
  before(() => createCommandSchema(ctx()));

  it('are answered at once, from what was committed, by the admin, a caller seen for the first time and GraphQL', async () => {
    dataOf(await asAdmin(ctx(), 'POST', '/items/articles', [{ title: 'one' }, { title: 'two' }]));
    const before = await countOf(ctx(), TEST_ADMIN.token);
    // A caller whose user, permissions and (after the grant) schema are read during the import.
    const caller = await createCaller(ctx().server.db);
    await grant(ctx(), caller.role, [{ collection: 'articles', action: 'read', fields: ['id', 'title'] }]);

    // More than a batch: the first 2,000 rows are written inside the open transaction.
    const inUse = connectionsInUse(ctx().server.db);
    const held = openImport(ctx(), 2_500);
    await untilImportBegun(ctx().server.db, inUse);

    expect(await countOf(ctx(), TEST_ADMIN.token)).to.equal(before);
    const asCaller = await call(ctx(), caller.token, 'GET', '/items/articles?fields=title&sort=id&limit=2');
    expect(dataOf(asCaller)).to.deep.equal([{ title: 'one' }, { title: 'two' }]);
    const graphql = await ctx().api('/graphql', {
      method: 'POST',
      headers: { Authorization: `Bearer ${caller.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ query: '{ articles(sort: ["id"], limit: 1) { title } }' }),
      signal: AbortSignal.timeout(READ_WITHIN_MS),
    });
    expect(await graphql.json()).to.deep.equal({ data: { articles: [{ title: 'one' }] } });

    const answer = await held.finish();
    expect(answer.status, answer.body).to.equal(200);
    expect(await countOf(ctx(), TEST_ADMIN.token)).to.equal(before + 2_500);
  });
});
