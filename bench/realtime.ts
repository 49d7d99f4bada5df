/**
 * Live-data benchmark (issue 15): the service as its own process (SQLite file by default, or
 * the DB_* of the environment), CONNECTIONS sockets x PER_CONNECTION subscriptions on one
 * collection, held by WORKERS worker threads (bench/realtime-subscribers.ts: the parsing of
 * every delivery stays out of the writer's event loop), one REST write every WRITE_EVERY_MS for
 * DURATION s. Commit-to-delivery lies between two figures on one clock: from the write request's
 * start (upper bound) and from its answer (lower bound; negative when the delivery beats the
 * answer), p50/p99 over every delivery. The server's RSS, and its CPU (/proc) per 1,000
 * deliveries over the write phase alone. R1 (`GET /items/live_metrics?limit=10`, autocannon)
 * runs before the subscriptions open and then for R1_SECONDS while they run with the writes.
 * CROSS=1 adds a second process with REDIS: subscribers on B, writes on A. JWTS=1: each socket
 * with an access token of its own (else all share the admin's static token). USERS=n: n users of
 * one role whose read rule is `owner = $CURRENT_USER`, socket c signed in (a JWT) as user c % n,
 * each write owned by the next user in turn: a write reaches that user's subscriptions only.
 *
 *   node --import tsx bench/realtime.ts
 *   CONNECTIONS=1000 PER_CONNECTION=10 DURATION=20 node --import tsx bench/realtime.ts
 *   CROSS=1 REDIS=redis://127.0.0.1:6379 node --import tsx bench/realtime.ts
 *   USERS=1000 CONNECTIONS=1000 PER_CONNECTION=10 node --import tsx bench/realtime.ts
 */
import autocannon from 'autocannon';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Worker } from 'node:worker_threads';
import { tsWorker } from './ts-worker.js';
import { Redis } from 'ioredis';
import { signAccessToken, type AccessTokenClaims } from '../src/auth/access-token.js';
import type { ServiceProcess } from '../test/support/service-process.js';
import { adminCall, benchDatabaseEnv, processStat, startBenchProcess } from './service-start.js';

const CONNECTIONS = Number(process.env['CONNECTIONS'] ?? 100);
const PER_CONNECTION = Number(process.env['PER_CONNECTION'] ?? 10);
const DURATION = Number(process.env['DURATION'] ?? 10);
const WRITE_EVERY_MS = Number(process.env['WRITE_EVERY_MS'] ?? 100);
const R1_SECONDS = Number(process.env['R1_SECONDS'] ?? 5);
const CROSS = process.env['CROSS'] === '1';
const JWTS = process.env['JWTS'] === '1';
const USERS = Number(process.env['USERS'] ?? 0);
const SECRET = 'bench';
const WORKERS = Number(process.env['WORKERS'] ?? 2);
const TOKEN = 'bench-admin-token';
const NAMESPACE = `bench-${randomUUID()}`;

/** The service as `make start` runs it (service-start.ts). */
function startService(): Promise<ServiceProcess> {
  return startBenchProcess('api', env, { builtMs: 30_000, sourceMs: 120_000 });
}

const dir = mkdtempSync(join(tmpdir(), 'svc-bench-live-'));
const dbEnv = benchDatabaseEnv(dir, 'live.sqlite');
const env = {
  ...dbEnv,
  SECRET,
  ADMIN_TOKEN: TOKEN,
  ADMIN_PASSWORD: 'bench-password',
  // info: startServiceProcess waits for the "listening" line (requests are logged too, with and without subscriptions alike).
  LOG_LEVEL: 'info',
  EMAIL_VERIFY_SETUP: 'false',
  NODE_ENV: 'production',
  WEBSOCKETS_ENABLED: 'true',
  // e.g. SERVICE_NODE_OPTIONS="--cpu-prof --cpu-prof-dir=/tmp/prof": a profile of the server.
  ...(process.env['SERVICE_NODE_OPTIONS'] === undefined ? {} : { NODE_OPTIONS: process.env['SERVICE_NODE_OPTIONS'] }),
  WEBSOCKETS_SUBSCRIPTION_LIMIT: String(Math.max(PER_CONNECTION, 100)),
  ...(CROSS ? { REDIS: process.env['REDIS'] ?? 'redis://127.0.0.1:6379', CACHE_NAMESPACE: NAMESPACE } : {}),
};

