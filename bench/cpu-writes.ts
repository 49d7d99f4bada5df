/**
 * CPU per single write of the service process (not timed throughput: the machine is shared).
 *   SERVICE_PID=<pid> node --import tsx bench/cpu-writes.ts
 * Env: SERVICE_URL (default http://127.0.0.1:8055), TOKEN, AMOUNT (requests per scenario, 3000),
 * CONNECTIONS (10). Reads the service's user+system CPU from /proc before and after AMOUNT
 * requests of each scenario of run-writes.ts (after as many again to warm up).
 */
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';

const SERVICE_URL = process.env['SERVICE_URL'] ?? 'http://127.0.0.1:8055';
const TOKEN = process.env['TOKEN'] ?? 'bench-static-admin-token';
const AMOUNT = Number(process.env['AMOUNT'] ?? 3000);
const CONNECTIONS = Number(process.env['CONNECTIONS'] ?? 10);
const PID = Number(process.env['SERVICE_PID']);
const TICK_MS = 1000 / 100;

function cpuMs(): number {
  const fields = readFileSync(`/proc/${PID}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

async function scenario(name: string, method: 'POST' | 'PATCH', next: (n: number) => { path: string; body: string }) {
  let n = Math.floor(Math.random() * 40_000);
  const run = () =>
    autocannon({
      url: SERVICE_URL,
      method,
      amount: AMOUNT,
      connections: CONNECTIONS,
      headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
      requests: [{ setupRequest: (req) => ({ ...req, ...next(n++) }) }],
    });
  await run();
  const before = cpuMs();
  const result = await run();
  const used = cpuMs() - before;
  if (result.non2xx > 0 || result.errors > 0)
    console.error(`${name}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  console.log(`| ${name} | ${(used / AMOUNT).toFixed(3)} ms CPU/request | ${result.requests.average} req/s |`);
}

const article = (i: number) => ({
  title: `Bench article ${i}`,
  status: 'draft',
  author: 1 + (i % 1000),
  category: 1 + (i % 20),
});
await scenario('single create + audit', 'POST', (n) => ({
  path: '/items/articles?fields=id',
  body: JSON.stringify(article(n)),
}));
await scenario('single update + audit', 'PATCH', (n) => ({
  path: `/items/articles/${50_001 + (n % 49_000)}?fields=id`,
  body: JSON.stringify({ title: `Updated ${n}` }),
}));
