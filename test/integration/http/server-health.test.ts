import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type { Knex } from 'knex';
import { poolUsage } from '../../../src/db/health.js';
import { createLogger } from '../../../src/logger/index.js';
import { startServer, type RunningServer } from '../../../src/server.js';
import { describeEachDatabase, TEST_ADMIN, testConfig } from '../../support/server.js';
import { requireOrSkip } from '../../support/services.js';
import {
  createThrowawayPostgres,
  throwawayPostgresUnavailable,
  type ThrowawayPostgres,
} from '../../support/throwaway-postgres.js';
import { createThrowawayRedis, throwawayRedisUnavailable, type ThrowawayRedis } from '../../support/throwaway-redis.js';

interface Check {
  readonly status: string;
  readonly componentType: string;
  readonly observedValue?: number;
  readonly output?: string;
}
interface Health {
  readonly status: string;
  readonly checks?: Record<string, Check[]>;
}

const ADMIN = { Authorization: `Bearer ${TEST_ADMIN.token}` };
const silent = () => createLogger({ logLevel: 'silent', logStyle: 'raw' });

async function health(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: Health }> {
  const res = await fetch(`${url}/server/health`, { headers });
  expect(res.headers.get('content-type')).to.match(/^application\/health\+json/);
  return { status: res.status, body: (await res.json()) as Health };
}

/** The first answer `accept` takes within `ms`, polling every 200 ms; the last one otherwise. */
async function healthUntil(
  url: string,
  accept: (answer: { status: number; body: Health }) => boolean,
  ms = 10_000,
): Promise<{ status: number; body: Health }> {
  const until = Date.now() + ms;
  let answer = await health(url);
  while (!accept(answer) && Date.now() < until) {
    await delay(200);
    answer = await health(url);
  }
  return answer;
}

/** Waits until every connection of `db`'s pool is in use and a query waits for one. */
async function untilSaturated(db: Knex): Promise<void> {
  const started = Date.now();
  // Every connection made and in use, and a request waiting: with DB_POOL__MIN 0 the pool opens
  // connections on demand, so for a moment a waiting request can sit beside one still opening.
  const saturated = (usage: NonNullable<ReturnType<typeof poolUsage>>) =>
    usage.pending > 0 && usage.free === 0 && usage.used === usage.max;
  while (!saturated(poolUsage(db)!)) {
    if (Date.now() - started > 10_000) expect.fail(`pool not saturated: ${JSON.stringify(poolUsage(db))}`);
    await delay(20);
  }
}

describeEachDatabase('GET /server/health: every component', (ctx) => {
  const client = () => ({ sqlite: 'sqlite3', postgres: 'pg', mariadb: 'mysql' })[ctx().dialect];

  it('admins see the database round trip, pool, migrations and a storage write as checks; others only the status', async () => {
    const { status, body } = await health(ctx().server.url, ADMIN);
    expect(status).to.equal(200);
    expect(body.status).to.equal('ok');
    const checks = body.checks!;
    expect(checks[`${client()}:responseTime`]![0]).to.include({ status: 'ok', componentType: 'datastore' });
    expect(checks[`${client()}:migrations`]![0]).to.include({ status: 'ok', observedValue: 0 });
    expect(checks[`${client()}:connectionsUsed`]![0]!.observedValue).to.be.a('number');
    expect(checks[`${client()}:connectionsAvailable`]![0]!.observedValue).to.be.greaterThan(0);
    expect(checks['storage:local:responseTime']![0]).to.include({ status: 'ok', componentType: 'objectstore' });
    expect(await health(ctx().server.url)).to.deep.equal({ status: 200, body: { status: 'ok' } });
  });

  it('a migration the database lacks is a warning, still 200 for a load balancer', async () => {
    const { db } = ctx().server;
    const [latest] = await db('svc_migrations').select('*').orderBy('version', 'desc').limit(1);
    await db('svc_migrations').where('version', latest.version).delete();
    try {
      const { status, body } = await health(ctx().server.url, ADMIN);
      expect(status).to.equal(200);
      expect(body.status).to.equal('warn');
      const check = body.checks![`${client()}:migrations`]![0]!;
      expect(check).to.include({ status: 'warn', observedValue: 1 });
      expect(check.output).to.contain(String(latest.version));
    } finally {
      await db('svc_migrations').insert(latest);
    }
    expect((await health(ctx().server.url)).body.status).to.equal('ok');
  });

  it('with every pool connection held by an open transaction and one more waiting, it is warn, still 200', async () => {
    const { db, url } = ctx().server;
    // The admin's token read once: its user is remembered, so an admin request needs no pool slot.
    expect((await health(url, ADMIN)).body.status).to.equal('ok');
    let release = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const held = Array.from({ length: poolUsage(db)!.max + 1 }, () => db.transaction(() => gate));
    try {
      await untilSaturated(db);
      const busy = await health(url, ADMIN);
      expect([busy.status, busy.body.status]).to.deep.equal([200, 'warn']);
      const roundTrip = busy.body.checks![`${client()}:responseTime`]![0]!;
      expect(roundTrip).to.include({ status: 'warn', componentType: 'datastore' });
      expect(roundTrip.output).to.contain('the database answered on a connection of its own');
      expect(busy.body.checks![`${client()}:migrations`]![0]).to.include({ status: 'ok', observedValue: 0 });
    } finally {
      release();
      await Promise.all(held);
    }
    expect(await health(url)).to.deep.equal({ status: 200, body: { status: 'ok' } });
  });
});

