import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mariadbTarget, postgresTarget, requireOrSkip, type DatabaseTarget } from '../support/services.js';
import { freePort } from '../support/ports.js';
import { PROCESS_TEST_TIMEOUT_MS, runUntilExit, type Exited } from '../support/service-process.js';

// A start that cannot succeed says why in one line on stderr, with what to change, and exits 1:
// no driver stack unless LOG_LEVEL=debug.
const dir = mkdtempSync(join(tmpdir(), 'svc-startup-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const BASE = {
  HOST: '127.0.0.1',
  PORT: '0',
  SECRET: 'startup-test',
  LOG_STYLE: 'raw',
  STORAGE_LOCAL_ROOT: join(dir, 'uploads'),
  TEMP_PATH: join(dir, 'tmp'),
};
const STACK_LINE = /^\s+at /m;

/** The one line of a failed start (exit 1, nothing else on stderr, no stack anywhere). */
function oneLine(result: Exited): string {
  expect(result.code, result.stdout + result.stderr).to.equal(1);
  const lines = result.stderr.split('\n').filter((line) => line !== '');
  expect(lines, result.stderr).to.have.length(1);
  expect(result.stdout + result.stderr).not.to.match(STACK_LINE);
  return lines[0] ?? '';
}

/** Runs `work` while another server holds a local port. */
async function withBusyPort(work: (port: number) => Promise<void>): Promise<void> {
  const busy: Server = createServer();
  await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
  const address = busy.address();
  try {
    await work(typeof address === 'object' && address !== null ? address.port : 0);
  } finally {
    await new Promise<void>((resolve) => busy.close(() => resolve()));
  }
}

async function withDatabaseEnv(ctx: Mocha.Context, target: DatabaseTarget): Promise<Record<string, string>> {
  requireOrSkip(ctx, await target.unavailable());
  const database = await target.create();
  await database.drop();
  return { ...database.env };
}

describe('start-up failures', function () {
  this.timeout(PROCESS_TEST_TIMEOUT_MS);

  it('a port in use names the port and PORT', () =>
    withBusyPort(async (port) => {
      const line = oneLine(await runUntilExit({ ...BASE, PORT: String(port), DB_FILENAME: join(dir, 'port.sqlite') }));
      expect(line).to.equal(
        `Port ${port} on 127.0.0.1 is already in use (another instance of the service, or another program): stop it, or set PORT to a free port.`,
      );
    }));

  it('with LOG_LEVEL=debug the same line is followed by the stack', () =>
    withBusyPort(async (port) => {
      const result = await runUntilExit({
        ...BASE,
        PORT: String(port),
        DB_FILENAME: join(dir, 'debug.sqlite'),
        LOG_LEVEL: 'debug',
      });
      expect(result.code).to.equal(1);
      expect(result.stderr.split('\n')[0]).to.match(new RegExp(`^Port ${port} on 127\\.0\\.0\\.1 is already in use`));
      expect(result.stderr).to.contain('EADDRINUSE').and.match(STACK_LINE);
    }));

  it('a SQLite file that cannot be made names DB_FILENAME', async () => {
    const blocker = join(dir, 'a-file');
    writeFileSync(blocker, 'not a folder');
    const line = oneLine(await runUntilExit({ ...BASE, DB_FILENAME: join(blocker, 'database.sqlite') }));
    expect(line).to.match(
      /^Cannot open the SQLite database ".*a-file\/database\.sqlite" \(.+\): set DB_FILENAME to a file in a writable folder\.$/,
    );
  });

  it('PostgreSQL not listening: host, port and database named, and the fix', async function () {
    const env = await withDatabaseEnv(this, postgresTarget);
    const port = await freePort();
    // After DB_CONNECT_WAIT (waiting is the faults suite's; here: none), the one line.
    const line = oneLine(
      await runUntilExit({
        ...BASE,
        ...env,
        DB_HOST: '127.0.0.1',
        DB_PORT: String(port),
        DB_DATABASE: 'svc',
        DB_CONNECT_WAIT: '0',
      }),
    );
    expect(line).to.equal(
      `Cannot reach PostgreSQL at 127.0.0.1:${port} (database "svc"): nothing listens there. Start the database server, or set DB_HOST / DB_PORT to where it runs.`,
    );
  });

  it('a missing PostgreSQL database gives the createdb command', async function () {
    const env = await withDatabaseEnv(this, postgresTarget);
    const line = oneLine(await runUntilExit({ ...BASE, ...env }));
    const name = env['DB_DATABASE'] ?? '';
    expect(line).to.contain(
      `PostgreSQL at ${env['DB_HOST']}:${env['DB_PORT']} has no database "${name}": create it with \`createdb -h ${env['DB_HOST']} -p ${env['DB_PORT']} -U ${env['DB_USER']} ${name}\``,
    );
    expect(line).to.contain('or set DB_DATABASE');
  });

  it('a missing MariaDB database gives the CREATE DATABASE command', async function () {
    const env = await withDatabaseEnv(this, mariadbTarget);
    const line = oneLine(await runUntilExit({ ...BASE, ...env }));
    const name = env['DB_DATABASE'] ?? '';
    expect(line).to.contain(`MariaDB/MySQL at ${env['DB_HOST']}:${env['DB_PORT']} has no database "${name}"`);
    expect(line).to.contain(`CREATE DATABASE ${name}`);
  });

  it('DB_SSL=true against a PostgreSQL without TLS names the TLS settings', async function () {
    requireOrSkip(this, await postgresTarget.unavailable());
    const database = await postgresTarget.create();
    try {
      const line = oneLine(await runUntilExit({ ...BASE, ...database.env, DB_SSL: 'true' }));
      expect(line).to.match(
        new RegExp(
          `^TLS to PostgreSQL at ${database.env['DB_HOST']}:${database.env['DB_PORT']} failed \\(.+\\): check DB_SSL`,
        ),
      );
      expect(line).to.contain('DB_SSL__CA').and.contain('DB_SSL__REJECT_UNAUTHORIZED');
    } finally {
      await database.drop();
    }
  });

  it('DB_SSL__CA_FILE that cannot be read is named', async () => {
    const line = oneLine(
      await runUntilExit({
        ...BASE,
        DB_CLIENT: 'pg',
        DB_DATABASE: 'svc',
        DB_SSL: 'true',
        DB_SSL__CA_FILE: join(dir, 'no-such-ca.pem'),
      }),
    );
    expect(line).to.match(/^Invalid configuration: DB_SSL__CA_FILE cannot be read/);
  });

  it('Redis not listening names REDIS', async () => {
    const port = await freePort();
    const line = oneLine(
      await runUntilExit({
        ...BASE,
        DB_FILENAME: join(dir, 'redis.sqlite'),
        REDIS: `redis://127.0.0.1:${port}`,
        LOG_LEVEL: 'error',
      }),
    );
    expect(line).to.equal(
      `Cannot reach Redis at 127.0.0.1:${port} (REDIS): start it, or leave REDIS unset to keep caches in memory and run jobs in this process.`,
    );
  });
});
