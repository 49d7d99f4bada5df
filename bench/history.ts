/**
 * History at scale (issue 18): REVISIONS (default 10,000,000) svc_revisions rows, each with its
 * svc_activity row, over ITEMS (default 100,000) items of one collection on PostgreSQL, made by
 * INSERT ... SELECT generate_series in a dedicated database (BENCH_DB, default
 * svc_bench_history; dropped and recreated), then with autocannon against the real server
 * (bench/soak-server.ts): the history of one item, an as-of read and a diff, each against the
 * floors of the same run (a plain read of the same item: fast path, and through Express), RUNS
 * (3) times, with CONNECTIONS and
 * alone (one connection: a request's own latency); and the plans of the
 * history statements (EXPLAIN ANALYZE), which must use indexes.
 *   node --import tsx bench/history.ts
 * Env: DURATION seconds per run (10), CONNECTIONS (10), WARMUP seconds (3), KEEP=1 leaves the
 * database for another run and SKIP_LOAD=1 reuses it; TEST_PG_* / DB_* name the server.
 */
import autocannon from 'autocannon';
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import knex from 'knex';

const REVISIONS = Number(process.env['REVISIONS'] ?? 10_000_000);
const ITEMS = Number(process.env['ITEMS'] ?? 100_000);
const DURATION = Number(process.env['DURATION'] ?? 10);
const CONNECTIONS = Number(process.env['CONNECTIONS'] ?? 10);
const WARMUP = Number(process.env['WARMUP'] ?? 3);
const RUNS = Number(process.env['RUNS'] ?? 3);
const DB = process.env['BENCH_DB'] ?? 'svc_bench_history';
const HOST = process.env['TEST_PG_HOST'] ?? '127.0.0.1';
const USER = process.env['TEST_PG_USER'] ?? 'root';
const TOKEN = 'history-bench-static-admin-token';
const headers = { Authorization: `Bearer ${TOKEN}` };
/** A cookie makes the HTTP server hand the plain read to Express (http/fast-path.ts), as the history routes are. */
const THROUGH_EXPRESS = { Cookie: 'bench=1' };
/** The item measured: its revisions are spread over the whole table (every ITEMS-th row). */
const ITEM = Number(process.env['ITEM'] ?? Math.min(4242, ITEMS));

const admin = knex({ client: 'pg', connection: { host: HOST, user: USER, database: 'postgres' } });
const log = (message: string): void => void console.error(`${new Date().toISOString()} ${message}`);

if (process.env['SKIP_LOAD'] !== '1') {
  await admin.raw(`drop database if exists ${DB} with (force)`);
  await admin.raw(`create database ${DB}`);
}
await admin.destroy();

const dir = mkdtempSync(join(tmpdir(), 'svc-history-bench-'));
const child = fork(new URL('./soak-server.ts', import.meta.url).pathname, {
  env: {
    NODE_ENV: 'production',
    ...process.env,
    DB_CLIENT: 'pg',
    DB_HOST: HOST,
    DB_USER: USER,
    DB_DATABASE: DB,
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'warn',
    SECRET: 'history-bench',
    ADMIN_EMAIL: 'admin@example.com',
    ADMIN_PASSWORD: 'history-bench-password',
    ADMIN_TOKEN: TOKEN,
    STORAGE_LOCAL_ROOT: join(dir, 'uploads'),
    TEMP_PATH: join(dir, 'tmp'),
  },
  execArgv: ['--import', 'tsx'],
  stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
});
const db = knex({ client: 'pg', connection: { host: HOST, user: USER, database: DB } });

try {
  const url = await new Promise<string>((resolve) => child.once('message', (m) => resolve((m as { url: string }).url)));
  if (process.env['SKIP_LOAD'] !== '1') await load(url);
  await explainAll();
  await measureAll(url);
} finally {
  child.send('stop');
  await db.destroy();
  if (process.env['KEEP'] !== '1' && process.env['SKIP_LOAD'] !== '1') {
    await new Promise((resolve) => child.once('exit', resolve));
    const drop = knex({ client: 'pg', connection: { host: HOST, user: USER, database: 'postgres' } });
    await drop.raw(`drop database if exists ${DB} with (force)`);
    await drop.destroy();
  }
  rmSync(dir, { recursive: true, force: true });
}

