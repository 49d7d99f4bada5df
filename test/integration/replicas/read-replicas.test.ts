import { expect } from 'chai';
import knex, { type Knex } from 'knex';
import { setTimeout as delay } from 'node:timers/promises';
import { startServer, type RunningServer } from '../../../src/server.js';
import { createRole, createUser } from '../auth/helpers.js';
import { adminRequest, createNotes, type Reply } from '../faults/load.js';
import { capturingLogger } from '../../support/capturing-logger.js';
import { TEST_ADMIN, testConfig } from '../../support/server.js';
import { requireOrSkip } from '../../support/services.js';
import {
  createThrowawayPostgres,
  createThrowawayStandby,
  throwawayPostgresUnavailable,
  type ThrowawayPostgres,
} from '../../support/throwaway-postgres.js';

/** Long enough for three reads on a loaded machine, short enough to wait out. */
const READ_YOUR_WRITES_MS = 3000;
const READER_TOKEN = 'replica-test-reader-token';
const LIMITED_TOKEN = 'replica-test-limited-token';

/** A request as `token`, JSON in and out. */
async function request(url: string, token: string, method: string, path: string, body?: unknown): Promise<Reply> {
  const res = await fetch(url + path, {
    method,
    headers: {
      Authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text === '' ? undefined : (JSON.parse(text) as Reply['body']) };
}

function titlesOf(reply: Reply): string[] {
  expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
  return (reply.body?.data as { title: string }[]).map((note) => note.title).sort();
}

describe('PostgreSQL read replicas (throw-away primary and streaming standby)', function () {
  this.timeout(120_000);
  let primary: ThrowawayPostgres | undefined;
  let standby: ThrowawayPostgres | undefined;
  let server: RunningServer | undefined;
  let onPrimary: Knex | undefined;
  let onStandby: Knex | undefined;
  let limitedRole = '';
  const lines: Record<string, unknown>[] = [];

  const connect = (cluster: ThrowawayPostgres) =>
    knex({
      client: 'pg',
      connection: { host: '127.0.0.1', port: cluster.port, user: 'root', database: 'postgres' },
      pool: { min: 0, max: 2 },
    });
  /** Every note, each way a reader reaches them: the fast path, Express (a conditional GET) and GraphQL. */
  const notesAs = async (token: string) => {
    const url = server!.url;
    const fast = titlesOf(await request(url, token, 'GET', '/items/notes?fields=title&limit=-1&sort=id'));
    const res = await fetch(`${url}/items/notes?fields=title&sort=id`, {
      headers: { Authorization: `Bearer ${token}`, 'If-None-Match': '"none"' },
    });
    const viaExpress = titlesOf({ status: res.status, body: (await res.json()) as Reply['body'] });
    const graphql = await request(url, token, 'POST', '/graphql', { query: '{ notes(sort: ["id"]) { title } }' });
    expect(graphql.status, JSON.stringify(graphql.body)).to.equal(200);
    const viaGraphql = ((graphql.body?.data as { notes: { title: string }[] }).notes ?? []).map((n) => n.title).sort();
    expect(viaExpress, 'Express read').to.deep.equal(fast);
    expect(viaGraphql, 'GraphQL read').to.deep.equal(fast);
    return fast;
  };
  const pauseReplay = () => onStandby!.raw('SELECT pg_wal_replay_pause()');
  /** Resumes replay and waits until the standby has replayed everything the primary wrote. */
  const catchUp = async () => {
    await onStandby!.raw('SELECT pg_wal_replay_resume()');
    const { rows } = await onPrimary!.raw<{ rows: { lsn: string }[] }>('SELECT pg_current_wal_lsn()::text AS lsn');
    for (let i = 0; i < 200; i += 1) {
      const { rows: done } = await onStandby!.raw<{ rows: { ok: boolean }[] }>(
        'SELECT pg_last_wal_replay_lsn() >= ?::pg_lsn AS ok',
        [rows[0]!.lsn],
      );
      if (done[0]!.ok) return;
      await delay(50);
    }
    throw new Error('the standby did not catch up within 10 s');
  };
  const insertDirectly = (title: string) => onPrimary!('notes').insert({ title });

  before(async function () {
    requireOrSkip(this, throwawayPostgresUnavailable());
    primary = await createThrowawayPostgres();
    standby = await createThrowawayStandby(primary);
    onPrimary = connect(primary);
    onStandby = connect(standby);
    server = await startServer(
      testConfig(
        { dialect: 'postgres', env: primary.env, drop: () => Promise.resolve() },
        {
          DB_REPLICA_HOST: '127.0.0.1',
          DB_REPLICA_PORT: String(standby.port),
          DB_REPLICA_READ_YOUR_WRITES: `${READ_YOUR_WRITES_MS}ms`,
        },
      ),
      { logger: capturingLogger(lines) },
    );
    await createNotes(server.url);
    await insertDirectly('first');
    const admins = await onPrimary('svc_roles').where({ admin_access: true }).first<{ id: string }>('id');
    await createUser(onPrimary, { role: admins!.id, token: READER_TOKEN });
    limitedRole = await createRole(onPrimary, {});
    await createUser(onPrimary, { role: limitedRole, token: LIMITED_TOKEN });
    await server.schema.invalidate();
    await catchUp();
  });

  after(async () => {
    await server?.close();
    await onPrimary?.destroy();
    await onStandby?.destroy();
    await standby?.destroy();
    await primary?.destroy();
  });

  it('serves reads from the replica: a row the paused standby has not replayed is not seen, then is once it has', async () => {
    expect(await notesAs(READER_TOKEN)).to.deep.equal(['first']);
    await pauseReplay();
    await insertDirectly('unreplayed');
    expect(await notesAs(READER_TOKEN), 'read on the lagging replica').to.deep.equal(['first']);
    expect(await notesAs(TEST_ADMIN.token), 'read on the lagging replica').to.deep.equal(['first']);
    await catchUp();
    expect(await notesAs(READER_TOKEN)).to.deep.equal(['first', 'unreplayed']);
  });

  it('a caller reads its own write at once (primary), others see the lagging replica, and after the window the writer is back on the replica', async () => {
    const url = server!.url;
    await pauseReplay();
    const created = await adminRequest(url, 'POST', '/items/notes', { title: 'mine' });
    expect(created.status, JSON.stringify(created.body)).to.equal(200);
    expect(await notesAs(TEST_ADMIN.token), 'the writer').to.include('mine');
    expect(await notesAs(READER_TOKEN), 'another caller').not.to.include('mine');
    await delay(READ_YOUR_WRITES_MS + 300);
    expect(await notesAs(TEST_ADMIN.token), 'the writer after the window').not.to.include('mine');
    await catchUp();
    expect(await notesAs(READER_TOKEN)).to.include('mine');
  });

  it('takes schema and permissions from the primary while the replica lags: a new collection and a new grant work at once', async () => {
    const url = server!.url;
    expect((await request(url, LIMITED_TOKEN, 'GET', '/items/notes')).status).to.equal(403);
    await pauseReplay();
    const later = await adminRequest(url, 'POST', '/collections', {
      collection: 'later',
      schema: {},
      fields: [
        { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } },
        { field: 'name', type: 'string', schema: {} },
      ],
    });
    expect(later.status, JSON.stringify(later.body)).to.equal(200);
    expect((await adminRequest(url, 'POST', '/items/later', { name: 'new' })).status).to.equal(200);
    const granted = await adminRequest(url, 'POST', '/permissions', {
      role: limitedRole,
      collection: 'notes',
      action: 'read',
      fields: ['*'],
      permissions: {},
    });
    expect(granted.status, JSON.stringify(granted.body)).to.equal(200);
    await insertDirectly('after-grant');

    // The table is not on the replica yet: the statement runs on the primary.
    const newRows = await request(url, READER_TOKEN, 'GET', '/items/later?fields=name');
    expect(newRows.status, JSON.stringify(newRows.body)).to.equal(200);
    expect(newRows.body?.data).to.deep.equal([{ name: 'new' }]);
    // The grant is read from the primary; the rows from the replica, which lags.
    const limited = await request(url, LIMITED_TOKEN, 'GET', '/items/notes?fields=title&sort=id');
    expect(titlesOf(limited)).to.deep.equal(['first', 'mine', 'unreplayed']);
    await catchUp();
    expect(titlesOf(await request(url, LIMITED_TOKEN, 'GET', '/items/notes?fields=title'))).to.include('after-grant');
  });

  it('a replica that is down: every read still answers (from the primary), said once in the log, and the replica is used again when back', async () => {
    const url = server!.url;
    await onStandby!.destroy(); // its own idle connection would be cut too
    await standby!.stop('fast');
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        request(url, i % 2 === 0 ? READER_TOKEN : LIMITED_TOKEN, 'GET', '/items/notes?fields=title'),
      ),
    );
    expect(replies.map((reply) => reply.status)).to.deep.equal(replies.map(() => 200));
    for (const reply of replies) expect(titlesOf(reply)).to.include('after-grant');
    await insertDirectly('while-down');
    expect(await notesAs(READER_TOKEN), 'read on the primary').to.include('while-down');
    const downLines = lines.filter((line) => String(line['msg']).includes('cannot be reached'));
    expect(downLines, 'one log line per outage').to.have.length(1);
    expect(downLines[0]!['level']).to.equal(40);
    expect(String(downLines[0]!['msg'])).to.include(`127.0.0.1:${standby!.port}`);

    await standby!.start();
    onStandby = connect(standby!);
    await catchUp();
    await delay(5200); // the replica is left out for 5 s after a failed connection
    await pauseReplay();
    await insertDirectly('unreplayed-again');
    expect(await notesAs(READER_TOKEN), 'read on the replica again').not.to.include('unreplayed-again');
    expect(lines.some((line) => String(line['msg']).includes('answers again'))).to.equal(true);
    await catchUp();
  });
});
