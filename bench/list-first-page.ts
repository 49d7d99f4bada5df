/**
 * The Studio list's first page on a collection of a million items (PostgreSQL): the page with
 * its `filter_count` in one request (what the list asked first) against what it asks now, the
 * page alone (26 rows: a next page is known by the extra one) and the count in a request of its
 * own; median of 7 runs each after one warm-up.
 *   node --import tsx bench/list-first-page.ts   (ROWS [1000000]; TEST_PG_* as the tests)
 * A fresh database is made and dropped; the server runs in-process with its test configuration.
 */
import { performance } from 'node:perf_hooks';
import { startServer } from '../src/server.js';
import { createLogger } from '../src/logger/index.js';
import { testConfig, TEST_ADMIN } from '../test/support/server.js';
import { postgresTarget } from '../test/support/services.js';

const ROWS = Number(process.env['ROWS'] ?? 1_000_000);
const database = await postgresTarget.create();
const server = await startServer(testConfig(database, {}), {
  logger: createLogger({ logLevel: 'silent', logStyle: 'raw' }),
});
const api = (path: string, init: RequestInit = {}) =>
  fetch(server.url + path, {
    ...init,
    headers: { Authorization: `Bearer ${TEST_ADMIN.token}`, 'Content-Type': 'application/json' },
  });

try {
  const created = await api('/collections', {
    method: 'POST',
    body: JSON.stringify({
      collection: 'big',
      schema: {},
      fields: [
        { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } },
        { field: 'title', type: 'string' },
        { field: 'status', type: 'string' },
        { field: 'views', type: 'integer' },
      ],
    }),
  });
  if (!created.ok) throw new Error(await created.text());
  await server.db.raw(
    `INSERT INTO big (title, status, views) SELECT 'Item ' || n, CASE WHEN n % 3 = 0 THEN 'draft' ELSE 'published' END, n % 1000 FROM generate_series(1, ?) AS n`,
    [ROWS],
  );
  await server.db.raw('VACUUM ANALYZE big');

  const time = async (path: string): Promise<number> => {
    const start = performance.now();
    const res = await api(path);
    await res.text();
    if (!res.ok) throw new Error(`${path}: ${res.status}`);
    return performance.now() - start;
  };
  const median = async (path: string): Promise<number> => {
    await time(path);
    const runs: number[] = [];
    for (let i = 0; i < 7; i++) runs.push(await time(path));
    runs.sort((a, b) => a - b);
    return runs[3] ?? 0;
  };
  const page = '/items/big?limit=25&page=1&sort=id&fields=*';
  // What the list asks now: one more row than the page, the count in its own request.
  const rows = '/items/big?limit=26&offset=0&sort=id&fields=*';
  const filtered = `&filter=${encodeURIComponent(JSON.stringify({ status: { _eq: 'draft' } }))}`;
  const cases: [string, string][] = [
    ['page + filter_count in one request (before)', `${page}&meta=filter_count`],
    ['page alone, 26 rows (the list now: first paint)', rows],
    ['filter_count alone (the list now: its pager)', '/items/big?limit=0&meta=filter_count'],
    ['filtered: page + filter_count in one request', `${page}${filtered}&meta=filter_count`],
    ['filtered: page alone, 26 rows', `${rows}${filtered}`],
    ['filtered: filter_count alone', `/items/big?limit=0${filtered}&meta=filter_count`],
  ];
  console.log(`${ROWS} rows, PostgreSQL, median of 7 (ms):`);
  for (const [name, path] of cases) console.log(`  ${name}: ${(await median(path)).toFixed(1)}`);
} finally {
  await server.close();
  await database.drop();
}