describe('GET /server/health: storage that cannot be written', function () {
  let dir: string | undefined;
  let server: RunningServer | undefined;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-health-'));
    // A file where the storage root should be: nothing can be written under it.
    const root = join(dir, 'not-a-folder');
    writeFileSync(root, 'x');
    const database = { dialect: 'sqlite' as const, env: { DB_FILENAME: join(dir, 'db.sqlite') }, drop: async () => {} };
    server = await startServer(testConfig(database, { STORAGE_LOCAL_ROOT: root }), { logger: silent() });
  });
  after(async () => {
    await server?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('is error with 503, and the admin sees which location and why', async () => {
    const { status, body } = await health(server!.url, ADMIN);
    expect(status).to.equal(503);
    expect(body.status).to.equal('error');
    const check = body.checks!['storage:local:responseTime']![0]!;
    expect(check).to.include({ status: 'error', componentType: 'objectstore' });
    expect(check.output).to.be.a('string').and.not.equal('');
    expect(await health(server!.url)).to.deep.equal({ status: 503, body: { status: 'error' } });
  });
});

describe('GET /server/health: PostgreSQL stopped and started again (throw-away cluster)', function () {
  this.timeout(60_000);
  let cluster: ThrowawayPostgres | undefined;
  let server: RunningServer | undefined;

  before(async function () {
    requireOrSkip(this, throwawayPostgresUnavailable());
    cluster = await createThrowawayPostgres();
    server = await startServer(testConfig({ dialect: 'postgres', env: cluster.env, drop: async () => {} }), {
      logger: silent(),
    });
  });
  after(async () => {
    await server?.close();
    await cluster?.destroy();
  });

  it('answers ok, then error with 503 while the database is down, then ok again', async () => {
    expect(await health(server!.url)).to.deep.equal({ status: 200, body: { status: 'ok' } });
    await cluster!.stop('fast');
    const down = await healthUntil(server!.url, (a) => a.status === 503);
    expect(down).to.deep.equal({ status: 503, body: { status: 'error' } });
    await cluster!.start();
    const back = await healthUntil(server!.url, (a) => a.status === 200);
    expect(back).to.deep.equal({ status: 200, body: { status: 'ok' } });
    const details = await health(server!.url, ADMIN);
    expect(details.body.checks!['pg:responseTime']![0]!.status).to.equal('ok');
  });
});

