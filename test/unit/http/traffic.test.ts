import { expect } from 'chai';
import knex from 'knex';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAX_WAIT_MS, RequestTraffic, setAsideWaitsForConnections } from '../../../src/http/traffic.js';

/** Long writes give way to the requests in flight (http/traffic.ts), counted on a real server. */
describe('RequestTraffic', () => {
  let server: Server;
  let traffic: RequestTraffic;
  let base: string;
  const held: ServerResponse[] = [];

  before(async () => {
    traffic = new RequestTraffic();
    server = createServer((_req, res) => {
      traffic.enter(res);
      held.push(res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(async () => {
    for (const res of held.splice(0)) res.end();
    await new Promise((resolve) => server.close(resolve));
  });

  /** Sends a request the server holds until `release`; resolves once the server counts it. */
  async function hold(): Promise<{ release(): Promise<void> }> {
    const before = traffic.inFlight;
    const answered = fetch(base).then((res) => res.text());
    while (traffic.inFlight === before) await new Promise((resolve) => setTimeout(resolve, 1));
    const res = held[held.length - 1];
    return {
      release: async () => {
        res?.end('done');
        await answered;
      },
    };
  }

  const turns = async (count: number) => {
    for (let turn = 0; turn < count; turn += 1) await new Promise((resolve) => setImmediate(resolve));
  };

  it('the writer alone in flight: a turn of the event loop, no wait', async () => {
    const writer = await hold();
    expect(traffic.isBusy()).to.equal(false);
    let hasWaited = false;
    const waiting = traffic.giveWay().then(() => (hasWaited = true));
    await turns(2);
    expect(hasWaited, 'waited with no other request in flight').to.equal(true);
    await waiting;
    await writer.release();
    expect(traffic.inFlight).to.equal(0);
  });

  it('another request in flight: the writer waits until it is answered', async () => {
    const writer = await hold();
    const reader = await hold();
    expect(traffic.inFlight).to.equal(2);
    expect(traffic.isBusy()).to.equal(true);
    let hasWaited = false;
    const waiting = traffic.giveWay().then(() => (hasWaited = true));
    await turns(2);
    expect(hasWaited, 'went on while a read was in flight').to.equal(false);
    await reader.release();
    await waiting;
    expect(hasWaited).to.equal(true);
    await writer.release();
  });

  it('requests that stay in flight hold a writer back MAX_WAIT_MS at most', async () => {
    const writer = await hold();
    const reader = await hold();
    const started = performance.now();
    await traffic.giveWay();
    // Timers may fire a little early or late; the wait is bounded, not endless.
    expect(performance.now() - started).to.be.within(MAX_WAIT_MS - 2, MAX_WAIT_MS * 10);
    await reader.release();
    await writer.release();
  });

  it('a request waiting for a connection the writer holds (SQLite: its one) is not waited for', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'traffic-'));
    const db = knex({
      client: 'better-sqlite3',
      connection: { filename: join(dir, 'one.db') },
      useNullAsDefault: true,
    });
    setAsideWaitsForConnections(db, traffic);
    let release: () => void = () => undefined;
    try {
      await db.schema.createTable('t', (t) => t.integer('n'));
      const writer = await hold();
      const open = new Promise<void>((resolve) => (release = resolve));
      // The long write's transaction holds the pool's one connection until released.
      const writing = db.transaction(async (trx) => {
        await trx('t').insert({ n: 1 });
        await open;
      });
      while (traffic.inFlight === 1 && (db.client as { pool: { numFree(): number } }).pool.numFree() > 0) {
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      const other = await hold();
      expect(traffic.isBusy()).to.equal(true);
      const waitingForWriter = db('t')
        .count({ n: '*' })
        .then((rows) => rows);
      for (let turn = 0; turn < 100 && traffic.isBusy(); turn += 1) await turns(1);
      expect(traffic.isBusy(), 'counted while it waits for the writer').to.equal(false);
      let hasWaited = false;
      const waiting = traffic.giveWay().then(() => (hasWaited = true));
      await turns(2);
      expect(hasWaited, 'the writer waited for a request that waits for it').to.equal(true);
      await waiting;
      release();
      await writing;
      expect(await waitingForWriter).to.deep.equal([{ n: 1 }]);
      expect(traffic.inFlight, 'counted again once it has the connection').to.equal(2);
      await other.release();
      await writer.release();
      expect(traffic.inFlight).to.equal(0);
    } finally {
      release();
      await db.destroy();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
