/**
 * Live-data benchmark (issue 15): the service as its own process (SQLite file by default, or
 * the DB_* of the environment), CONNECTIONS sockets x PER_CONNECTION subscriptions on one
 * collection, one REST write every WRITE_EVERY_MS for DURATION s. Reports commit-to-delivery
 * (from the write request's start, so an upper bound) p50/p99 over every delivery, the
 * server's RSS and CPU per delivered event, and R1 (`GET /items/live_metrics?limit=10`,
 * autocannon) with and without the subscriptions running. CROSS=1 adds a second process with
 * REDIS: subscribers on B, writes on A.
 *
 *   node --import tsx bench/realtime.ts
 *   CONNECTIONS=1000 PER_CONNECTION=10 DURATION=20 node --import tsx bench/realtime.ts
 *   CROSS=1 REDIS=redis://127.0.0.1:6379 node --import tsx bench/realtime.ts
 */
import autocannon from 'autocannon';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { WebSocket } from 'ws';
import { SERVER_ENTRY, startServiceProcess, type ServiceProcess } from '../test/support/service-process.js';

const CONNECTIONS = Number(process.env['CONNECTIONS'] ?? 100);
const PER_CONNECTION = Number(process.env['PER_CONNECTION'] ?? 10);
const DURATION = Number(process.env['DURATION'] ?? 10);
const WRITE_EVERY_MS = Number(process.env['WRITE_EVERY_MS'] ?? 100);
const R1_SECONDS = Number(process.env['R1_SECONDS'] ?? 5);
const CROSS = process.env['CROSS'] === '1';
const TOKEN = 'bench-admin-token';

const dir = mkdtempSync(join(tmpdir(), 'svc-bench-live-'));
const dbEnv: Record<string, string> =
  process.env['DB_CLIENT'] === undefined
    ? { DB_FILENAME: join(dir, 'live.sqlite') }
    : Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[0].startsWith('DB_')));
const env = {
  ...dbEnv,
  SECRET: 'bench',
  ADMIN_TOKEN: TOKEN,
  ADMIN_PASSWORD: 'bench-password',
  // info: startServiceProcess waits for the "listening" line (requests are logged too, with and without subscriptions alike).
  LOG_LEVEL: 'info',
  EMAIL_VERIFY_SETUP: 'false',
  NODE_ENV: 'production',
  WEBSOCKETS_ENABLED: 'true',
  WEBSOCKETS_SUBSCRIPTION_LIMIT: String(Math.max(PER_CONNECTION, 100)),
  ...(CROSS
    ? { REDIS: process.env['REDIS'] ?? 'redis://127.0.0.1:6379', CACHE_NAMESPACE: `bench-${randomUUID()}` }
    : {}),
};

async function call(base: string, method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(base + path, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text === '' ? undefined : (JSON.parse(text) as { data: unknown }).data;
}

function procStat(pid: number): { rssMb: number; hwmMb: number; cpuMs: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  const ticks = Number(stat[11]) + Number(stat[12]);
  return { rssMb: kb('VmRSS') / 1024, hwmMb: kb('VmHWM') / 1024, cpuMs: (ticks * 1000) / 100 };
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

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? NaN;
}

async function openSubscribers(base: string, latencies: number[]): Promise<WebSocket[]> {
  const url = base.replace(/^http/, 'ws') + `/websocket?access_token=${TOKEN}`;
  const sockets: WebSocket[] = [];
  for (let c = 0; c < CONNECTIONS; c++) {
    const ws = new WebSocket(url);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    let inits = 0;
    const ready = new Promise<void>((resolve) => {
      ws.on('message', (data) => {
        const m = JSON.parse(data.toString()) as { type: string; event?: string; data?: { sent: number }[] };
        if (m.type === 'ping') return ws.send('{"type":"pong"}');
        if (m.event === 'init' && ++inits === PER_CONNECTION) resolve();
        if (m.event === 'create') for (const item of m.data ?? []) latencies.push(Date.now() - Number(item.sent));
      });
    });
    for (let s = 0; s < PER_CONNECTION; s++)
      ws.send(
        JSON.stringify({
          type: 'subscribe',
          collection: 'live_metrics',
          query: { fields: ['id', 'sent'] },
          uid: `${s}`,
        }),
      );
    await ready;
    sockets.push(ws);
  }
  return sockets;
}

async function writeLoop(base: string): Promise<number> {
  const until = Date.now() + DURATION * 1000;
  let writes = 0;
  while (Date.now() < until) {
    const started = Date.now();
    await call(base, 'POST', '/items/live_metrics', { sent: String(started), value: writes });
    writes++;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, WRITE_EVERY_MS - (Date.now() - started))));
  }
  return writes;
}

const processes: ServiceProcess[] = [];
try {
  processes.push(await startServiceProcess(SERVER_ENTRY, env));
  if (CROSS) processes.push(await startServiceProcess(SERVER_ENTRY, env));
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
    ],
  });
  for (let i = 0; i < 50; i++) await call(a, 'POST', '/items/live_metrics', { sent: '0', value: i });
  const idle = procStat(server.pid);
  const r1Without = CROSS ? NaN : await r1(a);

  const latencies: number[] = [];
  const opened = Date.now();
  const sockets = await openSubscribers(subscribeTo, latencies);
  const subscribed = procStat(server.pid);
  console.log(
    `${CONNECTIONS * PER_CONNECTION} subscriptions open in ${Date.now() - opened} ms; RSS ${subscribed.rssMb.toFixed(0)} MB`,
  );
  const [writes, r1With] = await Promise.all([writeLoop(a), CROSS ? Promise.resolve(NaN) : r1(a)]);
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const done = procStat(server.pid);
  const sorted = [...latencies].sort((x, y) => x - y);
  const expected = writes * CONNECTIONS * PER_CONNECTION;
  console.log(
    JSON.stringify(
      {
        subscriptions: CONNECTIONS * PER_CONNECTION,
        cross: CROSS,
        writes,
        delivered: latencies.length,
        expected,
        p50_ms: percentile(sorted, 50),
        p99_ms: percentile(sorted, 99),
        max_ms: sorted[sorted.length - 1],
        rss_idle_mb: Math.round(idle.rssMb),
        rss_subscribed_mb: Math.round(subscribed.rssMb),
        rss_end_mb: Math.round(done.rssMb),
        rss_peak_mb: Math.round(done.hwmMb),
        cpu_us_per_delivery: Math.round(((done.cpuMs - subscribed.cpuMs) * 1000) / Math.max(1, latencies.length)),
        r1_without: Math.round(r1Without),
        r1_with: Math.round(r1With),
      },
      null,
      2,
    ),
  );
  for (const ws of sockets) ws.terminate();
} finally {
  await Promise.all(processes.map((p) => p.stop()));
  rmSync(dir, { recursive: true, force: true });
}
