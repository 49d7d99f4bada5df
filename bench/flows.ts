/**
 * Flows on the job queue (issue 44): the service and a worker as their own processes (dist/
 * with the Makefile's flags when built, else from source), Redis, a SQLite file by default (or
 * the DB_* of the environment), a loopback HTTP receiver here. Three figures, RUNS times each:
 *
 * (a) after-commit deliveries per second: one event flow (items.create → `request` to the
 *     receiver), DELIVERIES items created in one request, timed from the request to the last
 *     delivery; against the floor, the same number of POSTs sent straight to the receiver,
 *     CONNECTIONS at a time (FLOWS_CONCURRENCY and JOBS_CONCURRENCY are CONNECTIONS too).
 * (b) single-write latency: autocannon, one connection, WRITES creates of one item into a
 *     collection with FLOWED after-commit flows attached, and into one with none, in alternate
 *     chunks of 21; the ratio of their mean latencies (target ≤ 1.1) and of their medians, each
 *     answer timed, a chunk's first (its connection's opening) set aside; and the API's CPU per
 *     write. The write's own path: the queue is paused (bull's global pause, which also holds
 *     the posted events) meanwhile, so what the flowed writes pay is matching their flows and
 *     posting the event, not the runs; their deliveries finish before (c).
 * (c) WRITES plain creates, then WRITES flowed ones with the worker running their flows beside
 *     them, on the same cores (and, on SQLite, for the same write lock: every run takes and
 *     settles its claim in the file).
 *
 *   node --import tsx bench/flows.ts
 *   DB_CLIENT=pg DB_HOST=127.0.0.1 DB_USER=root DB_DATABASE=svc_bench_flows node --import tsx bench/flows.ts
 */
import autocannon from 'autocannon';
import Bull from 'bull';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest, Agent } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { ServiceProcess } from '../test/support/service-process.js';
import { adminCall, benchDatabaseEnv, processStat, startBenchProcess } from './service-start.js';

const RUNS = Number(process.env['RUNS'] ?? 3);
const DELIVERIES = Number(process.env['DELIVERIES'] ?? 2000);
const CONNECTIONS = Number(process.env['CONNECTIONS'] ?? 10);
const WRITES = Number(process.env['WRITES'] ?? 300);
const FLOWED = Number(process.env['FLOWED'] ?? 10);
const TOKEN = 'bench-admin-token';

const dir = mkdtempSync(join(tmpdir(), 'svc-bench-flows-'));
const NAMESPACE = `bench-flows-${randomUUID()}`;
const env = {
  ...benchDatabaseEnv(dir, 'flows.sqlite'),
  SECRET: 'bench',
  ADMIN_TOKEN: TOKEN,
  ADMIN_PASSWORD: 'bench-password',
  LOG_LEVEL: 'info',
  EMAIL_VERIFY_SETUP: 'false',
  NODE_ENV: 'production',
  REDIS: process.env['REDIS'] ?? 'redis://127.0.0.1:6379',
  CACHE_NAMESPACE: NAMESPACE,
  // The receiver is on loopback, which the default deny list refuses.
  IMPORT_IP_DENY_LIST: '169.254.0.0/16',
  FLOWS_CONCURRENCY: String(CONNECTIONS),
  JOBS_CONCURRENCY: String(CONNECTIONS),
};

/** A receiver that counts what it is sent. */
async function startReceiver(): Promise<{ url: string; count: () => number; close: () => Promise<void> }> {
  let count = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      count += 1;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    count: () => count,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function call(base: string, method: string, path: string, body?: unknown): Promise<unknown> {
  return adminCall(base, TOKEN, method, path, body);
}

async function createCollection(base: string, collection: string): Promise<void> {
  await call(base, 'POST', '/collections', {
    collection,
    schema: {},
    meta: {},
    fields: [
      { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } },
      { field: 'title', type: 'string', schema: {} },
    ],
  });
}

/** An after-commit flow on `collection`'s creates: one `request` to the receiver. */
async function attachFlow(base: string, collection: string, receiver: string, n: number): Promise<void> {
  const op = randomUUID();
  await call(base, 'POST', '/flows', {
    name: `${collection} ${n}`,
    status: 'active',
    accountability: null,
    trigger: 'event',
    options: { type: 'action', scope: ['items.create'], collections: [collection] },
    operation: op,
    operations: [
      {
        id: op,
        key: 'tell',
        type: 'request',
        options: { url: `${receiver}/${collection}`, method: 'POST', body: '{{ $trigger.payload }}' },
      },
    ],
  });
}

