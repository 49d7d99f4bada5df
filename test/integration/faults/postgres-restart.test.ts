import { expect } from 'chai';
import { setTimeout as delay } from 'node:timers/promises';
import { requireCollection } from '../../../catalog/overview/lookup.js';
import { serviceAccountability } from '../../../src/access/accountability.js';
import { PermissionStore } from '../../../src/access/permission-store.js';
import { ItemsService } from '../../../src/items/items-service.js';
import { createLogger } from '../../../src/logger/index.js';
import { startServer, type RunningServer } from '../../../src/server.js';
import { capturingLogger } from '../../support/capturing-logger.js';
import { testConfig } from '../../support/server.js';
import { requireOrSkip } from '../../support/services.js';
import { adminRequest, createNotes, journaledNotes, type Reply } from './load.js';
import {
  createThrowawayPostgres,
  throwawayPostgresUnavailable,
  type ThrowawayPostgres,
} from '../../support/throwaway-postgres.js';

type Row = Record<string, unknown>;

/** One answer of the load: what a client saw, or that it saw no HTTP answer at all. */
interface Answer extends Reply {
  readonly kind: 'write' | 'read' | 'graphql';
  readonly title: string;
  readonly sentAt: number;
}

const WRITE_LOOPS = 5;
/** Issue 24: the pool recovers by itself within 5 s of the database being back. */
const RECOVERY_MS = 5000;

