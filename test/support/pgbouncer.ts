import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { promisify } from 'node:util';
import knex from 'knex';
import { freePort } from './ports.js';

const run = promisify(execFile);

/** Debian's binary; TEST_PGBOUNCER_BIN overrides. */
const PGBOUNCER_BIN = process.env['TEST_PGBOUNCER_BIN'] ?? '/usr/sbin/pgbouncer';

/** A PgBouncer process of one suite, on a free loopback port, in front of a PostgreSQL server. */
export interface PgBouncerProcess {
  readonly port: number;
  /** What PgBouncer logged so far (a failing test shows it). */
  log(): string;
  stop(): Promise<void>;
}

export interface PgBouncerOptions {
  /** The PostgreSQL server behind it. */
  readonly server: { readonly host: string; readonly port: number; readonly user: string };
  readonly poolMode?: 'session' | 'transaction' | 'statement';
  /** Server connections per database and user (PgBouncer's default_pool_size). */
  readonly poolSize?: number;
}

/** Why PgBouncer cannot be started here, or undefined when it can. */
export function pgBouncerUnavailable(): string | undefined {
  if (!existsSync(PGBOUNCER_BIN))
    return `no pgbouncer at ${PGBOUNCER_BIN} (apt-get install pgbouncer, or TEST_PGBOUNCER_BIN)`;
  return undefined;
}

/**
 * Starts `pgbouncer` (every database name passed through to `options.server`, no password
 * asked: auth_type trust) and waits until a query through it answers. PgBouncer refuses to
 * run as root, so as root it runs as the `postgres` user (runuser) in a folder it owns.
 */
export async function startPgBouncer(options: PgBouncerOptions): Promise<PgBouncerProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-pgbouncer-'));
  const port = await freePort();
  const logFile = join(dir, 'pgbouncer.log');
  const { host, port: serverPort, user } = options.server;
  writeFileSync(join(dir, 'userlist.txt'), `"${user}" ""\n`);
  writeFileSync(
    join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = host=${host} port=${serverPort}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${join(dir, 'userlist.txt')}`,
      `pool_mode = ${options.poolMode ?? 'transaction'}`,
      `default_pool_size = ${options.poolSize ?? 2}`,
      'max_client_conn = 500',
      'ignore_startup_parameters = extra_float_digits',
      `logfile = ${logFile}`,
      '',
    ].join('\n'),
  );
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const uid = Number((await run('id', ['-u', 'postgres'])).stdout.trim());
    const gid = Number((await run('id', ['-g', 'postgres'])).stdout.trim());
    for (const file of [dir, join(dir, 'userlist.txt'), join(dir, 'pgbouncer.ini')]) chownSync(file, uid, gid);
  }
  const command = asRoot ? 'runuser' : PGBOUNCER_BIN;
  const args = [join(dir, 'pgbouncer.ini')];
  const child: ChildProcess = spawn(command, asRoot ? ['-u', 'postgres', '--', PGBOUNCER_BIN, ...args] : args, {
    stdio: 'ignore',
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const log = () => (existsSync(logFile) ? readFileSync(logFile, 'utf8') : '');
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      // runuser passes SIGTERM on to pgbouncer (which then exits at once).
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const probe = knex({
    client: 'pg',
    connection: { host: '127.0.0.1', port, user, database: 'postgres', connectionTimeoutMillis: 1000 },
    pool: { min: 0, max: 1 },
    // Refused connections while it starts are expected: no knex warning on the console.
    log: { warn: () => undefined, error: () => undefined, debug: () => undefined, deprecate: () => undefined },
  });
  try {
    for (let attempt = 0; attempt < 100; attempt += 1) {
      if (child.exitCode !== null) break;
      try {
        await probe.raw('SELECT 1');
        return { port, log, stop };
      } catch {
        await delay(100);
      }
    }
    const text = log();
    await stop();
    throw new Error(`pgbouncer on port ${port} did not start:\n${text}`);
  } finally {
    await probe.destroy();
  }
}
