import { expect } from 'chai';
import { setTimeout as delay } from 'node:timers/promises';
import { createLogger } from '../../../src/logger/index.js';
import { startServer, type RunningServer } from '../../../src/server.js';
import { TEST_ADMIN, testConfig } from '../../support/server.js';
import { requireOrSkip } from '../../support/services.js';
import { createThrowawayPostgres, throwawayPostgresUnavailable, type ThrowawayPostgres } from '../../support/throwaway-postgres.js';

type Row = Record<string, unknown>;

/** One answer of the load: what a client saw, or that it saw no HTTP answer at all. */
interface Answer {
  readonly kind: 'write' | 'read';
  readonly title: string;
  readonly sentAt: number;
  readonly status: number;
  readonly body: { data?: Row | Row[]; errors?: { message: string; extensions: { code?: string } }[] } | undefined;
}

const WRITE_LOOPS = 5;
/** Issue 24: the pool recovers by itself within 5 s of the database being back. */
const RECOVERY_MS = 5000;

async function request(url: string, method: string, body?: unknown): Promise<Pick<Answer, 'status' | 'body'>> {
  const res = await fetch(url, {
    method,
    headers: { Authorization: `Bearer ${TEST_ADMIN.token}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text === '' ? undefined : (JSON.parse(text) as Answer['body']) };
}

describe('PostgreSQL restarted under a write load (throw-away cluster)', function () {
  this.timeout(60_000);
  let cluster: ThrowawayPostgres | undefined;
  let server: RunningServer | undefined;

  before(async function () {
    requireOrSkip(this, throwawayPostgresUnavailable());
    cluster = await createThrowawayPostgres();
    server = await startServer(testConfig({ dialect: 'postgres', env: cluster.env, drop: () => Promise.resolve() }, { DB_POOL__MAX: '8' }), {
      logger: createLogger({ logLevel: 'silent', logStyle: 'raw' }),
    });
    const created = await request(`${server.url}/collections`, 'POST', {
      collection: 'notes',
      schema: {},
      fields: [
        { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } },
        { field: 'title', type: 'string', schema: {} },
      ],
    });
    expect(created.status, JSON.stringify(created.body)).to.equal(200);
  });

  after(async () => {
    await server?.close();
    await cluster?.destroy();
  });

  it('failed requests are 503 SERVICE_UNAVAILABLE, the pool recovers within 5 s, no acknowledged write is lost or unjournaled', async () => {
    const { url, db } = server!;
    const answers: Answer[] = [];
    let isLoading = true;
    const send = async (kind: Answer['kind'], title: string, method: string, path: string, body?: unknown) => {
      const sentAt = Date.now();
      answers.push({ kind, title, sentAt, ...(await request(url + path, method, body)) });
    };
    const writer = async (loop: number) => {
      for (let i = 0; isLoading; i += 1) await send('write', `w${loop}-${i}`, 'POST', '/items/notes', { title: `w${loop}-${i}` });
    };
    const reader = async () => {
      while (isLoading) await send('read', '', 'GET', '/items/notes?limit=5&sort=-id');
    };
    const loops = [...Array.from({ length: WRITE_LOOPS }, (_, loop) => writer(loop)), reader()];

    await delay(1000);
    await cluster!.stop('fast');
    await delay(1500);
    await cluster!.start();
    const backAt = Date.now();
    await delay(RECOVERY_MS + 1000);
    isLoading = false;
    await Promise.all(loops);

    // Every answer is a success or the 503 of the error shape: never a 500.
    const failed = answers.filter((a) => a.status !== 200);
    for (const answer of failed) {
      expect(answer.status, JSON.stringify(answer.body)).to.equal(503);
      expect(answer.body?.errors?.[0]?.extensions.code).to.equal('SERVICE_UNAVAILABLE');
    }
    expect(failed.length, 'the restart was felt').to.be.greaterThan(0);
    // Recovered by itself: every request sent RECOVERY_MS after the database was back succeeded.
    const late = answers.filter((a) => a.sentAt >= backAt + RECOVERY_MS);
    expect(late.length).to.be.greaterThan(0);
    expect(late.filter((a) => a.status !== 200).map((a) => a.body)).to.deep.equal([]);
    const firstSuccess = Math.min(...answers.filter((a) => a.status === 200 && a.sentAt >= backAt).map((a) => a.sentAt));
    process.stdout.write(
      `      ${answers.length} requests, ${failed.length} answered 503; first success ${firstSuccess - backAt} ms after the database was back\n`,
    );

    // Every acknowledged write is there once, with the key it was answered with.
    const notes = await db('notes').select<{ id: number; title: string }[]>('id', 'title');
    const byTitle = new Map(notes.map((n) => [n.title, n.id]));
    expect(notes.length, 'no title written twice').to.equal(byTitle.size);
    for (const write of answers.filter((a) => a.kind === 'write' && a.status === 200)) {
      expect(byTitle.get(write.title), write.title).to.equal(Number((write.body?.data as Row)['id']));
    }
    // No item without its activity and revision, no journal row without its item.
    const activity = await db('svc_activity').where({ collection: 'notes', action: 'create' }).select<{ id: number; item: string }[]>('id', 'item');
    const revisions = await db('svc_revisions').where({ collection: 'notes' }).select<{ activity: number; item: string }[]>('activity', 'item');
    const ids = notes.map((n) => String(n.id)).sort();
    expect(activity.map((a) => String(a.item)).sort()).to.deep.equal(ids);
    expect(revisions.map((r) => String(r.item)).sort()).to.deep.equal(ids);
    const activityIds = new Set(activity.map((a) => a.id));
    expect(revisions.filter((r) => !activityIds.has(r.activity))).to.deep.equal([]);
  });
});
