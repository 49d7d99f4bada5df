/**
 * `limit=-1` over 1M rows through REST (issue #4): the service's peak RSS and the time to
 * stream the whole answer, which the client reads and discards.
 *   SERVICE_PID=<pid of the running service> node --import tsx bench/run-unlimited.ts
 * Env: SERVICE_URL, TOKEN, BENCH_DB (svc_bench: the service's database), ROWS (1000000).
 * Creates (once) the table bench_stream in BENCH_DB, then asks the service to re-read the schema.
 */
import { readFileSync } from 'node:fs';
import knex from 'knex';
import { createGeneratedRows } from './generated-rows.js';

const SERVICE_URL = process.env['SERVICE_URL'] ?? 'http://127.0.0.1:8055';
const TOKEN = process.env['TOKEN'] ?? 'bench-static-admin-token';
const DB = process.env['BENCH_DB'] ?? 'svc_bench';
const ROWS = Number(process.env['ROWS'] ?? 1_000_000);
const PID = process.env['SERVICE_PID'];
if (PID === undefined) throw new Error('SERVICE_PID: the pid of the running service');
const headers = { Authorization: `Bearer ${TOKEN}` };

/** Resident and peak resident memory of the service, in MB (Linux /proc). */
function memory(): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${PID}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? NaN);
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}

const db = knex({
  client: 'pg',
  connection: { host: '127.0.0.1', user: process.env['PGUSER'] ?? 'root', database: DB },
});
if (!(await db.schema.hasTable('bench_stream'))) await createGeneratedRows(db, 'bench_stream', ROWS);
await db.destroy();
const cleared = await fetch(`${SERVICE_URL}/utils/cache/clear`, { method: 'POST', headers });
if (!cleared.ok) throw new Error(`cache clear: ${cleared.status}`);

const before = memory();
const started = performance.now();
const res = await fetch(`${SERVICE_URL}/items/bench_stream?limit=-1`, { headers });
if (!res.ok || res.body === null) throw new Error(`read: ${res.status} ${await res.text()}`);
let bytes = 0;
let peakRss = before.rss;
const reader = res.body.getReader();
for (let chunk = await reader.read(); chunk.done !== true; chunk = await reader.read()) {
  bytes += chunk.value.byteLength;
  peakRss = Math.max(peakRss, memory().rss);
}
const seconds = (performance.now() - started) / 1000;
const after = memory();
console.log(`| rows | seconds | MB sent | service RSS before | peak RSS during (sampled) | VmHWM after |`);
console.log(`|---|---|---|---|---|---|`);
console.log(
  `| ${ROWS.toLocaleString('en')} | ${seconds.toFixed(1)} | ${(bytes / 1024 / 1024).toFixed(0)} | ${before.rss.toFixed(0)} MB | ${peakRss.toFixed(0)} MB | ${after.peak.toFixed(0)} MB (before: ${before.peak.toFixed(0)} MB) |`,
);
