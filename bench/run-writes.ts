/**
 * Write benchmark: single create, single update and a bulk create of 10,000 items, each with
 * its full audit trail, against the service and against the write floor; the single writes
 * also against the one-statement floor (write-floor.ts: row and audit in one prepared
 * statement, no transaction), the strongest there is.
 *   node --import tsx bench/run-writes.ts
 * Env as run-reads.ts (SERVICE_URL, FLOOR_URL, TOKEN, DURATION, CONNECTIONS, WARMUP, SERVICE_PID and
 * FLOOR_PID: each single write's CPU per request, the service's against the one-statement
 * floor's). Updates touch
 * articles above 50,000 (bench/data/README.md); creates add rows (re-run setup.sh
 * for a pristine dataset).
 */
import autocannon from 'autocannon';
import { withCpuPerRequest } from './service-start.js';
import { benchArticle } from './scenarios.js';

const SERVICE_URL = process.env['SERVICE_URL'] ?? 'http://127.0.0.1:8055';
const FLOOR_URL = process.env['FLOOR_URL'] ?? 'http://127.0.0.1:8099';
const TOKEN = process.env['TOKEN'] ?? 'bench-static-admin-token';
const DURATION = Number(process.env['DURATION'] ?? 10);
const CONNECTIONS = Number(process.env['CONNECTIONS'] ?? 10);
const BULK = Number(process.env['BULK'] ?? 10_000);
/** Seconds of the same writes before each measured run: both processes' JIT compilers settle first. */
const WARMUP = Number(process.env['WARMUP'] ?? 3);
const headers = { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' };
const pidOf = (name: string) => (process.env[name] === undefined ? undefined : Number(process.env[name]));
const SERVICE_PID = pidOf('SERVICE_PID');
const FLOOR_PID = pidOf('FLOOR_PID');

/** Requests a second, and the CPU milliseconds `pid` spent per request (where given). */
async function rate(
  url: string,
  method: 'POST' | 'PATCH',
  body: (n: number) => { path: string; body: string },
  pid: number | undefined,
): Promise<{ rps: number; cpuMs: number | undefined }> {
  let n = 0;
  const run = (duration: number) =>
    autocannon({
      url,
      headers,
      method,
      duration,
      connections: CONNECTIONS,
      requests: [
        {
          setupRequest: (req) => {
            const next = body(n++);
            return { ...req, path: next.path, body: next.body };
          },
        },
      ],
    });
  if (WARMUP > 0) await run(WARMUP);
  const { result, cpuMs } = await withCpuPerRequest(pid, () => run(DURATION));
  if (result.non2xx > 0 || result.errors > 0)
    console.error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return { rps: result.requests.average, cpuMs };
}

/** Seconds for one request creating BULK items (median of three). */
async function bulk(url: string): Promise<number> {
  const times: number[] = [];
  for (let run = 0; run < 3; run++) {
    const body = JSON.stringify(Array.from({ length: BULK }, (_, i) => benchArticle(i)));
    const started = performance.now();
    const res = await fetch(`${url}/items/articles?fields=id`, { method: 'POST', headers, body });
    if (!res.ok) throw new Error(`${url}: ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
    times.push((performance.now() - started) / 1000);
  }
  return times.sort((a, b) => a - b)[1] ?? NaN;
}

const rows: string[] = [];
/**
 * A row: the service, the floor, and (single writes) the one-statement floor with the CPU per
 * request of the service and of that floor where both pids were given, each ratio the service's.
 */
const row = (
  name: string,
  service: number,
  floor: number,
  unit: string,
  higherIsBetter: boolean,
  one?: { rps: number; cpu: string },
) => {
  const ratio = (other: number) => (higherIsBetter ? service / other : other / service).toFixed(2);
  const shown = (value: number) => `${value.toFixed(unit === 's' ? 2 : 0)} ${unit}`;
  const oneColumns = one === undefined ? '– | – | – | –' : `${shown(one.rps)} | ${ratio(one.rps)} | ${one.cpu}`;
  rows.push(`| ${name} | ${shown(service)} | ${shown(floor)} | ${ratio(floor)} | ${oneColumns} |`);
  console.error(rows.at(-1));
};

const create = (n: number) => ({ path: '/items/articles?fields=id', body: JSON.stringify(benchArticle(n)) });
const update = (n: number) => ({
  path: `/items/articles/${50_001 + (n % 49_000)}?fields=id`,
  body: JSON.stringify({ title: `Updated ${n}` }),
});
/** The same request to the floor's one-statement write (floor-server.ts `?floor=one`). */
const inOneStatement = (request: (n: number) => { path: string; body: string }) => (n: number) => {
  const { path, body } = request(n);
  return { path: `${path}&floor=one`, body };
};
/** A single write against both floors: the row, with the CPU against the one-statement floor's. */
async function singleWrite(
  name: string,
  method: 'POST' | 'PATCH',
  request: (n: number) => { path: string; body: string },
) {
  const service = await rate(SERVICE_URL, method, request, SERVICE_PID);
  const floor = await rate(FLOOR_URL, method, request, undefined);
  const one = await rate(FLOOR_URL, method, inOneStatement(request), FLOOR_PID);
  const cpu =
    service.cpuMs === undefined || one.cpuMs === undefined
      ? '– | –'
      : `${(service.cpuMs * 1000).toFixed(0)} / ${(one.cpuMs * 1000).toFixed(0)} | ${(service.cpuMs / one.cpuMs).toFixed(2)}`;
  row(name, service.rps, floor.rps, 'req/s', true, { rps: one.rps, cpu });
}
await singleWrite('single create + audit', 'POST', create);
await singleWrite('single update + audit', 'PATCH', update);
row(`bulk create of ${BULK} + audit`, await bulk(SERVICE_URL), await bulk(FLOOR_URL), 's', false);

console.log(
  '| scenario | service | floor | service / floor | one-statement floor | service / it | CPU µs per request, service / it | CPU ratio |',
);
console.log('|---|---|---|---|---|---|---|---|');
for (const r of rows) console.log(r);
