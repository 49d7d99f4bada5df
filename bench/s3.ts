/**
 * S3 storage benchmark, self-contained on the local PostgreSQL and Redis, with an S3-compatible
 * server (s3rver) started here on a loopback port:
 *   make build && node --import tsx bench/s3.ts
 * Starts the built API (dist/src/server.js) and a worker (dist/workers/index.js, as `make
 * worker` runs it) with STORAGE_LOCATIONS=s3,local, then
 *  1. uploads FILE_MB (default 1024) MB through POST /files into the bucket, streamed from a
 *     generator on this side (never held in memory anywhere), sampling the API's RSS;
 *  2. downloads it through GET /assets/:id, counting the bytes, sampling the API's RSS;
 *  3. exports EXPORT_ROWS (default 1,000,000) generated rows to CSV through the worker, RUNS
 *     (default 3) times to each location alternately (`file.storage` = s3, local), timing
 *     request → status done and reading the worker's RSS.
 * Prints markdown rows. BENCH_S3_DB (default svc_bench_s3) is dropped and created.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Redis } from 'ioredis';
import knex from 'knex';
import { startS3Server } from '../test/support/s3-server.js';
import { createGeneratedRows } from './generated-rows.js';
import { makefileFlags } from './service-start.js';

const DB = process.env['BENCH_S3_DB'] ?? 'svc_bench_s3';
const PORT = process.env['BENCH_S3_PORT'] ?? '8077';
const FILE_MB = Number(process.env['FILE_MB'] ?? 1024);
const EXPORT_ROWS = Number(process.env['EXPORT_ROWS'] ?? 1_000_000);
const RUNS = Number(process.env['RUNS'] ?? 3);
const TOKEN = 'bench-s3-token';
const BASE = `http://127.0.0.1:${PORT}`;
const USER = process.env['DB_USER'] ?? 'root';
const MiB = 1024 * 1024;
const headers = { Authorization: `Bearer ${TOKEN}` };

const dir = mkdtempSync(join(tmpdir(), 'svc-bench-s3-'));
const s3 = await startS3Server('svc-bench');
const env: Record<string, string> = {
  PATH: process.env['PATH'] ?? '',
  NODE_ENV: 'production',
  DB_CLIENT: 'pg',
  DB_HOST: '127.0.0.1',
  DB_USER: USER,
  DB_DATABASE: DB,
  REDIS: process.env['REDIS'] ?? 'redis://127.0.0.1:6379',
  CACHE_NAMESPACE: `bench-s3-${Date.now().toString(36)}`,
  ADMIN_TOKEN: TOKEN,
  ADMIN_PASSWORD: 'bench-password',
  SECRET: 'bench',
  PORT,
  HOST: '127.0.0.1',
  LOG_LEVEL: 'warn',
  LOG_STYLE: 'raw',
  ...s3.env('s3'),
  STORAGE_LOCATIONS: 's3,local',
  STORAGE_LOCAL_ROOT: join(dir, 'uploads'),
  TEMP_PATH: join(dir, 'tmp'),
};

const admin = knex({ client: 'pg', connection: { host: '127.0.0.1', user: USER, database: 'postgres' } });
await admin.raw('DROP DATABASE IF EXISTS ?? WITH (FORCE)', [DB]);
await admin.raw('CREATE DATABASE ??', [DB]);
await admin.destroy();
const db = knex({ client: 'pg', connection: { host: '127.0.0.1', user: USER, database: DB } });
await createGeneratedRows(db, 'bench_export', EXPORT_ROWS);
console.error(`dataset: ${EXPORT_ROWS} rows in bench_export`);

/** The worker's and the API's node flags: WORKER_NODE_FLAGS and API_NODE_FLAGS, by default the Makefile's. */
const flagsOf = (name: string) => {
  const given = process.env[name];
  return given === undefined ? makefileFlags(name) : given.split(' ').filter((f) => f !== '');
};
const WORKER_FLAGS = flagsOf('WORKER_NODE_FLAGS');
const API_FLAGS = flagsOf('API_NODE_FLAGS');

