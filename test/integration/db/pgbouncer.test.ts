import { expect } from 'chai';
import { readDbConfig } from '../../../src/config/database.js';
import { ConfigError, EnvReader } from '../../../src/config/env-reader.js';
import { describeEachDatabase, TEST_ADMIN, type ServerContext } from '../../support/server.js';
import { postgresTarget, requireOrSkip } from '../../support/services.js';
import { pgBouncerUnavailable, startPgBouncer, type PgBouncerProcess } from '../../support/pgbouncer.js';
import { adminApi, countRows, createCommandSchema, dataOf, errorsOf, type ApiResult } from '../commands/schema.js';

type Row = Record<string, unknown>;

/** The service's pool: five times PgBouncer's server connections, so statements change server connection. */
const SERVICE_POOL = '10';
const BOUNCER_POOL = 2;

/**
 * The service behind a real PgBouncer in transaction pooling (Debian's pgbouncer on a loopback
 * port, in front of the machine's PostgreSQL), whose pool (2 server connections) is smaller
 * than the service's (10): consecutive statements of one service connection land on
 * different server connections, as with any pooler a managed PostgreSQL puts in front.
 */
describe('behind PgBouncer in transaction pooling', function () {
  this.timeout(180_000);
  let bouncer: PgBouncerProcess | undefined;

  before(async function () {
    requireOrSkip(this, pgBouncerUnavailable());
    requireOrSkip(this, await postgresTarget.unavailable());
    bouncer = await startPgBouncer({
      server: { host: '127.0.0.1', port: 5432, user: 'root' },
      poolMode: 'transaction',
      poolSize: BOUNCER_POOL,
    });
  });

  after(async () => {
    await bouncer?.stop();
  });

  afterEach(function () {
    if (this.currentTest?.state === 'failed' && bouncer !== undefined) console.log(bouncer.log().slice(-4000));
  });

  const throughBouncer = (preparedStatements: 'true' | 'false') => () => ({
    DB_PORT: String(bouncer!.port),
    DB_PREPARED_STATEMENTS: preparedStatements,
    DB_POOL__MAX: SERVICE_POOL,
  });

  describeEachDatabase('with DB_PREPARED_STATEMENTS=false', representativeSuite, {
    targets: [postgresTarget],
    env: throughBouncer('false'),
  });

  /**
   * The same reads with the statements named (the default): a service connection prepares a
   * name on one server connection, then its next statement reaches another that never
   * prepared it (26000), or one that already has it from another service connection (42P05).
   */
  describeEachDatabase(
    'with DB_PREPARED_STATEMENTS=true (the default)',
    (ctx: () => ServerContext) => {
      it('fails some reads with a 500: what the setting is for', async () => {
        const created = await adminApi(ctx(), 'POST', '/collections', {
          collection: 'notes',
          schema: {},
          fields: [
            { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } },
            { field: 'title', type: 'string', schema: {} },
          ],
        });
        expect(created.status, JSON.stringify(created.body)).to.equal(200);
        const statuses: number[] = [];
        for (let round = 0; round < 5 && !statuses.includes(500); round += 1) {
          const reads = await Promise.all(
            Array.from({ length: 30 }, (_, i) => adminApi(ctx(), 'GET', `/items/notes?filter[id][_eq]=${i}`)),
          );
          statuses.push(...reads.map((r) => r.status));
        }
        expect(statuses).to.include(500);
      });
    },
    { targets: [postgresTarget], env: throughBouncer('true') },
  );
});

/**
 * Session pooling: a service connection keeps its server connection, so named statements are
 * safe and the default stays. PgBouncer's pool must hold the service's whole pool (a service
 * connection past it would wait for another to close), hence a pool of 10 here.
 */
describe('behind PgBouncer in session pooling', function () {
  this.timeout(180_000);
  let bouncer: PgBouncerProcess | undefined;

  before(async function () {
    requireOrSkip(this, pgBouncerUnavailable());
    requireOrSkip(this, await postgresTarget.unavailable());
    bouncer = await startPgBouncer({
      server: { host: '127.0.0.1', port: 5432, user: 'root' },
      poolMode: 'session',
      poolSize: Number(SERVICE_POOL),
    });
  });

  after(async () => {
    await bouncer?.stop();
  });

  describeEachDatabase('with DB_PREPARED_STATEMENTS=true (the default)', representativeSuite, {
    targets: [postgresTarget],
    env: () => ({ DB_PORT: String(bouncer!.port), DB_POOL__MAX: SERVICE_POOL }),
  });
});