/** The collection through the API, its items and journal in SQL: revision n is of item n mod ITEMS. */
async function load(url: string): Promise<void> {
  const res = await fetch(`${url}/collections`, {
    method: 'POST',
    headers: { ...headers, 'Content-Type': 'application/json' },
    body: JSON.stringify({
      collection: 'posts',
      schema: {},
      fields: [
        { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } },
        { field: 'title', type: 'string', schema: {} },
        { field: 'body', type: 'text', schema: {} },
        { field: 'views', type: 'integer', schema: {} },
      ],
    }),
  });
  if (!res.ok) throw new Error(`creating the collection: ${String(res.status)} ${await res.text()}`);
  log(`loading ${String(ITEMS)} items, ${String(REVISIONS)} activity rows and revisions`);
  const started = Date.now();
  await db.raw(
    `insert into posts (id, title, body, views)
     select g, 'Title ' || g, 'line one of ' || g || chr(10) || 'line two', g from generate_series(1, ?) g`,
    [ITEMS],
  );
  await db.raw(`select setval(pg_get_serial_sequence('posts', 'id'), ?)`, [ITEMS]);
  // One activity row per revision, a minute apart from 2020-01-01, the first of each item a create.
  await db.raw(
    `insert into svc_activity (id, action, "user", timestamp, ip, collection, item)
     select g, case when g <= ? then 'create' else 'update' end, null,
            timestamp with time zone '2020-01-01 00:00:00+00' + g * interval '1 minute',
            '127.0.0.1', 'posts', ((g - 1) % ? + 1)::text
     from generate_series(1, ?) g`,
    [ITEMS, ITEMS, REVISIONS],
  );
  log(`activity rows in ${String(Math.round((Date.now() - started) / 1000))} s`);
  await db.raw(
    `insert into svc_revisions (id, activity, collection, item, data, delta)
     select g, g, 'posts', ((g - 1) % ? + 1)::text,
            json_build_object('id', (g - 1) % ? + 1, 'title', 'Title ' || g,
                              'body', 'line one of ' || g || chr(10) || 'line two', 'views', g),
            case when g <= ? then json_build_object('id', (g - 1) % ? + 1, 'title', 'Title ' || g,
                                                    'body', 'line one of ' || g || chr(10) || 'line two', 'views', g)
                 else json_build_object('title', 'Title ' || g, 'views', g) end
     from generate_series(1, ?) g`,
    [ITEMS, ITEMS, ITEMS, ITEMS, REVISIONS],
  );
  await db.raw(`select setval(pg_get_serial_sequence('svc_activity', 'id'), ?)`, [REVISIONS]);
  await db.raw(`select setval(pg_get_serial_sequence('svc_revisions', 'id'), ?)`, [REVISIONS]);
  await db.raw('analyze svc_activity');
  await db.raw('analyze svc_revisions');
  log(`loaded in ${String(Math.round((Date.now() - started) / 1000))} s`);
}

/** Revision ids of the measured item: its n-th revision is row ITEM + (n - 1) * ITEMS. */
function revisionOf(n: number): number {
  return ITEM + (n - 1) * ITEMS;
}

/** The moment of the item's middle revision (activity rows are a minute apart). */
function middleMoment(): string {
  const middle = revisionOf(Math.floor(REVISIONS / ITEMS / 2));
  return new Date(Date.UTC(2020, 0, 1) + middle * 60_000 + 30_000).toISOString();
}

