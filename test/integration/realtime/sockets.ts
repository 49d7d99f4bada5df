import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { WebSocket } from 'ws';
import { TEST_ADMIN, type ServerContext } from '../../support/server.js';

export type Message = Record<string, any>;

/**
 * A WebSocket protocol client for tests: every message received is queued; `next(match)`
 * takes the first queued (or next arriving) message that matches, failing after `timeoutMs`.
 */
export class TestSocket {
  readonly #queue: Message[] = [];
  readonly #waiters: { match: (m: Message) => boolean; resolve: (m: Message) => void }[] = [];
  closed: Promise<{ code: number; reason: string }>;

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      const message = JSON.parse(data.toString()) as Message;
      // The heartbeat's pings are answered like a Directus client does.
      if (message['type'] === 'ping') ws.send(JSON.stringify({ type: 'pong' }));
      const waiter = this.#waiters.findIndex((w) => w.match(message));
      if (waiter >= 0) this.#waiters.splice(waiter, 1)[0]?.resolve(message);
      else this.#queue.push(message);
    });
    this.closed = new Promise((resolve) =>
      ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
    );
  }

  static open(url: string, headers: Record<string, string> = {}): Promise<TestSocket> {
    const ws = new WebSocket(url, { headers });
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(new TestSocket(ws)));
      ws.once('error', reject);
      ws.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
    });
  }

  send(message: Message | string): void {
    this.ws.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  next(match: (m: Message) => boolean = () => true, timeoutMs = 5000): Promise<Message> {
    const queued = this.#queue.findIndex(match);
    if (queued >= 0) return Promise.resolve(this.#queue.splice(queued, 1)[0] as Message);
    return new Promise((resolve, reject) => {
      const waiter = {
        match,
        resolve: (m: Message) => {
          clearTimeout(timer);
          resolve(m);
        },
      };
      const timer = setTimeout(() => {
        this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
        reject(new Error(`no matching message within ${timeoutMs} ms; queued: ${JSON.stringify(this.#queue)}`));
      }, timeoutMs);
      this.#waiters.push(waiter);
    });
  }

  /** Sends `message` and waits for the answer with its uid. */
  async request(message: Message): Promise<Message> {
    this.send(message);
    return this.next((m) => m['uid'] === message['uid'] && !(m['type'] === 'subscription' && m['event'] !== 'init'));
  }

  /** Messages received and not taken yet. */
  get pending(): readonly Message[] {
    return this.#queue;
  }

  close(): void {
    this.ws.terminate();
  }
}

/** The ws:// address of `path` on an http:// server URL. */
export function socketUrl(httpUrl: string, path: string): string {
  return httpUrl.replace(/^http/, 'ws') + path;
}

export const EDITOR = { email: 'editor@example.com', password: 'editor-password', token: 'realtime-editor-token' };

/** notes (user collection) and secrets (unreadable by the editor role), and the editor role's rules. */
export async function createLiveFixture(ctx: ServerContext): Promise<string> {
  const { db } = ctx.server;
  await db.schema.createTable('notes', (t) => {
    t.increments('id').primary();
    t.string('title', 200);
    t.string('status', 20).defaultTo('draft');
    t.string('body', 200);
  });
  await db.schema.createTable('secrets', (t) => {
    t.increments('id').primary();
    t.string('value', 200);
  });
  const role = randomUUID();
  await db('svc_roles').insert({ id: role, name: 'Editors', app_access: false, admin_access: false });
  const res = await ctx.api('/users', {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_ADMIN.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ email: EDITOR.email, password: EDITOR.password, role, token: EDITOR.token }),
  });
  expect(res.status, await res.clone().text()).to.equal(200);
  await db('svc_permissions').insert([
    {
      role,
      collection: 'notes',
      action: 'read',
      permissions: JSON.stringify({ status: { _eq: 'published' } }),
      fields: 'id,title,status',
    },
    { role, collection: 'notes', action: 'create', fields: '*' },
  ]);
  await ctx.server.schema.invalidate();
  return role;
}

export async function adminApi(ctx: ServerContext, method: string, path: string, body?: unknown): Promise<any> {
  const res = await ctx.api(path, {
    method,
    headers: { authorization: `Bearer ${TEST_ADMIN.token}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  expect(res.status, text).to.be.lessThan(300);
  return text === '' ? undefined : (JSON.parse(text) as { data: unknown }).data;
}

/** A gauge GET /server/metrics tells (METRICS_ENABLED) of the server at `baseUrl`, asked with `token`. */
export async function metricGauge(baseUrl: string, token: string, name: string): Promise<number> {
  const res = await fetch(`${baseUrl}/server/metrics`, { headers: { Authorization: `Bearer ${token}` } });
  const line = new RegExp(`^${name} (\\d+)$`, 'm').exec(await res.text());
  if (line === null) throw new Error(`no ${name} in the metrics`);
  return Number(line[1]);
}