function call(base: string, method: string, path: string, body?: unknown): Promise<unknown> {
  return adminCall(base, TOKEN, method, path, body);
}

async function r1(base: string): Promise<number> {
  const result = await autocannon({
    url: `${base}/items/live_metrics?limit=10`,
    headers: { authorization: `Bearer ${TOKEN}` },
    duration: R1_SECONDS,
    connections: 10,
  });
  return result.requests.average;
}

/** The sockets of user `u` of `users` (socket c is user c % users). */
function socketsOf(u: number, users: number): number {
  return Math.floor(CONNECTIONS / users) + (u < CONNECTIONS % users ? 1 : 0);
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? NaN;
}

/** The worker runs TypeScript: tsx's loader is registered in its thread first (Node 20 does not carry `--import` over). */

/**
 * The token of each socket: the admin's static token, or with JWTS=1 an access token of its own
 * per socket (signed here with the service's SECRET, as a login would give each dashboard).
 */
async function socketTokens(base: string, owners: readonly string[]): Promise<string[]> {
  if (owners.length > 0)
    return Array.from({ length: CONNECTIONS }, (_, c) =>
      signAccessToken(
        { id: owners[c % owners.length] as string, role: ownersRole, app_access: false, admin_access: false },
        SECRET,
        3_600_000,
      ),
    );
  if (!JWTS) return Array.from({ length: CONNECTIONS }, () => TOKEN);
  const me = (await call(base, 'GET', '/users/me?fields=id')) as { id: string };
  return Array.from({ length: CONNECTIONS }, (_, c) =>
    signAccessToken(
      { id: me.id, role: null, app_access: true, admin_access: true, socket: c } as AccessTokenClaims,
      SECRET,
      3_600_000,
    ),
  );
}

interface Subscribers {
  /** (item id, arrival time) pairs of every delivery, from every worker; the sockets close. */
  stop(): Promise<Float64Array[]>;
}

/** CONNECTIONS sockets spread over WORKERS threads (bench/realtime-subscribers.ts), each ready. */
async function openSubscribers(base: string, owners: readonly string[]): Promise<Subscribers> {
  const tokens = await socketTokens(base, owners);
  const urls = tokens.map((token) => base.replace(/^http/, 'ws') + `/websocket?access_token=${token}`);
  const workers = Array.from({ length: WORKERS }, (_, w) => {
    const mine = urls.filter((_url, c) => c % WORKERS === w);
    return tsWorker(new URL('./realtime-subscribers.ts', import.meta.url), {
      urls: mine,
      perConnection: PER_CONNECTION,
    });
  });
  const answer = <T>(worker: Worker, type: string) =>
    new Promise<T>((resolve, reject) => {
      const onMessage = (m: { type: string } & T) => {
        if (m.type !== type) return;
        worker.off('message', onMessage);
        resolve(m);
      };
      worker.on('message', onMessage);
      worker.once('error', reject);
    });
  await Promise.all(workers.map((w) => answer(w, 'ready')));
  return {
    async stop() {
      const all = await Promise.all(
        workers.map((w) => {
          const done = answer<{ arrivals: Float64Array }>(w, 'arrivals');
          w.postMessage({ type: 'stop' });
          return done;
        }),
      );
      await Promise.all(workers.map((w) => w.terminate()));
      return all.map((a) => a.arrivals);
    },
  };
}

/**
 * When each write started and when its answer came (hi-res wall clock), and the item's
 * `written` (date-created: stamped by the service inside the write's transaction, on the same
 * clock): the commit lies between `written` and the answer.
 */
type Writes = Map<number, { started: number; answered: number; written: number }>;
const now = () => performance.timeOrigin + performance.now();

