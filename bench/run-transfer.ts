/**
 * Export and import benchmark, self-contained on the local PostgreSQL and Redis:
 *   make build && node --import tsx bench/run-transfer.ts
 * Creates BENCH_TRANSFER_DB (default svc_bench_transfer, dropped first) with a table of
 * max(EXPORT_ROWS) generated rows, starts the built API (dist/src/server.js) with REDIS, then
 * for each of EXPORT_ROWS (default 250000,1000000) starts a fresh worker
 * (dist/workers/index.js), exports that many rows to CSV through POST /utils/export and
 * measures the wall time (request → status done) and the worker's RSS (sampled while it runs,
 * and its peak, VmHWM), started as `make worker` starts it (WORKER_NODE_FLAGS, default
 * `--max-semi-space-size=4`). Then imports IMPORT_ROWS (default 100000) CSV rows through POST
 * /utils/import and measures the wall time (0: exports only). Prints a markdown table.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import knex from 'knex';
import { createGeneratedRows } from './generated-rows.js';

const DB = process.env['BENCH_TRANSFER_DB'] ?? 'svc_bench_transfer';
const PORT = process.env['BENCH_TRANSFER_PORT'] ?? '8078';
const TOKEN = 'bench-transfer-token';
const EXPORT_ROWS = (process.env['EXPORT_ROWS'] ?? '250000,1000000').split(',').map(Number);
const IMPORT_ROWS = Number(process.env['IMPORT_ROWS'] ?? 100_000);
const BASE = `http://127.0.0.1:${PORT}`;
const dir = mkdtempSync(join(tmpdir(), 'svc-bench-transfer-'));
const USER = process.env['DB_USER'] ?? 'root';
const env: Record<string, string> = {
  PATH: process.env['PATH'] ?? '',
  DB_CLIENT: 'pg',
  DB_HOST: '127.0.0.1',
  DB_USER: USER,
  DB_DATABASE: DB,
  REDIS: process.env['REDIS'] ?? 'redis://127.0.0.1:6379',
  CACHE_NAMESPACE: `bench-${Date.now().toString(36)}`,
  ADMIN_TOKEN: TOKEN,
  ADMIN_PASSWORD: 'bench-password',
  SECRET: 'bench',
  PORT,
  HOST: '127.0.0.1',
  LOG_LEVEL: 'warn',
  LOG_STYLE: 'raw',
  STORAGE_LOCAL_ROOT: join(dir, 'uploads'),
  TEMP_PATH: join(dir, 'tmp'),
};
const headers = { Authorization: `Bearer ${TOKEN}` };

const admin = knex({ client: 'pg', connection: { host: '127.0.0.1', user: USER, database: 'postgres' } });
await admin.raw('DROP DATABASE IF EXISTS ?? WITH (FORCE)', [DB]);
await admin.raw('CREATE DATABASE ??', [DB]);
await admin.destroy();

const db = knex({ client: 'pg', connection: { host: '127.0.0.1', user: USER, database: DB } });
const maxRows = Math.max(...EXPORT_ROWS);
await createGeneratedRows(db, 'bench_export', maxRows);
await db.schema.createTable('bench_import', (t) => {
  t.increments('id');
  t.string('title', 255);
  t.integer('views');
  t.boolean('published');
});
console.error(`dataset: ${maxRows} rows in bench_export`);

/** The worker's node flags, as `make worker` passes them (WORKER_NODE_FLAGS; empty for none). */
const WORKER_FLAGS = (process.env['WORKER_NODE_FLAGS'] ?? '--max-semi-space-size=4').split(' ').filter((f) => f !== '');

function start(entry: string, flags: readonly string[] = []): ChildProcess {
  return spawn(process.execPath, [...flags, entry], { env, stdio: ['ignore', 'inherit', 'inherit'] });
}

