import { expect } from 'chai';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MAX_WAIT_MS, RequestTraffic } from '../../../src/http/traffic.js';

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
});