async function writeLoop(base: string, seconds: number, writes: Writes, owners: readonly string[] = []): Promise<void> {
  const until = Date.now() + seconds * 1000;
  while (Date.now() < until) {
    const started = now();
    const item = (await call(base, 'POST', '/items/live_metrics', {
      sent: String(Math.round(started)),
      value: writes.size,
      ...(owners.length === 0 ? {} : { owner: owners[writes.size % owners.length] }),
    })) as { id: number; written: string };
    writes.set(item.id, { started, answered: now(), written: Date.parse(item.written) });
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, WRITE_EVERY_MS - (now() - started))));
  }
}

/**
 * Delivery latencies of the writes in `writes`: from the write's start and from its row's
 * stamp (upper bounds: before the commit, the stamp just before), and from its answer (lower bound).
 */
function latencies(writes: Writes, arrivals: readonly Float64Array[]) {
  const fromStart: number[] = [];
  const fromStamp: number[] = [];
  const fromAnswer: number[] = [];
  for (const pairs of arrivals)
    for (let i = 0; i < pairs.length; i += 2) {
      const write = writes.get(pairs[i] as number);
      if (write === undefined) continue;
      fromStart.push((pairs[i + 1] as number) - write.started);
      fromStamp.push((pairs[i + 1] as number) - write.written);
      fromAnswer.push((pairs[i + 1] as number) - write.answered);
    }
  const stats = (values: number[]) => {
    values.sort((x, y) => x - y);
    const round = (v: number) => Math.round(v * 10) / 10;
    return { p50: round(percentile(values, 50)), p99: round(percentile(values, 99)), max: round(values.at(-1) ?? NaN) };
  };
  return {
    delivered: fromStart.length,
    fromStart: stats(fromStart),
    fromStamp: stats(fromStamp),
    fromAnswer: stats(fromAnswer),
  };
}

/**
 * CROSS: when each change reached the change feed's Redis stream (read as B reads it), by its
 * first key: the hop from A's commit to B, apart from B's delivery.
 */
async function watchLog(): Promise<{ arrivals: Float64Array[]; close(): Promise<void> }> {
  const redis = new Redis(env.REDIS ?? '');
  const key = `${NAMESPACE}:realtime:log`;
  const pairs: number[] = [];
  let isOpen = true;
  let last = '$';
  const reading = (async () => {
    while (isOpen) {
      const answer = (await redis.xread('BLOCK', 200, 'STREAMS', key, last)) as [string, [string, string[]][]][] | null;
      const at = now();
      for (const [, entries] of answer ?? [])
        for (const [id, fields] of entries) {
          last = id;
          const change = JSON.parse(fields[fields.indexOf('c') + 1] ?? '{}') as { keys?: number[] };
          if (change.keys?.[0] !== undefined) pairs.push(Number(change.keys[0]), at);
        }
    }
  })();
  const arrivals = [new Float64Array(0)];
  return {
    arrivals,
    async close() {
      isOpen = false;
      await reading;
      arrivals[0] = Float64Array.from(pairs);
      await redis.quit();
    },
  };
}

/** USERS: the role whose read rule is `owner = $CURRENT_USER`, and its users (ids). */
let ownersRole: string | null = null;
async function createOwners(base: string): Promise<string[]> {
  if (USERS === 0) return [];
  const role = (await call(base, 'POST', '/roles', { name: 'Owners', app_access: false })) as { id: string };
  ownersRole = role.id;
  await call(base, 'POST', '/permissions', {
    role: role.id,
    collection: 'live_metrics',
    action: 'read',
    permissions: { owner: { _eq: '$CURRENT_USER' } },
    fields: ['id', 'sent', 'value', 'owner'],
  });
  const ids: string[] = [];
  for (let at = 0; at < USERS; at += 100) {
    const batch = Array.from({ length: Math.min(100, USERS - at) }, (_, i) => ({
      email: `owner-${at + i}@bench.example.com`,
      role: role.id,
    }));
    for (const user of (await call(base, 'POST', '/users', batch)) as { id: string }[]) ids.push(user.id);
  }
  return ids;
}

