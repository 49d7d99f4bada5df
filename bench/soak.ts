/**
 * Soak (issue 24): DURATION seconds (default 600) of mixed reads, writes, GraphQL queries and
 * exports at a steady rate against a real server in its own process (bench/soak-server.ts),
 * its RSS, heap and event-loop delay sampled every SAMPLE seconds (default 10), printed as a
 * table with the client's request count, errors and p99 latency of each interval.
 *   node --import tsx bench/soak.ts
 *   DURATION=60 RATE=40 node --import tsx bench/soak.ts
 * The server gets this process's environment (DB_CLIENT, DB_*, REDIS...; without DB_CLIENT a
 * fresh SQLite file in a temp folder) plus its own port, token, storage and temp folders.
 * RATE: requests per second (default 40): per second 60% reads, 25% writes, 15% GraphQL, and
 * one export every EXPORT_EVERY seconds (default 30).
 */
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';

const DURATION = Number(process.env['DURATION'] ?? 600);
const SAMPLE = Number(process.env['SAMPLE'] ?? 10);
const RATE = Number(process.env['RATE'] ?? 40);
const EXPORT_EVERY = Number(process.env['EXPORT_EVERY'] ?? 30);
const TOKEN = 'soak-static-admin-token';

interface Sample {
  readonly rss: number;
  readonly heapUsed: number;
  readonly delayP50: number;
  readonly delayP99: number;
  readonly delayMax: number;
}

const dir = mkdtempSync(join(tmpdir(), 'svc-soak-'));
const env: Record<string, string | undefined> = {
  DB_CLIENT: 'sqlite3',
  DB_FILENAME: join(dir, 'soak.sqlite'),
  ...process.env,
  HOST: '127.0.0.1',
  PORT: '0',
  LOG_LEVEL: process.env['LOG_LEVEL'] ?? 'warn',
  SECRET: 'soak-secret',
  ADMIN_EMAIL: 'admin@example.com',
  ADMIN_PASSWORD: 'soak-password',
  ADMIN_TOKEN: TOKEN,
  STORAGE_LOCAL_ROOT: join(dir, 'uploads'),
  TEMP_PATH: join(dir, 'tmp'),
};
const child = fork(new URL('./soak-server.ts', import.meta.url).pathname, {
  env,
  execArgv: ['--import', 'tsx'],
  stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
});
const replies: ((message: unknown) => void)[] = [];
child.on('message', (message) => replies.shift()?.(message));
const reply = <T>() => new Promise<T>((resolve) => replies.push((m) => resolve(m as T)));

try {
  const { url } = await reply<{ url: string }>();
  const headers = { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' };
  const call = async (method: string, path: string, body?: unknown): Promise<Response> =>
    fetch(url + path, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });

  const created = await call('POST', '/collections', {
    collection: 'soak',
    schema: {},
    fields: [
      { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } },
      { field: 'title', type: 'string', schema: {} },
      { field: 'n', type: 'integer', schema: {} },
    ],
  });
  if (!created.ok) throw new Error(`creating the collection: ${created.status} ${await created.text()}`);
  const seeded = await call(
    'POST',
    '/items/soak?fields=id',
    Array.from({ length: 1000 }, (_, n) => ({ title: `seed ${n}`, n })),
  );
  if (!seeded.ok) throw new Error(`seeding: ${seeded.status} ${await seeded.text()}`);

  let latencies: number[] = [];
  let errors = 0;
  let inFlight = 0;
  let counter = 0;
  const timed = async (send: () => Promise<Response>) => {
    const started = performance.now();
    inFlight += 1;
    try {
      const res = await send();
      await res.arrayBuffer();
      if (!res.ok) errors += 1;
    } catch {
      errors += 1;
    } finally {
      inFlight -= 1;
      latencies.push(performance.now() - started);
    }
  };
  const kinds: readonly [number, () => Promise<Response>][] = [
    [0.6, () => call('GET', `/items/soak?limit=20&sort=-id&filter[n][_gte]=${counter % 500}`)],
    [0.25, () => call('POST', '/items/soak?fields=id', { title: `soak ${counter}`, n: counter % 1000 })],
    [
      0.15,
      () =>
        call('POST', '/graphql', {
          query: `{ soak(limit: 10, sort: ["-id"], filter: { n: { _lt: ${counter % 1000} } }) { id title n } }`,
        }),
    ],
  ];

  console.log(`soak: ${DURATION} s at ${RATE} req/s against ${url} (${env['DB_CLIENT']}), samples every ${SAMPLE} s`);
  console.log(
    '| t (s) | requests | errors | in flight | p50 ms | p99 ms | RSS MB | heap MB | loop delay p50 / p99 / max ms |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|');
  const started = Date.now();
  let nextSample = SAMPLE;
  for (let second = 1; second <= DURATION; second += 1) {
    // Steady: each second's requests spread evenly over it, not waited for.
    for (let i = 0; i < RATE; i += 1) {
      counter += 1;
      const pick = (counter * 0.618034) % 1;
      let acc = 0;
      const kind = kinds.find(([share]) => (acc += share) > pick) ?? kinds[0]!;
      void timed(kind[1]);
      // Paced against the clock, so the rate stays steady whatever each iteration costs.
      await delay(Math.max(0, started + (counter * 1000) / RATE - Date.now()));
    }
    if (second % EXPORT_EVERY === 0)
      void timed(() =>
        call('POST', '/utils/export/soak', { format: 'json', query: { fields: ['id', 'title', 'n'], limit: -1 } }),
      );
    if (second === nextSample) {
      nextSample += SAMPLE;
      child.send('sample');
      const sample = await reply<Sample>();
      const sorted = latencies.sort((a, b) => a - b);
      const at = (p: number) =>
        sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
      const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
      console.log(
        `| ${Math.round((Date.now() - started) / 1000)} | ${sorted.length} | ${errors} | ${inFlight} | ${at(0.5).toFixed(1)} | ${at(0.99).toFixed(1)} | ${mb(sample.rss)} | ${mb(sample.heapUsed)} | ${sample.delayP50} / ${sample.delayP99} / ${sample.delayMax} |`,
      );
      latencies = [];
      errors = 0;
    }
  }
  while (inFlight > 0) await delay(50);
} finally {
  child.send('stop');
  await new Promise((resolve) => child.once('exit', resolve));
  rmSync(dir, { recursive: true, force: true });
}