describe('PostgreSQL restarted under a write load (throw-away cluster)', function () {
  this.timeout(60_000);
  let cluster: ThrowawayPostgres | undefined;
  let server: RunningServer | undefined;
  const serverErrors: Record<string, unknown>[] = [];

  before(async function () {
    requireOrSkip(this, throwawayPostgresUnavailable());
    cluster = await createThrowawayPostgres();
    server = await startServer(
      testConfig({ dialect: 'postgres', env: cluster.env, drop: () => Promise.resolve() }, { DB_POOL__MAX: '8' }),
      // Its errors only: a 500 under the restart is reported with what the server logged of it.
      { logger: capturingLogger(serverErrors, 'error') },
    );
    await createNotes(server.url);
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
      answers.push({ kind, title, sentAt, ...(await adminRequest(url, method, path, body)) });
    };
    const writer = async (loop: number) => {
      for (let i = 0; isLoading; i += 1)
        await send('write', `w${loop}-${i}`, 'POST', '/items/notes', { title: `w${loop}-${i}` });
    };
    const reader = async () => {
      while (isLoading) await send('read', '', 'GET', '/items/notes?limit=5&sort=-id');
    };
    const graphqlWriter = async () => {
      for (let i = 0; isLoading; i += 1) {
        await send('graphql', `g-${i}`, 'POST', '/graphql', {
          query: `mutation { create_notes_item(data: { title: "g-${i}" }) { id title } }`,
        });
      }
    };
    const loops = [...Array.from({ length: WRITE_LOOPS }, (_, loop) => writer(loop)), reader(), graphqlWriter()];

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
      expect(
        answer.status,
        `${JSON.stringify(answer.body)}; the server logged ${JSON.stringify(serverErrors)}`,
      ).to.equal(503);
      expect(answer.body?.errors?.[0]?.extensions.code).to.equal('SERVICE_UNAVAILABLE');
    }
    expect(failed.length, 'the restart was felt').to.be.greaterThan(0);
    // Recovered by itself: every request sent RECOVERY_MS after the database was back succeeded.
    const late = answers.filter((a) => a.sentAt >= backAt + RECOVERY_MS);
    expect(late.length).to.be.greaterThan(0);
    expect(late.filter((a) => a.status !== 200).map((a) => a.body)).to.deep.equal([]);
    const firstSuccess = Math.min(
      ...answers.filter((a) => a.status === 200 && a.sentAt >= backAt).map((a) => a.sentAt),
    );
    process.stdout.write(
      `      ${answers.length} requests, ${failed.length} answered 503; first success ${firstSuccess - backAt} ms after the database was back\n`,
    );

    // Every acknowledged write is there once, with the key it was answered with, and journaled.
    const byTitle = new Map((await journaledNotes(db)).map((n) => [n.title, n.id]));
    for (const write of answers.filter((a) => a.kind === 'write' && a.status === 200)) {
      expect(byTitle.get(write.title), write.title).to.equal(Number((write.body?.data as Row)['id']));
    }
    // GraphQL: 200 (its errors in the body) or 503 before execution; only SERVICE_UNAVAILABLE
    // errors, and an item answered as created is there.
    for (const mutation of answers.filter((a) => a.kind === 'graphql')) {
      expect(mutation.status).to.be.oneOf([200, 503]);
      expect(
        (mutation.body?.errors ?? []).map((e) => e.extensions.code).filter((code) => code !== 'SERVICE_UNAVAILABLE'),
        JSON.stringify(mutation.body),
      ).to.deep.equal([]);
      const created = (mutation.body?.data as { create_notes_item?: Row | null } | undefined)?.create_notes_item;
      if (created !== undefined && created !== null)
        expect(byTitle.get(mutation.title), mutation.title).to.equal(Number(created['id']));
    }
  });

  it('a start while the database is down waits, says so in one line, and starts once it is up (DB_CONNECT_WAIT)', async () => {
    const lines: Record<string, unknown>[] = [];
    await cluster!.stop('fast');
    const database = { dialect: 'postgres' as const, env: cluster!.env, drop: () => Promise.resolve() };
    const starting = startServer(testConfig(database, { DB_CONNECT_WAIT: '30s' }), { logger: capturingLogger(lines) });
    await delay(2500);
    const waiting = lines.filter((l) => String(l['msg']).startsWith('database not reachable yet'));
    expect(waiting, JSON.stringify(lines)).to.have.length(1);
    expect(waiting[0]).to.include({ level: 40, waitMs: 30_000 });
    await cluster!.start();
    const second = await starting;
    try {
      expect(lines.map((l) => l['msg'])).to.include.members(['database reachable: starting', 'listening']);
      const notes = await adminRequest(second.url, 'GET', '/items/notes?aggregate[count]=*');
      expect(notes.status, JSON.stringify(notes.body)).to.equal(200);
    } finally {
      await second.close();
    }
  });

  it('DB_CONNECT_WAIT=0: a start against a database that is down fails at once with the connection error', async () => {
    await cluster!.stop('fast');
    try {
      const database = { dialect: 'postgres' as const, env: cluster!.env, drop: () => Promise.resolve() };
      const started = Date.now();
      const failure = await startServer(testConfig(database, { DB_CONNECT_WAIT: '0' }), {
        logger: createLogger({ logLevel: 'silent', logStyle: 'raw' }),
      }).then(
        () => expect.fail('the server started'),
        (error: unknown) => error as { code?: string },
      );
      expect(failure.code).to.equal('ECONNREFUSED');
      expect(Date.now() - started).to.be.below(5000);
    } finally {
      await cluster!.start();
    }
  });

  it('a committed write whose re-read fails (database gone after the commit) answers its keys, not an error', async () => {
    const { db, schema } = server!;
    const overview = await schema.getOverview();
    const notes = requireCollection(overview, 'notes');
    const caller = serviceAccountability({
      user: null,
      role: null,
      admin: true,
      app: false,
      ip: null,
      userAgent: null,
      origin: null,
    });
    const warnings: unknown[] = [];
    const deps = {
      config: testConfig({ dialect: 'postgres', env: cluster!.env, drop: () => Promise.resolve() }),
      db,
      permissions: new PermissionStore(db, { enabled: false }),
      schema,
      invalidation: { changed: () => Promise.resolve() },
      logger: { debug: () => undefined, warn: (details: object) => warnings.push(details) },
    };
    const items = new ItemsService(notes.collection, deps, { accountability: caller, schema: overview });
    await cluster!.stop('fast');
    try {
      expect(await items.readWritten([41], { fields: ['*'] }, 'one')).to.deep.equal({
        id: 41,
      });
      expect(await items.readWritten([41, 42], { fields: ['*'] }, 'many')).to.deep.equal([{ id: 41 }, { id: 42 }]);
      expect(warnings).to.have.length(2);
    } finally {
      await cluster!.start();
    }
  });
});
