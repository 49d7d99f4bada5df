import { expect } from 'chai';
import { createServer, request, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { HookBus, whileAnswering, type HookContext } from '../../../src/items/hooks.js';

/** The bus hands the context on to its handlers untouched; these handlers read none of it. */
const CONTEXT = { database: undefined, schema: null, accountability: null } as unknown as HookContext;

/**
 * When the actions a write fires start (src/items/hooks.ts): inside a request, once its answer
 * is sent; elsewhere after the turn; and always in the order they fired, whichever answer goes
 * first. A real HTTP server on a loopback port, the bus as the request door wires it.
 */
describe('items: actions start after the answer, in the order they fired', () => {
  let server: Server;
  let base: string;
  const bus = new HookBus();
  const started: string[] = [];
  bus.action('items.create', (meta) => void started.push(String(meta['name'])), 'test');

  /** `/<name>?hold=<ms>`: fires the action `name` at once, answers after `hold` ms. */
  const answer = async (url: URL, res: ServerResponse) => {
    const name = url.pathname.slice(1);
    bus.runAction(['items.create'], { name }, CONTEXT);
    await delay(Number(url.searchParams.get('hold') ?? 0));
    res.end(JSON.stringify({ started: [...started] }));
  };

  before(async () => {
    server = createServer((req, res) => {
      whileAnswering(res, () => void answer(new URL(req.url ?? '/', 'http://x'), res));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => {
    started.length = 0;
  });

  const get = (path: string) =>
    new Promise<{ started: string[] }>((resolve, reject) => {
      request(base + path, (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => resolve(JSON.parse(body) as { started: string[] }));
      })
        .on('error', reject)
        .end();
    });

  it('an action fired in a request has not started when its answer is written, and starts once it is sent', async () => {
    const answered = await get('/held?hold=50');
    expect(answered.started).to.deep.equal([]);
    await delay(20);
    expect(started).to.deep.equal(['held']);
  });

  it('a later write answered first starts its actions only after the earlier ones', async () => {
    const slow = get('/first?hold=600');
    await delay(50);
    await get('/second');
    await delay(30);
    expect(started, 'the second answer is out; the first action has not fired yet').to.deep.equal([]);
    await slow;
    await delay(20);
    expect(started).to.deep.equal(['first', 'second']);
  });

  it('outside a request an action starts after the turn, behind those fired before it', async () => {
    const slow = get('/request?hold=500');
    await delay(30);
    bus.runAction(['items.create'], { name: 'socket' }, CONTEXT);
    await delay(20);
    expect(started).to.deep.equal([]);
    await slow;
    await delay(20);
    expect(started).to.deep.equal(['request', 'socket']);
    bus.runAction(['items.create'], { name: 'alone' }, CONTEXT);
    expect(started).to.deep.equal(['request', 'socket']);
    await delay(5);
    expect(started).to.deep.equal(['request', 'socket', 'alone']);
  });
});