describe('GET /server/health: a busy pool is not a dead database (issue 42, throw-away cluster)', function () {
  this.timeout(60_000);
  /** The pool's size here: two sleeping queries fill it, a third waits for a slot. */
  const POOL_MAX = 2;
  let cluster: ThrowawayPostgres | undefined;
  let server: RunningServer | undefined;
  const sleeping: Promise<unknown>[] = [];

  before(async function () {
    requireOrSkip(this, throwawayPostgresUnavailable());
    cluster = await createThrowawayPostgres();
    const database = { dialect: 'postgres' as const, env: cluster.env, drop: async () => {} };
    server = await startServer(testConfig(database, { DB_POOL__MIN: '0', DB_POOL__MAX: String(POOL_MAX) }), {
      logger: silent(),
    });
  });
  after(async () => {
    // The cluster goes first: should the test stop early, its sleeping queries end with it rather
    // than holding the pool's connections while the server waits to close them.
    await cluster?.destroy();
    await server?.close();
  });

  it('with every pool connection held by a long query it is warn (200); with the database stopped, error (503)', async () => {
    // Reads the migrations once on a free pool (the busy checks report them as last read), and
    // the admin's token once (its user is remembered: an admin request then needs no pool slot).
    expect((await health(server!.url, ADMIN)).body.status).to.equal('ok');
    const db = server!.db;
    for (let n = 0; n <= POOL_MAX; n += 1)
      sleeping.push(db.raw('SELECT pg_sleep(60)').catch((error: unknown) => error));
    await untilSaturated(db);
    expect(poolUsage(db)).to.include({ used: POOL_MAX, free: 0 });

    expect(await health(server!.url)).to.deep.equal({ status: 200, body: { status: 'warn' } });
    const busy = await health(server!.url, ADMIN);
    expect(busy.status).to.equal(200);
    const roundTrip = busy.body.checks!['pg:responseTime']![0]!;
    expect(roundTrip).to.include({ status: 'warn', componentType: 'datastore' });
    expect(roundTrip.output).to.contain(`every pool connection in use (${POOL_MAX} of ${POOL_MAX}, 1 waiting)`);
    expect(busy.body.checks!['pg:migrations']![0]).to.include({ status: 'ok', observedValue: 0 });
    expect(busy.body.checks!['pg:connectionsAvailable']![0]!.observedValue).to.equal(0);

    // Still saturated when the database stops: the check must not take busy for alive.
    expect(poolUsage(db)!.pending).to.equal(1);
    await cluster!.stop('fast');
    const down = await healthUntil(server!.url, (a) => a.status === 503);
    expect(down).to.deep.equal({ status: 503, body: { status: 'error' } });
    const details = await health(server!.url, ADMIN);
    expect(details.body.checks!['pg:responseTime']![0]!.status).to.equal('error');
    // The sleeping queries ended with the database (their errors caught above).
    await Promise.all(sleeping);
  });
});

describe('GET /server/health: Redis stopped (throw-away Redis)', function () {
  this.timeout(30_000);
  let redis: ThrowawayRedis | undefined;
  let dir: string | undefined;
  let server: RunningServer | undefined;

  before(async function () {
    requireOrSkip(this, throwawayRedisUnavailable());
    redis = await createThrowawayRedis();
    dir = mkdtempSync(join(tmpdir(), 'svc-health-'));
    const database = { dialect: 'sqlite' as const, env: { DB_FILENAME: join(dir, 'db.sqlite') }, drop: async () => {} };
    server = await startServer(testConfig(database, { REDIS: redis.url }), { logger: silent() });
  });
  after(async () => {
    await server?.close();
    await redis?.stop();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('reports redis:responseTime; with Redis down it is error (503), naming Redis for the admin', async () => {
    const up = await health(server!.url, ADMIN);
    expect(up.status).to.equal(200);
    expect(up.body.checks!['redis:responseTime']![0]).to.include({ status: 'ok', componentType: 'cache' });
    await redis!.stop();
    const down = await health(server!.url, ADMIN);
    expect(down.status).to.equal(503);
    expect(down.body.checks!['redis:responseTime']![0]).to.include({ status: 'error', componentType: 'cache' });
    expect(down.body.checks!['sqlite3:responseTime']![0]!.status).to.equal('ok');
  });
});