async function until(what: string, check: () => boolean, timeoutMs = 300_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The floor of (a): `amount` POSTs straight to the receiver, CONNECTIONS at a time, per second. */
async function directPerSecond(receiver: string, amount: number): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const body = JSON.stringify({ title: 'direct' });
  const post = () =>
    new Promise<void>((resolve, reject) => {
      const req = httpRequest(
        `${receiver}/direct`,
        { method: 'POST', agent, headers: { 'content-type': 'application/json' } },
        (res) => {
          res.resume();
          res.on('end', resolve);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (next < amount) {
        next += 1;
        await post();
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  return amount / seconds;
}

interface Writes {
  readonly mean: number;
  readonly p99: number;
  /** (b): the median answer. */
  readonly median?: number;
}

/** One autocannon run of `amount` single-item creates on one connection: each answer's latency (ms), in order. */
async function timedWrites(base: string, collection: string, amount: number): Promise<number[]> {
  const latencies: number[] = [];
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const options = {
      url: `${base}/items/${collection}`,
      method: 'POST' as const,
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'bench' }),
      connections: 1,
      amount,
    };
    const instance = autocannon(options, (error, done) => {
      if (error !== null && error !== undefined) reject(error instanceof Error ? error : new Error(String(error)));
      else resolve(done);
    });
    instance.on('response', (_client, _status, _bytes, responseTime) => {
      latencies.push(responseTime);
    });
  });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${collection}: ${result.non2xx} non-2xx answers`);
  return latencies;
}

async function singleWrites(base: string, collection: string, amount = WRITES): Promise<Writes> {
  return summary(await timedWrites(base, collection, amount));
}

function summary(latencies: readonly number[]): Writes {
  const sorted = [...latencies].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return { mean: sorted.reduce((sum, ms) => sum + ms, 0) / sorted.length, p99: at(0.99), median: at(0.5) };
}

/** Writes in chunks of this many, plain and flowed in turn: the machine's load changes by the second. */
const CHUNK = 21;

/**
 * (b): WRITES creates into each collection, in alternate chunks, with the API's CPU per write
 * (schedstat: steadier than latency on a loaded machine). Each chunk is an autocannon run on a
 * new connection, whose first answer also carries the connection's opening and whatever the
 * chunk before left running (the other kind's event work): set aside, the latency figures are
 * every other answer's, the same kind following the same kind as in a steady stream of writes.
 */
async function alternateWrites(
  base: string,
  apiPid: number,
): Promise<Record<'plain' | 'flowed', Writes & { cpuMs: number; firstMean: number }>> {
  const cpuMs = { plain: 0, flowed: 0 };
  const steady: Record<'plain' | 'flowed', number[]> = { plain: [], flowed: [] };
  const firsts: Record<'plain' | 'flowed', number[]> = { plain: [], flowed: [] };
  const chunks = Math.ceil(WRITES / CHUNK);
  for (let i = 0; i < chunks; i++) {
    // Each kind goes first in every other round: neither always follows the other.
    for (const kind of i % 2 === 0 ? (['plain', 'flowed'] as const) : (['flowed', 'plain'] as const)) {
      const cpu = processStat(apiPid).cpuMs;
      const [first = 0, ...rest] = await timedWrites(base, `bench_${kind}`, CHUNK);
      cpuMs[kind] += (processStat(apiPid).cpuMs - cpu) / CHUNK / chunks;
      firsts[kind].push(first);
      steady[kind].push(...rest);
    }
  }
  const of = (kind: 'plain' | 'flowed') => ({
    ...summary(steady[kind]),
    cpuMs: cpuMs[kind],
    firstMean: summary(firsts[kind]).mean,
  });
  return { plain: of('plain'), flowed: of('flowed') };
}

const processes: ServiceProcess[] = [];
const receiver = await startReceiver();
// The service's queue (job-queue.ts's name and prefix), paused and resumed around (b).
const queue = new Bull('jobs', env.REDIS, { prefix: `${NAMESPACE}:bull` });
try {
  const api = await startBenchProcess('api', env, { builtMs: 240_000, sourceMs: 240_000 });
  processes.push(api);
  processes.push(await startBenchProcess('worker', env, { builtMs: 240_000, sourceMs: 240_000 }));
  const base = api.url;
  for (const collection of ['bench_delivered', 'bench_plain', 'bench_flowed']) await createCollection(base, collection);
  await attachFlow(base, 'bench_delivered', receiver.url, 0);
  for (let n = 0; n < FLOWED; n++) await attachFlow(base, 'bench_flowed', receiver.url, n);
  // The API reads the event flows again after a second.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  // Warm up both sides: a few writes and their deliveries.
  let expected = 0;
  for (const collection of ['bench_delivered', 'bench_plain', 'bench_flowed']) {
    for (let i = 0; i < 20; i++) await call(base, 'POST', `/items/${collection}`, { title: 'warm' });
  }
  expected += 20 + 20 * FLOWED;
  await until('the warm-up deliveries', () => receiver.count() >= expected);

  const deliveries: string[] = [];
  const latencies: string[] = [];
  const besideRuns: string[] = [];
  for (let run = 1; run <= RUNS; run++) {
    const floor = await directPerSecond(receiver.url, DELIVERIES);
    expected = receiver.count() + DELIVERIES;
    const started = performance.now();
    await call(
      base,
      'POST',
      '/items/bench_delivered',
      Array.from({ length: DELIVERIES }, (_, i) => ({ title: `item ${i}` })),
    );
    await until('every delivery', () => receiver.count() >= expected);
    const flowsPerSecond = DELIVERIES / ((performance.now() - started) / 1000);
    deliveries.push(`${flowsPerSecond.toFixed(0)} / ${floor.toFixed(0)} = ${(flowsPerSecond / floor).toFixed(2)}`);

    // The write's own path: the runs wait in the paused queue, then are delivered before (c).
    await queue.pause();
    expected = receiver.count() + WRITES * FLOWED;
    const alone = await alternateWrites(base, api.pid);
    await queue.resume();
    await until('the paused writes deliveries', () => receiver.count() >= expected);
    const plain = await singleWrites(base, 'bench_plain');
    expected = receiver.count() + WRITES * FLOWED;
    const beside = await singleWrites(base, 'bench_flowed');
    await until('the flowed writes deliveries', () => receiver.count() >= expected);
    const ratio = (flowed: Writes, none: Writes) =>
      `${flowed.mean.toFixed(2)} / ${none.mean.toFixed(2)} ms = ${(flowed.mean / none.mean).toFixed(2)} (p99 ${flowed.p99} / ${none.p99} ms)`;
    const medians = `${(alone.flowed.median ?? 0).toFixed(2)} / ${(alone.plain.median ?? 0).toFixed(2)} ms = ${((alone.flowed.median ?? 0) / (alone.plain.median ?? 1)).toFixed(2)}`;
    latencies.push(
      `${ratio(alone.flowed, alone.plain)}, median ${medians}, API CPU ${alone.flowed.cpuMs.toFixed(2)} / ${alone.plain.cpuMs.toFixed(2)} ms, a chunk's first ${alone.flowed.firstMean.toFixed(2)} / ${alone.plain.firstMean.toFixed(2)} ms`,
    );
    besideRuns.push(ratio(beside, plain));
    console.log(
      `run ${run}: deliveries/s ${deliveries.at(-1) ?? ''}; write latency ${latencies.at(-1) ?? ''}, beside the runs ${besideRuns.at(-1) ?? ''}`,
    );
  }
  console.log(`\n| figure | ${Array.from({ length: RUNS }, (_, i) => `run ${i + 1}`).join(' | ')} |`);
  console.log(`| --- | ${Array.from({ length: RUNS }, () => '---').join(' | ')} |`);
  console.log(`| (a) deliveries/s, flows / straight to the receiver | ${deliveries.join(' | ')} |`);
  console.log(`| (b) mean write latency, ${FLOWED} flows / none | ${latencies.join(' | ')} |`);
  console.log(`| (c) the same, the runs beside the writes | ${besideRuns.join(' | ')} |`);
} finally {
  for (const p of processes.reverse()) await p.stop();
  await queue.close();
  await receiver.close();
  rmSync(dir, { recursive: true, force: true });
}