/** The statements behind the three reads (src/query/history), with their plans' first lines and time. */
async function explainAll(): Promise<void> {
  const item = String(ITEM);
  const statements: [string, string, unknown[]][] = [
    [
      'history page (item-history.ts)',
      `select id from svc_revisions where collection = ? and item = ? order by id desc limit 20 offset 0`,
      ['posts', item],
    ],
    [
      'as-of: last revision then (item-as-of.ts)',
      `select r.data, r.activity from svc_revisions r join svc_activity a on a.id = r.activity
       where r.collection = ? and r.item = ? and r.version is null and a.timestamp <= ? order by r.id desc limit 1`,
      ['posts', item, middleMoment()],
    ],
    [
      'as-of: deleted since (item-as-of.ts)',
      `select a.id from svc_activity a where a.collection = ? and a.item = ? and a.action = 'delete'
       and a.id > ? and a.timestamp <= ? limit 1`,
      ['posts', item, revisionOf(10), middleMoment()],
    ],
    [
      'diff: previous revision (revision-diff.ts)',
      `select max(id) from svc_revisions where collection = ? and item = ? and id < ? and version is null`,
      ['posts', item, revisionOf(50)],
    ],
    [
      'journal of a deleted item (history-access.ts)',
      `select id from svc_activity where collection = ? and item = ? limit 1`,
      ['posts', item],
    ],
  ];
  console.log('\n| statement | plan (first node) | execution ms |\n|---|---|---|');
  for (const [name, sql, values] of statements) {
    const result = await db.raw(`explain (analyze, format json) ${sql}`, values as never[]);
    const [plan] = (result.rows as { 'QUERY PLAN': [PlanRoot] }[])[0]?.['QUERY PLAN'] ?? [];
    if (plan === undefined) throw new Error(`no plan for ${name}`);
    console.log(`| ${name} | ${describePlan(plan.Plan)} | ${plan['Execution Time'].toFixed(3)} |`);
  }
}

interface PlanNode {
  readonly 'Node Type': string;
  readonly 'Index Name'?: string;
  readonly Plans?: readonly PlanNode[];
}
interface PlanRoot {
  readonly Plan: PlanNode;
  readonly 'Execution Time': number;
}

/** The node types of a plan, with the indexes they scan. */
function describePlan(node: PlanNode): string {
  const own = node['Index Name'] === undefined ? node['Node Type'] : `${node['Node Type']} (${node['Index Name']})`;
  const children = (node.Plans ?? []).map(describePlan);
  return children.length === 0 ? own : `${own} → ${children.join(', ')}`;
}

async function measure(
  target: string,
  connections = CONNECTIONS,
  extra: Readonly<Record<string, string>> = {},
): Promise<{ rps: number; p50: number; p99: number; errors: number }> {
  const all = { ...headers, ...extra };
  if (WARMUP > 0) await autocannon({ url: target, headers: all, duration: WARMUP, connections });
  const result = await autocannon({ url: target, headers: all, duration: DURATION, connections });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx,
  };
}

async function measureAll(url: string): Promise<void> {
  const floor = `/items/posts/${String(ITEM)}`;
  const scenarios: [string, string][] = [
    ['history of one item (20 newest)', `/items/posts/${String(ITEM)}/history?limit=20`],
    ['as-of read (middle of its life)', `/items/posts/${String(ITEM)}?as_of=${middleMoment()}`],
    ['diff with the previous revision', `/revisions/${String(revisionOf(50))}/diff`],
  ];
  for (const [, path] of [['floor', floor], ...scenarios]) {
    const res = await fetch(url + path, { headers });
    if (!res.ok) throw new Error(`${path}: ${String(res.status)} ${await res.text()}`);
  }
  console.log(
    `\n${String(REVISIONS)} revisions, ${String(ITEMS)} items; floors: GET ${floor}, the plain read of the same item, ` +
      'on the fast path (A) and through Express (B, as the history routes go)\n',
  );
  console.log(
    `| scenario | run | req/s (${String(CONNECTIONS)} conn.) | floor A req/s | ratio A | floor B req/s | ratio B | alone p50 / p99 ms | floor B alone p50 / p99 ms | errors |`,
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  for (const [name, path] of scenarios) {
    for (let run = 1; run <= RUNS; run += 1) {
      const a = await measure(url + floor);
      const b = await measure(url + floor, CONNECTIONS, THROUGH_EXPRESS);
      const s = await measure(url + path);
      // One connection: the time of one request, not of a queue.
      const bAlone = await measure(url + floor, 1, THROUGH_EXPRESS);
      const sAlone = await measure(url + path, 1);
      const ratio = (floorRps: number): string => (floorRps === 0 ? '0' : (s.rps / floorRps).toFixed(2));
      const errors = s.errors + sAlone.errors + a.errors + b.errors;
      console.log(
        `| ${name} | ${String(run)} | ${s.rps.toFixed(0)} | ${a.rps.toFixed(0)} | ${ratio(a.rps)} | ${b.rps.toFixed(0)} | ${ratio(b.rps)} | ${String(sAlone.p50)} / ${String(sAlone.p99)} | ${String(bAlone.p50)} / ${String(bAlone.p99)} | ${String(errors)} |`,
      );
    }
  }
}