async function until<T>(probe: () => Promise<T | undefined>, intervalMs: number): Promise<T> {
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

function memory(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) / 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

interface Status {
  status: string;
  rows_done: number;
  rows_total: number | null;
  file: string | null;
}

async function latestExport(): Promise<{ item: string; status: Status } | undefined> {
  const res = await fetch(`${BASE}/activity?filter[action][_eq]=export&sort=-id&limit=1&fields=item,comment`, {
    headers,
  });
  const row = ((await res.json()) as { data: { item: string; comment: string }[] }).data[0];
  return row === undefined ? undefined : { item: row.item, status: JSON.parse(row.comment) as Status };
}

const api = start('dist/src/server.js');
await until(async () => ((await fetch(`${BASE}/server/ping`)).ok ? true : undefined), 200);

const results: string[] = [];
try {
  for (const rows of EXPORT_ROWS) {
    const worker = start('dist/workers/index.js', WORKER_FLAGS);
    const pid = worker.pid ?? 0;
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const idle = memory(pid).rss;
    const previous = (await latestExport())?.item;
    const started = performance.now();
    const res = await fetch(`${BASE}/utils/export/bench_export`, {
      method: 'POST',
      headers: { ...headers, 'Content-Type': 'application/json' },
      body: JSON.stringify({ format: 'csv', query: { fields: ['*'], limit: rows } }),
    });
    if (res.status !== 204) throw new Error(`export answered ${res.status}: ${await res.text()}`);
    const samples: string[] = [];
    let nextSample = 0;
    const done = await until(async () => {
      const latest = await latestExport();
      if (latest === undefined || latest.item === previous) return undefined;
      const { rss } = memory(pid);
      if (latest.status.rows_done >= nextSample) {
        samples.push(`${Math.round(latest.status.rows_done / 1000)}k: ${rss.toFixed(0)}`);
        nextSample = latest.status.rows_done + rows / 4;
      }
      if (latest.status.status === 'failed') throw new Error(`export failed: ${JSON.stringify(latest.status)}`);
      return latest.status.status === 'done' ? latest.status : undefined;
    }, 250);
    const seconds = (performance.now() - started) / 1000;
    const { peak } = memory(pid);
    const file = (await (await fetch(`${BASE}/files/${String(done.file)}?fields=filesize`, { headers })).json()) as {
      data: { filesize: number };
    };
    const megabytes = Number(file.data.filesize) / 1024 / 1024;
    results.push(
      `| export csv | ${rows.toLocaleString('en')} | ${seconds.toFixed(1)} s | ${Math.round(rows / seconds).toLocaleString('en')} rows/s | ${megabytes.toFixed(0)} MB | idle ${idle.toFixed(0)}, ${samples.join(', ')}; **peak ${peak.toFixed(0)} MB** |`,
    );
    console.error(results.at(-1));
    await stop(worker);
  }

  // IMPORT_ROWS=0: exports only.
  if (IMPORT_ROWS > 0) {
    const lines = ['title,views,published'];
    for (let i = 1; i <= IMPORT_ROWS; i += 1) lines.push(`"Imported ${i}",${i % 997},${i % 2 === 0}`);
    const csv = `${lines.join('\n')}\n`;
    const form = new FormData();
    form.append('file', new Blob([csv], { type: 'text/csv' }), 'import.csv');
    const started = performance.now();
    const res = await fetch(`${BASE}/utils/import/bench_import`, { method: 'POST', headers, body: form });
    const seconds = (performance.now() - started) / 1000;
    if (res.status !== 200) throw new Error(`import answered ${res.status}: ${await res.text()}`);
    const [{ n }] = (await db('bench_import').count({ n: '*' })) as [{ n: string }];
    if (Number(n) !== IMPORT_ROWS) throw new Error(`imported ${n} rows, expected ${IMPORT_ROWS}`);
    const apiPeak = memory(api.pid ?? 0).peak;
    results.push(
      `| import csv | ${IMPORT_ROWS.toLocaleString('en')} | ${seconds.toFixed(1)} s | ${Math.round(IMPORT_ROWS / seconds).toLocaleString('en')} rows/s | ${(csv.length / 1024 / 1024).toFixed(1)} MB | API peak ${apiPeak.toFixed(0)} MB |`,
    );
    console.error(results.at(-1));
  }
} finally {
  await stop(api);
  await db.destroy();
  rmSync(dir, { recursive: true, force: true });
  await dropNamespace(env['CACHE_NAMESPACE'] ?? '');
}

/** The run's Redis keys (bull's queue, the schema cache). */
async function dropNamespace(namespace: string): Promise<void> {
  const redis = new Redis(env['REDIS'] ?? '');
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${namespace}:*`, 'COUNT', 500);
    if (keys.length > 0) await redis.del(...keys);
    cursor = next;
  } while (cursor !== '0');
  redis.disconnect();
}

console.log('| what | rows | wall time | throughput | file | RSS MB of the worker (import: API) |');
console.log('|---|---|---|---|---|---|');
for (const row of results) console.log(row);