const processes: ServiceProcess[] = [];
try {
  processes.push(await startService());
  if (CROSS) processes.push(await startService());
  const [a, b] = processes.map((p) => p.url) as [string, string | undefined];
  const subscribeTo = b ?? a;
  const server = processes[processes.length - 1] as ServiceProcess;
  await call(a, 'POST', '/collections', {
    collection: 'live_metrics',
    schema: {},
    meta: {},
    fields: [
      { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } },
      { field: 'sent', type: 'bigInteger', schema: {} },
      { field: 'value', type: 'integer', schema: {} },
      { field: 'owner', type: 'uuid', schema: {} },
      // In ms (a timestamp has seconds on MySQL): the service's clock inside the write's transaction.
      { field: 'written', type: 'timestamp', schema: {}, meta: { special: ['date-created'] } },
    ],
  });
  const owners = await createOwners(a);
  for (let i = 0; i < 50; i++) await call(a, 'POST', '/items/live_metrics', { sent: '0', value: i });
  const idle = processStat(server.pid);
  const r1Without = CROSS ? NaN : await r1(a);

  const opened = Date.now();
  const subscribers = await openSubscribers(subscribeTo, owners);
  const subscribed = processStat(server.pid);
  console.log(
    `${CONNECTIONS * PER_CONNECTION} subscriptions open in ${Date.now() - opened} ms; RSS ${subscribed.rssMb.toFixed(0)} MB`,
  );
  const channel = CROSS ? await watchLog() : undefined;
  const benchCpu = process.cpuUsage();
  const writes: Writes = new Map();
  await writeLoop(a, DURATION, writes, owners);
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const written = processStat(server.pid);
  const benchCpuMs = (process.cpuUsage(benchCpu).user + process.cpuUsage(benchCpu).system) / 1000;
  // R1 while the writes go on and every subscriber receives them (CPU and latency figures above exclude this part).
  const r1With = CROSS
    ? NaN
    : (await Promise.all([r1(a), writeLoop(a, R1_SECONDS, new Map(), owners) as Promise<unknown>]))[0];
  const done = processStat(server.pid);
  const measured = latencies(writes, await subscribers.stop());
  await channel?.close();
  const hop = channel === undefined ? undefined : latencies(writes, channel.arrivals).fromAnswer;
  // With USERS, a write reaches the sockets of its owner alone (socket c is user c % USERS).
  const expected =
    owners.length === 0
      ? writes.size * CONNECTIONS * PER_CONNECTION
      : [...Array(writes.size).keys()].reduce(
          (sum, w) => sum + socketsOf(w % owners.length, owners.length) * PER_CONNECTION,
          0,
        );
  console.log(
    JSON.stringify(
      {
        subscriptions: CONNECTIONS * PER_CONNECTION,
        cross: CROSS,
        token_per_socket: JWTS || owners.length > 0,
        users: owners.length,
        workers: WORKERS,
        writes: writes.size,
        delivered: measured.delivered,
        expected,
        from_write_start_ms: measured.fromStart,
        from_row_stamp_ms: measured.fromStamp,
        from_write_answer_ms: measured.fromAnswer,
        ...(hop === undefined ? {} : { redis_message_from_write_answer_ms: hop }),
        rss_idle_mb: Math.round(idle.rssMb),
        rss_subscribed_mb: Math.round(subscribed.rssMb),
        rss_end_mb: Math.round(done.rssMb),
        rss_peak_writes_mb: Math.round(written.hwmMb),
        rss_peak_mb: Math.round(done.hwmMb),
        server_cpu_ms_per_1000_deliveries:
          Math.round(((written.cpuMs - subscribed.cpuMs) * 1000 * 10) / Math.max(1, measured.delivered)) / 10,
        server_cpu_ms_per_write: Math.round((written.cpuMs - subscribed.cpuMs) / Math.max(1, writes.size)),
        bench_cpu_ms_per_1000_deliveries: Math.round((benchCpuMs * 1000 * 10) / Math.max(1, measured.delivered)) / 10,
        r1_without: Math.round(r1Without),
        r1_with: Math.round(r1With),
      },
      null,
      2,
    ),
  );
} finally {
  await Promise.all(processes.map((p) => p.stop()));
  rmSync(dir, { recursive: true, force: true });
}
