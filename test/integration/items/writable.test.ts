import { expect } from 'chai';
import { TEST_ADMIN, describeEachDatabase } from '../../support/server.js';
import { adminApi, dataOf, errorsOf } from '../commands/schema.js';
import { graphql } from '../graphql/graphql-client.js';
import { TestSocket, socketUrl } from '../realtime/sockets.js';

/**
 * One rule of which collections are written as items (src/items/writable.ts), the same at every
 * door: system collections such as svc_folders are, the journal, the schema collections and
 * content versions are not. The WebSocket refused every svc_ collection before the items
 * service; it now follows REST.
 */
describeEachDatabase(
  'items: the same writable collections at every door',
  (ctx) => {
    let socket: TestSocket;

    before(async () => {
      socket = await TestSocket.open(socketUrl(ctx().server.url, `/websocket?access_token=${TEST_ADMIN.token}`));
    });

    after(() => {
      socket.close();
    });

    it('the WebSocket writes a system collection REST writes (svc_folders)', async () => {
      const created = await socket.request({
        type: 'items',
        collection: 'svc_folders',
        action: 'create',
        data: { name: 'from a socket' },
        uid: 'f',
      });
      const id = (created['data'] as Record<string, unknown>)['id'];
      expect(created['data']).to.include({ name: 'from a socket' });
      const read = dataOf<Record<string, unknown>>(await adminApi(ctx(), 'GET', `/folders/${String(id)}`));
      expect(read['name']).to.equal('from a socket');
    });

    for (const collection of ['svc_activity', 'svc_revisions', 'svc_versions', 'svc_collections']) {
      it(`${collection} is written as items by no door`, async () => {
        errorsOf(await adminApi(ctx(), 'POST', `/items/${collection}`, { collection: 'x' }), 403);
        const answer = await socket.request({
          type: 'items',
          collection,
          action: 'create',
          data: { collection: 'x' },
          uid: collection,
        });
        expect(answer).to.deep.include({ status: 'error', uid: collection });
        expect((answer['error'] as Record<string, unknown>)['code']).to.equal('FORBIDDEN');
      });
    }

    it('GraphQL has item mutation roots for the same system collections (versions: its own roots)', async () => {
      const res = await graphql(ctx(), '{ __schema { mutationType { fields { name } } } }', { scope: 'system' });
      const names = (
        (res.body.data?.['__schema'] as { mutationType: { fields: { name: string }[] } }).mutationType.fields ?? []
      ).map((f) => f.name);
      expect(names).to.include.members(['create_folders_item', 'update_users_item', 'delete_presets_items']);
      expect(names.filter((n) => /^(create|update|delete)_(activity|revisions)_item/.test(n))).to.deep.equal([]);
    });
  },
  { env: { WEBSOCKETS_ENABLED: 'true' } },
);