function start(entry: string, flags: readonly string[] = []): ChildProcess {
  return spawn(process.execPath, [...flags, entry], { env, stdio: ['ignore', 'inherit', 'inherit'] });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

function memory(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) / 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

/** Samples a process's RSS every 200 ms while `work` runs: the lowest and highest seen. */
async function sampled<T>(pid: number, work: () => Promise<T>): Promise<{ result: T; min: number; max: number }> {
  let min = Infinity;
  let max = 0;
  const sample = () => {
    const { rss } = memory(pid);
    min = Math.min(min, rss);
    max = Math.max(max, rss);
  };
  sample();
  const timer = setInterval(sample, 200);
  try {
    const result = await work();
    sample();
    return { result, min, max };
  } finally {
    clearInterval(timer);
  }
}

async function until<T>(probe: () => Promise<T | undefined>, intervalMs: number): Promise<T> {
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** `bytes` of generated content, 1 MiB a chunk, produced as the reader pulls. */
function generated(bytes: number): Readable {
  const chunk = Buffer.alloc(MiB, 'svc-bench-');
  let sent = 0;
  return new Readable({
    read() {
      if (sent >= bytes) {
        this.push(null);
        return;
      }
      const part = chunk.subarray(0, Math.min(MiB, bytes - sent));
      sent += part.length;
      this.push(part);
    },
  });
}

/** POST /files with one file part streamed from `content` (a hand-written multipart body). */
function uploadStream(content: Readable, bytes: number): Promise<{ id: string; filesize: number }> {
  const boundary = `svc-bench-${Date.now()}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\n` +
      `Content-Type: application/octet-stream\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return new Promise((resolve, reject) => {
    const req = request(
      `${BASE}/files`,
      {
        method: 'POST',
        headers: {
          ...headers,
          'Content-Type': `multipart/form-data; boundary=${boundary}`,
          'Content-Length': String(head.length + bytes + tail.length),
        },
      },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => {
          if (res.statusCode !== 200) reject(new Error(`upload answered ${res.statusCode}: ${text}`));
          else resolve((JSON.parse(text) as { data: { id: string; filesize: number } }).data);
        });
      },
    );
    req.on('error', reject);
    const body = Readable.from(
      (async function* () {
        yield head;
        yield* content;
        yield tail;
      })(),
    );
    pipeline(body, req).catch(reject);
  });
}

interface Status {
  status: string;
  rows_done: number;
  file: string | null;
}

async function latestExport(): Promise<{ item: string; status: Status } | undefined> {
  const res = await fetch(`${BASE}/activity?filter[action][_eq]=export&sort=-id&limit=1&fields=item,comment`, {
    headers,
  });
  const row = ((await res.json()) as { data: { item: string; comment: string }[] }).data[0];
  return row === undefined ? undefined : { item: row.item, status: JSON.parse(row.comment) as Status };
}

const results: string[] = [];
const api = start('dist/src/server.js', API_FLAGS);
await until(async () => ((await fetch(`${BASE}/server/ping`)).ok ? true : undefined), 200);
const worker = start('dist/workers/index.js', WORKER_FLAGS);
const apiPid = api.pid ?? 0;
const workerPid = worker.pid ?? 0;
try {
  await new Promise((resolve) => setTimeout(resolve, 2000));
  const bytes = FILE_MB * MiB;

  const idle = memory(apiPid).rss;
  let started = performance.now();
  const up = await sampled(apiPid, () => uploadStream(generated(bytes), bytes));
  let seconds = (performance.now() - started) / 1000;
  if (Number(up.result.filesize) !== bytes) throw new Error(`stored ${up.result.filesize} bytes, sent ${bytes}`);
  results.push(
    `| upload to s3 | ${FILE_MB} MB | ${seconds.toFixed(1)} s | ${(FILE_MB / seconds).toFixed(0)} MB/s | API idle ${idle.toFixed(0)}, during ${up.min.toFixed(0)}–**${up.max.toFixed(0)}** |`,
  );
  console.error(results.at(-1));

  started = performance.now();
  const down = await sampled(apiPid, async () => {
    const res = await fetch(`${BASE}/assets/${up.result.id}`, { headers });
    if (res.status !== 200 || res.body === null) throw new Error(`download answered ${res.status}`);
    let received = 0;
    for await (const chunk of res.body) received += (chunk as Uint8Array).length;
    return received;
  });
  seconds = (performance.now() - started) / 1000;
  if (down.result !== bytes) throw new Error(`downloaded ${down.result} bytes of ${bytes}`);
  results.push(
    `| download from s3 | ${FILE_MB} MB | ${seconds.toFixed(1)} s | ${(FILE_MB / seconds).toFixed(0)} MB/s | API during ${down.min.toFixed(0)}–**${down.max.toFixed(0)}** |`,
  );
  console.error(results.at(-1));
  await fetch(`${BASE}/files/${up.result.id}`, { method: 'DELETE', headers });

  for (let run = 1; run <= RUNS; run += 1) {
    for (const storage of ['s3', 'local']) {
      const previous = (await latestExport())?.item;
      started = performance.now();
      const exported = await sampled(workerPid, async () => {
        const res = await fetch(`${BASE}/utils/export/bench_export`, {
          method: 'POST',
          headers: { ...headers, 'Content-Type': 'application/json' },
          body: JSON.stringify({ format: 'csv', query: { fields: ['*'], limit: EXPORT_ROWS }, file: { storage } }),
        });
        if (res.status !== 204) throw new Error(`export answered ${res.status}: ${await res.text()}`);
        return until(async () => {
          const latest = await latestExport();
          if (latest === undefined || latest.item === previous) return undefined;
          if (latest.status.status === 'failed') throw new Error(`export failed: ${JSON.stringify(latest.status)}`);
          return latest.status.status === 'done' ? latest.status : undefined;
        }, 250);
      });
      seconds = (performance.now() - started) / 1000;
      const file = (await (
        await fetch(`${BASE}/files/${String(exported.result.file)}?fields=filesize,storage`, { headers })
      ).json()) as { data: { filesize: number; storage: string } };
      if (file.data.storage !== storage) throw new Error(`export went to ${file.data.storage}, not ${storage}`);
      results.push(
        `| export csv to ${storage} (run ${run}) | ${EXPORT_ROWS.toLocaleString('en')} rows, ${(Number(file.data.filesize) / MiB).toFixed(0)} MB | ${seconds.toFixed(1)} s | ${Math.round(EXPORT_ROWS / seconds).toLocaleString('en')} rows/s | worker during ${exported.min.toFixed(0)}–**${exported.max.toFixed(0)}** |`,
      );
      console.error(results.at(-1));
      await fetch(`${BASE}/files/${String(exported.result.file)}`, { method: 'DELETE', headers });
    }
  }
} finally {
  await stop(worker);
  await stop(api);
  await db.destroy();
  await s3.close();
  rmSync(dir, { recursive: true, force: true });
  const redis = new Redis(env['REDIS'] ?? '');
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${env['CACHE_NAMESPACE'] ?? ''}:*`, 'COUNT', 500);
    if (keys.length > 0) await redis.del(...keys);
    cursor = next;
  } while (cursor !== '0');
  redis.disconnect();
}

console.log('| what | size | wall time | throughput | RSS MB (idle; during: lowest–**highest**) |');
console.log('|---|---|---|---|---|');
for (const row of results) console.log(row);
