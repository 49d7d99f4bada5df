/**
 * Read benchmark: each scenario against the service and against the floor, with autocannon.
 *   node --import tsx bench/run-reads.ts
 * Env: SERVICE_URL (http://127.0.0.1:8055), FLOOR_URL (http://127.0.0.1:8099), TOKEN (admin
 * static token), DURATION seconds per run (10), CONNECTIONS (10), WARMUP seconds of load before
 * each measured run (3: both processes' JIT compilers settle first); SERVICE_PID and FLOOR_PID
 * (Linux): each one's CPU per request over its measured runs (bench/service-start.ts
 * `processStat`: its threads' schedstat), and their ratio. Prints a markdown table.
 */
import autocannon from 'autocannon';
import { isDeepStrictEqual } from 'node:util';
import { READ_SCENARIOS } from './scenarios.js';
import { withCpuPerRequest } from './service-start.js';

const SERVICE_URL = process.env['SERVICE_URL'] ?? 'http://127.0.0.1:8055';
const FLOOR_URL = process.env['FLOOR_URL'] ?? 'http://127.0.0.1:8099';
const TOKEN = process.env['TOKEN'] ?? 'bench-static-admin-token';
const DURATION = Number(process.env['DURATION'] ?? 10);
const CONNECTIONS = Number(process.env['CONNECTIONS'] ?? 10);
const WARMUP = Number(process.env['WARMUP'] ?? 3);
const headers = { Authorization: `Bearer ${TOKEN}` };
const pidOf = (name: string) => (process.env[name] === undefined ? undefined : Number(process.env[name]));
const SERVICE_PID = pidOf('SERVICE_PID');
const FLOOR_PID = pidOf('FLOOR_PID');

async function measure(
  url: string,
  pid: number | undefined,
): Promise<{ rps: number; p99: number; errors: number; cpuMs: number | undefined }> {
  if (WARMUP > 0) await autocannon({ url, headers, duration: WARMUP, connections: CONNECTIONS });
  const { result, cpuMs } = await withCpuPerRequest(pid, () =>
    autocannon({ url, headers, duration: DURATION, connections: CONNECTIONS }),
  );
  return { rps: result.requests.average, p99: result.latency.p99, errors: result.errors + result.non2xx, cpuMs };
}

/** CPU µs per request, service / floor, and their ratio: where both pids were given. */
function cpuCells(service: number | undefined, floor: number | undefined): string {
  if (service === undefined || floor === undefined) return '– | –';
  return `${(service * 1000).toFixed(0)} / ${(floor * 1000).toFixed(0)} | ${(service / floor).toFixed(2)}`;
}

/** Timestamps differ only in spelling (Z vs +00:00): compare them as instants. */
function normalize(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalize);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normalize(v)]));
  }
  if (typeof value === 'string' && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/.test(value)) return new Date(value).toISOString();
  return value;
}

const rows: string[] = [];
for (const scenario of READ_SCENARIOS) {
  const [service, floor] = await Promise.all([
    fetch(SERVICE_URL + scenario.path, { headers }).then((r) => r.json()),
    fetch(FLOOR_URL + scenario.path).then((r) => r.json()),
  ]);
  const same = isDeepStrictEqual(normalize(service), normalize(floor));
  const s = await measure(SERVICE_URL + scenario.path, SERVICE_PID);
  const f = await measure(FLOOR_URL + scenario.path, FLOOR_PID);
  const ratio = f.rps === 0 ? 0 : s.rps / f.rps;
  rows.push(
    `| ${scenario.name} | ${s.rps.toFixed(0)} | ${f.rps.toFixed(0)} | ${ratio.toFixed(2)} | ${s.p99} / ${f.p99} | ${cpuCells(s.cpuMs, f.cpuMs)} | ${same ? 'yes' : 'NO'} | ${s.errors} |`,
  );
  console.error(rows.at(-1));
}
console.log(
  `| scenario | service req/s | floor req/s | ratio | p99 ms (service / floor) | CPU µs per request (service / floor) | CPU ratio | same body | service errors |`,
);
console.log(`|---|---|---|---|---|---|---|---|---|`);
for (const row of rows) console.log(row);
