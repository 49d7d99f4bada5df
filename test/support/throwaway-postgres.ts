import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Where Debian puts the server binaries; TEST_PG_BIN overrides. */
const PG_BIN = process.env['TEST_PG_BIN'] ?? '/usr/lib/postgresql/15/bin';

/**
 * A PostgreSQL cluster of its own (initdb in a temp folder, its own port) for tests that stop
 * and start the server: the machine's server is never touched. PostgreSQL refuses to run as
 * root, so as root the binaries run as the `postgres` user (runuser) in a folder it owns.
 */
export interface ThrowawayPostgres {
  readonly port: number;
  /** The service's environment for the cluster's `postgres` database. */
  readonly env: Readonly<Record<string, string>>;
  start(): Promise<void>;
  /** `fast`: connections are terminated (57P01), as in a restart by an operator. */
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  /** Stops (if running) and deletes the cluster. */
  destroy(): Promise<void>;
}

/** Why a throw-away cluster cannot be made here, or undefined when it can. */
export function throwawayPostgresUnavailable(): string | undefined {
  if (!existsSync(join(PG_BIN, 'initdb'))) return `no PostgreSQL server binaries in ${PG_BIN} (TEST_PG_BIN)`;
  return undefined;
}

export async function createThrowawayPostgres(): Promise<ThrowawayPostgres> {
  return createCluster((pg, data) =>
    pg('initdb', ['-D', data, '-A', 'trust', '-U', 'root', '-E', 'UTF8', '--no-sync']),
  );
}

/**
 * A streaming replica of `primary` (pg_basebackup -R of the running primary, a hot standby
 * on its own port): what the primary commits shows up on it as soon as it is replayed.
 */
export async function createThrowawayStandby(primary: ThrowawayPostgres): Promise<ThrowawayPostgres> {
  return createCluster((pg, data) =>
    // `-c fast`: no waiting for a spread checkpoint (minutes after a bulk load).
    pg('pg_basebackup', [
      ...['-h', '127.0.0.1', '-p', String(primary.port), '-U', 'root', '-D', data],
      ...['-R', '-X', 'stream', '-c', 'fast', '--no-sync'],
    ]),
  );
}

type PgRun = (binary: string, args: readonly string[]) => Promise<unknown>;

async function createCluster(makeData: (pg: PgRun, data: string) => Promise<unknown>): Promise<ThrowawayPostgres> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-pg-'));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: group } = await run('id', ['-g', 'postgres']);
    chownSync(dir, Number(stdout.trim()), Number(group.trim()));
  }
  const pg = (binary: string, args: readonly string[]) =>
    asRoot
      ? run('runuser', ['-u', 'postgres', '--', join(PG_BIN, binary), ...args])
      : run(join(PG_BIN, binary), [...args]);
  const port = await freePort();
  const data = join(dir, 'data');
  try {
    await makeData(pg, data);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=50`;
  let isRunning = false;
  const cluster: ThrowawayPostgres = {
    port,
    env: {
      DB_CLIENT: 'pg',
      DB_HOST: '127.0.0.1',
      DB_PORT: String(port),
      DB_USER: 'root',
      DB_PASSWORD: '',
      DB_DATABASE: 'postgres',
    },
    async start() {
      await pg('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', 'start']);
      isRunning = true;
    },
    async stop(mode = 'fast') {
      await pg('pg_ctl', ['-D', data, '-m', mode, '-w', 'stop']);
      isRunning = false;
    },
    async destroy() {
      if (isRunning) await cluster.stop('immediate').catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    await cluster.start();
  } catch (error) {
    await cluster.destroy();
    throw error;
  }
  return cluster;
}

/** A TCP port nothing listens on now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}
