/**
 * The Studio list's first paint in Chromium on a collection of a million items (PostgreSQL),
 * against the same list on a thousand items (the floor, measured in the same run): from the
 * navigation to the list's URL until its first row shows, and until the pager shows the total.
 * Median of 7 loads each after one warm-up, signed in as the administrator.
 *   node --import tsx bench/studio-first-paint.ts   (ROWS [1000000]; TEST_PG_* as the tests)
 * A fresh database is made and dropped; the server runs in-process with its test configuration,
 * the console as `make build` leaves it (built first when missing).
 */
import { performance } from 'node:perf_hooks';
import type { Page } from 'playwright-core';
import { startServer } from '../src/server.js';
import { createLogger } from '../src/logger/index.js';
import { launchChromium } from '../test/support/chromium.js';
import { ensureConsoleBuilt } from '../test/support/console-build.js';
import { freePort } from '../test/support/ports.js';
import { testConfig, TEST_ADMIN } from '../test/support/server.js';
import { postgresTarget } from '../test/support/services.js';

const ROWS = Number(process.env['ROWS'] ?? 1_000_000);
const FLOOR_ROWS = 1000;
const RUNS = 7;

await ensureConsoleBuilt();
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const database = await postgresTarget.create();
const server = await startServer(
  testConfig(database, { PORT: String(port), PUBLIC_URL: base, REFRESH_TOKEN_COOKIE_SECURE: 'false' }),
  { logger: createLogger({ logLevel: 'silent', logStyle: 'raw' }) },
);
const chromium = await launchChromium({ width: 1280, height: 900 });

/** A collection `name` of `rows` items, as bench/list-first-page.ts makes it. */
async function collectionOf(name: string, rows: number): Promise<void> {
  const created = await fetch(`${base}/collections`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${TEST_ADMIN.token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({
      collection: name,
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
    `INSERT INTO ?? (title, status, views) SELECT 'Item ' || n, CASE WHEN n % 3 = 0 THEN 'draft' ELSE 'published' END, n % 1000 FROM generate_series(1, ?) AS n`,
    [name, rows],
  );
  await server.db.raw(`VACUUM ANALYZE ??`, [name]);
}

/** One load of the list: ms until its first row, and until the pager's total. */
async function load(page: Page, name: string, rows: number): Promise<[number, number]> {
  const start = performance.now();
  await page.goto(`${base}/admin/content/${name}`);
  await page.locator('tbody tr').first().waitFor();
  const firstRow = performance.now() - start;
  await page
    .getByText(new RegExp(`of ${rows}\\b`))
    .first()
    .waitFor();
  return [firstRow, performance.now() - start];
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

try {
  await collectionOf('big', ROWS);
  await collectionOf('small', FLOOR_ROWS);
  const page = await chromium.newPage();
  await page.goto(`${base}/admin/login`);
  await page.getByLabel('E-mail').fill(TEST_ADMIN.email);
  await page.getByLabel('Password').fill(TEST_ADMIN.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
  const figures: Record<string, [number, number]> = {};
  for (const [name, rows] of [
    ['small', FLOOR_ROWS],
    ['big', ROWS],
  ] as const) {
    await load(page, name, rows);
    const runs: [number, number][] = [];
    for (let i = 0; i < RUNS; i++) runs.push(await load(page, name, rows));
    figures[name] = [median(runs.map((r) => r[0])), median(runs.map((r) => r[1]))];
  }
  const [smallRow, smallTotal] = figures['small'] ?? [0, 0];
  const [bigRow, bigTotal] = figures['big'] ?? [0, 0];
  console.log(`Studio list in Chromium, PostgreSQL, median of ${RUNS} loads (ms):`);
  console.log(`  ${FLOOR_ROWS} items (floor): first row ${smallRow.toFixed(0)}, total ${smallTotal.toFixed(0)}`);
  console.log(`  ${ROWS} items: first row ${bigRow.toFixed(0)}, total ${bigTotal.toFixed(0)}`);
  console.log(
    `  ratio to the floor: first row ${(bigRow / smallRow).toFixed(2)}, total ${(bigTotal / smallTotal).toFixed(2)}`,
  );
} finally {
  await chromium.close();
  await server.close();
  await database.drop();
}
