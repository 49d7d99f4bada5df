/**
 * Reads served by a PostgreSQL streaming replica vs by the primary, side by side (issue 17):
 *   node --import tsx bench/replicas.ts
 * Makes a throw-away primary (bench/data's model and rows: create-schema.mjs through the API,
 * load-data.sql in SQL) and a streaming standby of it (pg_basebackup), then runs, each in its
 * own process: the floor (floor-server.ts on the primary), the service on the primary alone,
 * and the service with DB_REPLICA_HOST = the standby. Every read scenario of scenarios.ts is
 * measured against the three in turn, RUNS times (3), and printed as ratios to the floor of the
 * same run; the standby's committed transactions during the replica runs prove who served them.
 * Env: DURATION seconds per measurement (8), CONNECTIONS (10), WARMUP seconds (3), RUNS (3).
 * Everything it starts is stopped and deleted at the end.
 */
import autocannon from 'autocannon';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import pg from 'pg';
import { freePort } from '../test/support/ports.js';
import { SERVER_ENTRY } from '../test/support/service-process.js';
import {
  createThrowawayPostgres,
  createThrowawayStandby,
  type ThrowawayPostgres,
} from '../test/support/throwaway-postgres.js';
import { READ_SCENARIOS } from './scenarios.js';

const DURATION = Number(process.env['DURATION'] ?? 8);
const CONNECTIONS = Number(process.env['CONNECTIONS'] ?? 10);
const WARMUP = Number(process.env['WARMUP'] ?? 3);
const RUNS = Number(process.env['RUNS'] ?? 3);
const TOKEN = 'bench-static-admin-token';
const DATA = new URL('./data/', import.meta.url).pathname;
const FLOOR_ENTRY = new URL('./floor-server.ts', import.meta.url).pathname;

const children: ChildProcess[] = [];
const scratch = mkdtempSync(join(tmpdir(), 'svc-bench-replicas-'));
let primary: ThrowawayPostgres | undefined;
let standby: ThrowawayPostgres | undefined;

function start(command: string, args: readonly string[], env: Record<string, string>): ChildProcess {
  const child = spawn(command, args, {
    env: { PATH: process.env['PATH'] ?? '', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.push(child);
  return child;
}

function finished(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) =>
    child.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`${String(child.spawnfile)} exited ${code}`)),
    ),
  );
}

async function waitFor(url: string): Promise<void> {
  for (let i = 0; i < 300; i += 1) {
    if (
      await fetch(url).then(
        (r) => r.ok,
        () => false,
      )
    )
      return;
    await delay(100);
  }
  throw new Error(`${url} did not answer`);
}

/** The service on its own port; `extra` adds DB_REPLICA_* for the replica variant. */
async function service(cluster: ThrowawayPostgres, extra: Record<string, string> = {}): Promise<string> {
  const port = await freePort();
  start(process.execPath, ['--import', 'tsx', SERVER_ENTRY], {
    ...cluster.env,
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PORT: String(port),
    SECRET: 'bench',
    ADMIN_TOKEN: TOKEN,
    ADMIN_PASSWORD: 'bench-password',
    LOG_LEVEL: 'warn',
    STORAGE_LOCAL_ROOT: join(scratch, 'uploads'),
    TEMP_PATH: join(scratch, 'tmp'),
    ...extra,
  });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${url}/server/ping`);
  return url;
}

async function measure(url: string, withToken: boolean): Promise<{ rps: number; errors: number }> {
  const headers = withToken ? { Authorization: `Bearer ${TOKEN}` } : {};
  if (WARMUP > 0) await autocannon({ url, headers, duration: WARMUP, connections: CONNECTIONS });
  const result = await autocannon({ url, headers, duration: DURATION, connections: CONNECTIONS });
  return { rps: result.requests.average, errors: result.errors + result.non2xx };
}

async function committed(cluster: ThrowawayPostgres): Promise<number> {
  const client = new pg.Client({ host: '127.0.0.1', port: cluster.port, user: 'root', database: 'postgres' });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>(
      "SELECT xact_commit::text AS n FROM pg_stat_database WHERE datname = 'postgres'",
    );
    return Number(rows[0]?.n ?? 0);
  } finally {
    await client.end();
  }
}

async function main(): Promise<void> {
  primary = await createThrowawayPostgres();
  const loader = await service(primary);
  await finished(start(process.execPath, [join(DATA, 'create-schema.mjs')], { BASE_URL: loader, TOKEN }));
  const psql = ['-h', '127.0.0.1', '-p', String(primary.port), '-U', 'root', '-d', 'postgres', '-q'];
  await finished(start('psql', [...psql, '-v', 'ON_ERROR_STOP=1', '-f', join(DATA, 'load-data.sql')], {}));
  await finished(start('psql', [...psql, '-c', 'VACUUM ANALYZE'], {}));
  children.shift()?.kill('SIGTERM');
  standby = await createThrowawayStandby(primary);

  const floorPort = await freePort();
  start(process.execPath, ['--import', 'tsx', FLOOR_ENTRY], {
    PORT: String(floorPort),
    PGHOST: '127.0.0.1',
    PGPORT: String(primary.port),
    PGUSER: 'root',
    BENCH_DB: 'postgres',
  });
  const floor = `http://127.0.0.1:${floorPort}`;
  await waitFor(floor + (READ_SCENARIOS[0]?.path ?? '/'));
  const onPrimary = await service(primary);
  const onReplica = await service(primary, { DB_REPLICA_HOST: '127.0.0.1', DB_REPLICA_PORT: String(standby.port) });

  const rows: string[] = [];
  for (const scenario of READ_SCENARIOS) {
    const cells: string[] = [];
    for (let run = 0; run < RUNS; run += 1) {
      const f = await measure(floor + scenario.path, false);
      const p = await measure(onPrimary + scenario.path, true);
      const before = await committed(standby);
      const r = await measure(onReplica + scenario.path, true);
      const onStandby = (await committed(standby)) - before;
      const errors = p.errors + r.errors;
      cells.push(
        `${(p.rps / f.rps).toFixed(2)} / ${(r.rps / f.rps).toFixed(2)} (${f.rps.toFixed(0)}; ${onStandby} on standby${errors > 0 ? `; ${errors} errors` : ''})`,
      );
      console.error(`${scenario.name} run ${run + 1}: ${cells.at(-1)}`);
    }
    rows.push(`| ${scenario.name} | ${cells.join(' | ')} |`);
  }
  const runs = Array.from({ length: RUNS }, (_, i) => `run ${i + 1}`);
  console.log(`| scenario | ${runs.join(' | ')} |`);
  console.log(`|---|${runs.map(() => '---').join('|')}|`);
  for (const row of rows) console.log(row);
}

try {
  await main();
} finally {
  for (const child of children) child.kill('SIGTERM');
  await delay(500);
  await standby?.destroy();
  await primary?.destroy();
  rmSync(scratch, { recursive: true, force: true });
}
