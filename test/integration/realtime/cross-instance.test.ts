import { expect } from 'chai';
import { createClient, type Client } from 'graphql-ws';
import { WebSocket } from 'ws';
import { dropNamespace, testNamespace } from '../../support/redis-namespace.js';
import {
  PROCESS_TEST_TIMEOUT_MS,
  SERVER_ENTRY,
  startServiceProcess,
  type ServiceProcess,
} from '../../support/service-process.js';
import {
  postgresTarget,
  redisUnavailable,
  requireOrSkip,
  TEST_REDIS_URL,
  type TestDatabase,
} from '../../support/services.js';
import { metricGauge, socketUrl, TestSocket, type Message } from './sockets.js';

const ADMIN_TOKEN = 'cross-instance-admin-token';
const VIEWER_TOKEN = 'cross-instance-viewer-token';

/**
 * The dashboard of issue 15: two service processes sharing PostgreSQL and Redis; a viewer
 * subscribes on B, writes arrive on A through REST, GraphQL and an import, and B delivers
 * exactly the events the viewer may see, with the viewer's own fields.
 */
describe('realtime: across two instances through Redis', function () {
  this.timeout(PROCESS_TEST_TIMEOUT_MS);
  let database: TestDatabase | undefined;
  const processes: ServiceProcess[] = [];
  const namespace = testNamespace('live');
  let a = '';
  let b = '';

  const call = async (base: string, method: string, path: string, body?: unknown): Promise<any> => {
    const res = await fetch(base + path, {
      method,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    expect(res.status, `${method} ${path}: ${text}`).to.be.lessThan(300);
    return text === '' ? undefined : (JSON.parse(text) as { data: unknown }).data;
  };
  /** The live subscriptions `base` holds (GET /server/metrics). */
  const liveSubscriptions = (base: string) => metricGauge(base, ADMIN_TOKEN, 'svc_live_subscriptions');

  before(async function () {
    requireOrSkip(this, (await postgresTarget.unavailable()) ?? (await redisUnavailable()));
    database = await postgresTarget.create();
    const env = {
      ...database.env,
      REDIS: TEST_REDIS_URL,
      CACHE_NAMESPACE: namespace,
      SECRET: 'cross-instance',
      ADMIN_EMAIL: 'admin@example.com',
      ADMIN_PASSWORD: 'admin-password',
      ADMIN_TOKEN,
      LOG_LEVEL: 'info',
      WEBSOCKETS_ENABLED: 'true',
      EMAIL_VERIFY_SETUP: 'false',
      METRICS_ENABLED: 'true',
    };
    // One after the other: the first start migrates and bootstraps the database.
    processes.push(await startServiceProcess(SERVER_ENTRY, env));
    processes.push(await startServiceProcess(SERVER_ENTRY, env));
    a = processes[0]?.url ?? '';
    b = processes[1]?.url ?? '';
    await call(a, 'POST', '/collections', {
      collection: 'metrics',
      schema: {},
      meta: {},
      fields: [
        { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } },
        { field: 'name', type: 'string', schema: {} },
        { field: 'team', type: 'string', schema: {} },
        { field: 'value', type: 'integer', schema: {} },
      ],
    });
    const role = await call(a, 'POST', '/roles', { name: 'Viewers', admin_access: false, app_access: false });
    await call(a, 'POST', '/users', { email: 'viewer@example.com', role: role.id, token: VIEWER_TOKEN });
    await call(a, 'POST', '/permissions', {
      role: role.id,
      collection: 'metrics',
      action: 'read',
      permissions: { team: { _eq: 'red' } },
      fields: ['id', 'name', 'value'],
    });
  });

  after(async () => {
    await Promise.all(processes.map((p) => p.stop()));
    await database?.drop();
    if (database !== undefined) await dropNamespace(namespace);
  });

  it('a viewer on B gets the permitted events of REST, GraphQL and import writes on A, with its own fields', async () => {
    const socket = await TestSocket.open(socketUrl(b, '/websocket'));
    expect(await socket.request({ type: 'auth', access_token: VIEWER_TOKEN, uid: 'a' })).to.include({ status: 'ok' });
    const init = await socket.request({
      type: 'subscribe',
      collection: 'metrics',
      query: { fields: ['name', 'value'] },
      uid: 'm',
    });
    expect(init, JSON.stringify(init)).to.include({ event: 'init' });
    const before = await liveSubscriptions(b);
    const graphqlResults: Message[] = [];
    const client: Client = createClient({
      url: socketUrl(b, '/graphql'),
      webSocketImpl: WebSocket,
      connectionParams: { access_token: VIEWER_TOKEN },
      retryAttempts: 0,
    });
    const gotGraphql = new Promise<void>((resolve) => {
      client.subscribe(
        { query: 'subscription { metrics_mutated(event: create) { key data { name } } }' },
        {
          next: (result) => {
            graphqlResults.push(result.data?.['metrics_mutated'] as Message);
            if (graphqlResults.length === 4) resolve();
          },
          error: () => undefined,
          complete: () => undefined,
        },
      );
    });
    // The graphql-ws subscribe message has no answer: wait until B has registered it (it loads
    // the viewer's permissions and schema first; a change before that is not told to it).
    const deadline = Date.now() + 30_000;
    while ((await liveSubscriptions(b)) !== before + 1) {
      if (Date.now() > deadline) expect.fail('B did not register the GraphQL subscription');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }

    const isEvent = (m: Message) => m['type'] === 'subscription' && m['uid'] === 'm';
    await call(a, 'POST', '/items/metrics', { name: 'blue one', team: 'blue', value: 1 });
    await call(a, 'POST', '/items/metrics', { name: 'rest', team: 'red', value: 2 });
    expect(await socket.next(isEvent)).to.deep.include({ event: 'create', data: [{ name: 'rest', value: 2 }] });

    const mutation = await fetch(`${a}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        query: 'mutation { create_metrics_item(data: { name: "graphql", team: "red", value: 3 }) { id } }',
      }),
    });
    expect(mutation.status).to.equal(200);
    expect(await socket.next(isEvent)).to.deep.include({ event: 'create', data: [{ name: 'graphql', value: 3 }] });

    const form = new FormData();
    const rows = [
      { name: 'import red', team: 'red', value: 4 },
      { name: 'import blue', team: 'blue', value: 5 },
      { name: 'import red 2', team: 'red', value: 6 },
    ];
    form.append('file', new Blob([JSON.stringify(rows)], { type: 'application/json' }), 'metrics.json');
    const imported = await fetch(`${a}/utils/import/metrics`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      body: form,
    });
    expect(imported.status, await imported.text()).to.be.oneOf([200, 204]);
    // Directus 10: one create event per item, of the items the viewer may read.
    const created = [await socket.next(isEvent), await socket.next(isEvent)];
    expect(created.map((e) => e['event'])).to.deep.equal(['create', 'create']);
    expect(created.map((e) => e['data'])).to.have.deep.members([
      [{ name: 'import red', value: 4 }],
      [{ name: 'import red 2', value: 6 }],
    ]);
    await gotGraphql;
    expect(graphqlResults.map((r) => r['data'])).to.have.deep.members([
      { name: 'rest' },
      { name: 'graphql' },
      { name: 'import red' },
      { name: 'import red 2' },
    ]);
    expect(socket.pending.filter(isEvent)).to.have.length(0);

    // A delete on A is told to the viewer on B only for the rows its role could read before.
    const rowsOf = async (team: string) =>
      ((await call(a, 'GET', `/items/metrics?filter[team][_eq]=${team}&fields=id`)) as { id: number }[]).map(
        (r) => r.id,
      );
    const [red, blue] = [await rowsOf('red'), await rowsOf('blue')];
    await call(a, 'DELETE', '/items/metrics', blue);
    await call(a, 'DELETE', '/items/metrics', red);
    const deleted = await socket.next(isEvent);
    expect(deleted['event']).to.equal('delete');
    expect([...deleted['data']].sort()).to.deep.equal([...red].sort());
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(socket.pending.filter(isEvent)).to.have.length(0);
    socket.close();
    await client.dispose();
  });

  it("one writer's changes, made through A and B in turn, reach a subscriber in the order written", async () => {
    const socket = await TestSocket.open(socketUrl(b, '/websocket'));
    expect(await socket.request({ type: 'auth', access_token: ADMIN_TOKEN, uid: 'a' })).to.include({ status: 'ok' });
    const init = await socket.request({
      type: 'subscribe',
      collection: 'metrics',
      query: { fields: ['name'] },
      uid: 'o',
    });
    expect(init, JSON.stringify(init)).to.include({ event: 'init' });
    // Each write answers once its change is in the log: the next one, through the other instance, comes after it.
    const names = Array.from({ length: 60 }, (_, i) => `ordered ${i}`);
    for (const [i, name] of names.entries())
      await call(i % 2 === 0 ? a : b, 'POST', '/items/metrics', { name, team: 'green' });
    const isEvent = (m: Message) => m['type'] === 'subscription' && m['uid'] === 'o';
    const seen: string[] = [];
    for (const _ of names) seen.push(...(await socket.next(isEvent))['data'].map((row: { name: string }) => row.name));
    expect(seen).to.deep.equal(names);
    socket.close();
  });
});