describe('DB_PREPARED_STATEMENTS=false', () => {
  it('refuses a DB_SEARCH_PATH other than public: set per connection, it would not hold behind a pooler', () => {
    const env = { DB_CLIENT: 'pg', DB_DATABASE: 'svc', DB_PREPARED_STATEMENTS: 'false' };
    expect(() => readDbConfig(new EnvReader({ ...env, DB_SEARCH_PATH: 'tenant,public' })))
      .to.throw(ConfigError)
      .with.property('message')
      .that.matches(/DB_SEARCH_PATH.*ALTER ROLE/);
    expect(readDbConfig(new EnvReader({ ...env, DB_SEARCH_PATH: 'public' })).preparedStatements).to.equal(false);
    expect(
      readDbConfig(new EnvReader({ ...env, DB_PREPARED_STATEMENTS: 'true', DB_SEARCH_PATH: 'tenant' })).searchPath,
    ).to.deep.equal(['tenant']);
  });
});

/**
 * A representative run of the PostgreSQL suites: concurrent reads of every kind, concurrent
 * writes with their journal, nested writes, a failing write rolled back, GraphQL, an import, a
 * schema change.
 */
function representativeSuite(ctx: () => ServerContext): void {
  const api = (method: string, path: string, body?: unknown) => adminApi(ctx(), method, path, body);
  const db = () => ctx().server.db;

  before(async () => {
    await createCommandSchema(ctx());
    dataOf(
      await api(
        'POST',
        '/items/authors',
        Array.from({ length: 5 }, (_, i) => ({ name: `Author ${i}` })),
      ),
    );
    dataOf(
      await api(
        'POST',
        '/items/articles',
        Array.from({ length: 40 }, (_, i) => ({ title: `Article ${i}`, views: i, author: (i % 5) + 1 })),
      ),
    );
  });

  it('answers many concurrent reads (lists, by key, filters, relations, aggregates, GraphQL) with no error', async () => {
    const reads: [string, (result: ApiResult) => void][] = [];
    for (let i = 1; i <= 40; i += 1) {
      reads.push([
        `/items/articles/${i}?fields=id,title,author.name`,
        (r) => {
          const article = dataOf<Row>(r);
          expect(article['title']).to.equal(`Article ${i - 1}`);
          expect((article['author'] as Row)['name']).to.equal(`Author ${(i - 1) % 5}`);
        },
      ]);
      reads.push([
        `/items/articles?filter[views][_gte]=${i % 40}&sort=id&fields=id,views&limit=-1`,
        (r) => expect(dataOf<Row[]>(r)).to.have.length(40 - (i % 40)),
      ]);
      reads.push([
        `/items/authors?filter[articles][_some][views][_lt]=${i % 5}&fields=id&limit=-1`,
        (r) => expect(dataOf<Row[]>(r)).to.have.length(i % 5),
      ]);
    }
    for (let i = 0; i < 10; i += 1) {
      reads.push([
        '/items/articles?aggregate[sum]=views&groupBy[]=author',
        (r) => expect(dataOf<Row[]>(r)).to.have.length(5),
      ]);
      reads.push(['/items/articles?limit=5&offset=10&meta=*', (r) => expect(dataOf<Row[]>(r)).to.have.length(5)]);
    }
    const results = await Promise.all(reads.map(([path]) => api('GET', path)));
    expect(
      results.filter((r) => r.status !== 200).map((r) => r.body),
      'every read answered 200',
    ).to.deep.equal([]);
    results.forEach((result, i) => reads[i]![1](result));
    const graphql = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        api('POST', '/graphql', {
          query: 'query ($id: ID!) { articles_by_id(id: $id) { title author { name } } }',
          variables: { id: String(i + 1) },
        }),
      ),
    );
    graphql.forEach((r, i) => {
      expect(dataOf<{ articles_by_id: Row }>(r).articles_by_id['title']).to.equal(`Article ${i}`);
    });
  });

  it('creates, updates and deletes concurrently, each with its activity and revision', async () => {
    const before = await countRows(db(), ['svc_activity', 'svc_revisions']);
    const created = await Promise.all(
      Array.from({ length: 20 }, (_, i) => api('POST', '/items/tags', { label: `tag ${i}` })),
    );
    const ids = created.map((r) => Number(dataOf<Row>(r)['id']));
    const updated = await Promise.all(ids.map((id) => api('PATCH', `/items/tags/${id}`, { label: `tag #${id}` })));
    updated.forEach((r) => dataOf(r));
    const deleted = await Promise.all(ids.slice(0, 10).map((id) => api('DELETE', `/items/tags/${id}`)));
    deleted.forEach((r) => expect(r.status, JSON.stringify(r.body)).to.equal(204));
    const left = await db()('tags').whereIn('id', ids).orderBy('id').select<Row[]>('id', 'label');
    expect(left.map((t) => t['label'])).to.deep.equal(
      ids
        .slice(10)
        .sort((a, b) => a - b)
        .map((id) => `tag #${id}`),
    );
    const after = await countRows(db(), ['svc_activity', 'svc_revisions']);
    expect(after['svc_activity']! - before['svc_activity']!, 'activity rows').to.equal(50);
    // A deletion keeps no revision.
    expect(after['svc_revisions']! - before['svc_revisions']!, 'revisions').to.equal(40);
  });

  it('writes nested payloads in one transaction, and rolls a failing one back whole', async () => {
    const article = dataOf<Row>(
      await api('POST', '/items/articles', {
        title: 'Nested',
        author: { name: 'Nested author' },
        comments: [{ text: 'one' }, { text: 'two', author: { name: 'Commenter' } }],
        tags: [{ tags_id: { label: 'nested tag' } }],
      }),
    );
    const read = dataOf<Row>(
      await api('GET', `/items/articles/${String(article['id'])}?fields=author.name,comments.text,tags.tags_id.label`),
    );
    expect((read['author'] as Row)['name']).to.equal('Nested author');
    expect((read['comments'] as Row[]).map((c) => c['text']).sort()).to.deep.equal(['one', 'two']);
    expect(((read['tags'] as Row[])[0]!['tags_id'] as Row)['label']).to.equal('nested tag');

    const counts = await countRows(db(), ['authors', 'articles', 'comments', 'svc_activity', 'svc_revisions']);
    // The second article's title is past articles.title's 20 characters.
    const failed = await api('POST', '/items/authors', {
      name: 'Half written?',
      articles: [{ title: 'fits' }, { title: 'x'.repeat(30), comments: [{ text: 'never' }] }],
    });
    expect(errorsOf(failed, 400)).to.have.length.greaterThan(0);
    expect(await countRows(db(), ['authors', 'articles', 'comments', 'svc_activity', 'svc_revisions'])).to.deep.equal(
      counts,
    );
  });

  it('answers a GraphQL mutation', async () => {
    const created = await api('POST', '/graphql', {
      query: 'mutation { create_articles_item(data: { title: "From GraphQL", views: 7 }) { id title views } }',
    });
    const item = dataOf<{ create_articles_item: Row }>(created).create_articles_item;
    expect(item['title']).to.equal('From GraphQL');
    const updated = await api('POST', '/graphql', {
      query: `mutation { update_articles_item(id: ${String(item['id'])}, data: { views: 8 }) { views } }`,
    });
    expect(dataOf<{ update_articles_item: Row }>(updated).update_articles_item['views']).to.equal(8);
  });

  it('imports a file of items', async () => {
    const form = new FormData();
    const rows = Array.from({ length: 30 }, (_, i) => ({ label: `imported ${i}` }));
    form.append('file', new Blob([JSON.stringify(rows)], { type: 'application/json' }), 'tags.json');
    const res = await ctx().api('/utils/import/tags', {
      method: 'POST',
      body: form,
      headers: { Authorization: `Bearer ${TEST_ADMIN.token}` },
    });
    expect(res.status, await res.clone().text()).to.be.oneOf([200, 204]);
    const imported = await db()('tags').where('label', 'like', 'imported %').count({ n: '*' }).first<Row>();
    expect(Number(imported?.['n'])).to.equal(30);
  });

  it('changes the schema (a collection, then a field) and serves it at once', async () => {
    dataOf(
      await api('POST', '/collections', {
        collection: 'pooled',
        schema: {},
        fields: [{ field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } }],
      }),
    );
    dataOf(await api('POST', '/fields/pooled', { field: 'label', type: 'string', schema: {} }));
    const written = await Promise.all(
      Array.from({ length: 10 }, (_, i) => api('POST', '/items/pooled', { label: `p${i}` })),
    );
    written.forEach((r) => dataOf(r));
    const read = await Promise.all(
      Array.from({ length: 10 }, () => api('GET', '/items/pooled?fields=label&sort=label')),
    );
    for (const r of read) {
      expect(dataOf<Row[]>(r).map((p) => p['label'])).to.deep.equal(Array.from({ length: 10 }, (_, i) => `p${i}`));
    }
  });
}
