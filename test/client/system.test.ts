import { expect } from 'chai';
import { randomBytes, randomUUID } from 'node:crypto';
import { ContentClient, type UploadProgress } from '../../src/client/index.js';
import { describeEachDatabase, TEST_ADMIN } from '../support/server.js';
import { pngHeader } from '../support/png-header.js';
import { adminClient, expectServerError, rejection, SQLITE_ONLY } from './support.js';

async function readAll(stream: ReadableStream<Uint8Array> | null): Promise<Buffer> {
  expect(stream).to.not.equal(null);
  const chunks: Uint8Array[] = [];
  for await (const chunk of stream as ReadableStream<Uint8Array>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

describeEachDatabase(
  'client system handlers',
  (ctx) => {
    let client: ContentClient;

    before(async () => {
      client = await adminClient(ctx());
      await client.collections.createOne({
        collection: 'notes',
        schema: {},
        fields: [
          { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } },
          { field: 'body', type: 'text' },
        ],
      });
    });

    it('files.createOne uploads a multipart form; /assets serves the same bytes', async () => {
      const form = new FormData();
      form.append('title', 'A pixel');
      form.append('file', new Blob([pngHeader(4, 3)], { type: 'image/png' }), 'pixel.png');
      const file = await client.files.createOne(form);
      expect(file).to.include({
        title: 'A pixel',
        filename_download: 'pixel.png',
        type: 'image/png',
        width: 4,
        height: 3,
      });
      const bytes = await readAll(await client.assets.readOne(file?.id as string));
      expect(bytes.equals(pngHeader(4, 3))).to.equal(true);
      // assets.url: the address an <img> loads, transforms and token in its query string.
      const token = await client.auth.token;
      const url = client.assets.url(file?.id as string, { width: 2, height: 2, fit: 'cover', access_token: token });
      expect(url).to.equal(
        `${client.url}/assets/${String(file?.id)}?width=2&height=2&fit=cover&access_token=${String(token)}`,
      );
      // (pngHeader is no full image to transform: the token alone fetches the bytes)
      const plain = await fetch(client.assets.url(file?.id as string, { access_token: token }));
      expect(Buffer.from(await plain.arrayBuffer()).equals(pngHeader(4, 3))).to.equal(true);
    });

    it('reports upload progress per chunk up to the whole body when onUploadProgress is set', async () => {
      const events: UploadProgress[] = [];
      const uploader = await adminClient(ctx(), { transport: { onUploadProgress: (p) => events.push(p) } });
      const content = randomBytes(300 * 1024);
      const form = new FormData();
      form.append('file', new Blob([content], { type: 'application/octet-stream' }), 'blob.bin');
      const file = await uploader.files.createOne(form);
      expect(Number(file?.filesize)).to.equal(content.byteLength);
      expect(events.length).to.be.above(4);
      const last = events[events.length - 1];
      expect(last?.loaded).to.equal(last?.total).and.to.be.above(content.byteLength);
      expect(last?.progress).to.equal(1);
      expect(events.every((e, i) => i === 0 || e.loaded > (events[i - 1]?.loaded ?? 0))).to.equal(true);
      expect((await readAll(await client.assets.readOne(file?.id as string))).equals(content)).to.equal(true);
    });

    it('graphql.items and graphql.system answer the full response', async () => {
      await client.items('notes').createOne({ body: 'hello' });
      const items = await client.graphql.items<{ notes: { body: string }[] }>(
        'query ($b: String) { notes(filter: { body: { _eq: $b } }) { body } }',
        { b: 'hello' },
      );
      expect(items.status).to.equal(200);
      expect(items.data).to.deep.equal({ notes: [{ body: 'hello' }] });
      const system = await client.graphql.system<{ users_me: { email: string } }>('{ users_me { email } }');
      expect(system.data).to.deep.equal({ users_me: { email: TEST_ADMIN.email } });
      const invalid = await rejection(client.graphql.items('{ notes { nope } }'));
      expectServerError(invalid, 400, 'GRAPHQL_VALIDATION');
      // A resolver error comes with status 200 and `errors`: the client throws it too.
      const denied = await rejection(client.graphql.items('{ notes(sort: ["nope"]) { id } }'));
      expectServerError(denied, 200, 'INVALID_QUERY');
      expect(denied.parent).to.equal(null);
      expect(denied.response?.raw).to.deep.include({ data: null });
    });

    it('graphql with persisted: true sends the hash alone, and the document once on a miss', async () => {
      const sent: unknown[] = [];
      const persisted = await adminClient(ctx(), {
        transport: {
          beforeRequest: (config) => {
            if (config.path.startsWith('/graphql')) sent.push(config.data);
            return config;
          },
        },
      });
      const query = '{ notes(limit: 1) { body } } # persisted';
      const first = await persisted.graphql.items<{ notes: unknown[] }>(query, {}, { persisted: true });
      const again = await persisted.graphql.items<{ notes: unknown[] }>(query, {}, { persisted: true });
      expect(again.data).to.deep.equal(first.data).and.to.have.property('notes');
      const queries = sent.map((body) => (body as { query?: string }).query);
      // A miss, the document with its hash, then the hash alone.
      expect(queries).to.deep.equal([undefined, query, undefined]);
      const hashes = sent.map((body) => (body as { extensions: any }).extensions.persistedQuery.sha256Hash as string);
      expect(new Set(hashes).size).to.equal(1);
      expect(hashes[0]).to.match(/^[0-9a-f]{64}$/);
      const invalid = await rejection(persisted.graphql.items('{ notes { nope } }', {}, { persisted: true }));
      expectServerError(invalid, 400, 'GRAPHQL_VALIDATION');
    });

    it('utils.random.string, hash.generate and hash.verify', async () => {
      expect(await client.utils.random.string()).to.match(/^[A-Za-z0-9_-]{32}$/);
      expect(await client.utils.random.string(7)).to.match(/^[A-Za-z0-9_-]{7}$/);
      expectServerError(await rejection(client.utils.random.string(0)), 400, 'INVALID_QUERY');
      const hash = (await client.utils.hash.generate('s3cret')) ?? '';
      expect(hash).to.match(/^\$argon2id\$/);
      expect(await client.utils.hash.verify('s3cret', hash)).to.equal(true);
      expect(await client.utils.hash.verify('other', hash)).to.equal(false);
    });

    it('utils.revert applies a revision', async () => {
      const note = await client.items('notes').createOne({ body: 'before' });
      await client.items('notes').updateOne(note?.['id'] as number, { body: 'after' });
      const revisions = await client.revisions.readByQuery({
        filter: { collection: { _eq: 'notes' }, item: { _eq: String(note?.['id']) } },
        sort: ['id'],
        fields: ['id'],
      });
      await client.utils.revert(revisions.data?.[0]?.id as number);
      expect(await client.items('notes').readOne(note?.['id'] as number, { fields: ['body'] })).to.deep.equal({
        body: 'before',
      });
    });

    it('utils.revertAsOf restores a moment; utils.undo answers a dry run and undoes', async () => {
      const note = await client.items('notes').createOne({ body: 'before' });
      const id = note?.['id'] as number;
      await client.items('notes').updateOne(id, { body: 'after' });
      const revisions = await client.revisions.readByQuery({
        filter: { collection: { _eq: 'notes' }, item: { _eq: String(id) } },
        sort: ['id'],
        fields: ['id'],
      });
      await client.utils.revertAsOf('notes', id, revisions.data?.[0]?.id as number);
      expect(await client.items('notes').readOne(id, { fields: ['body'] })).to.deep.equal({ body: 'before' });
      const filter = { collection: { _eq: 'notes' }, item: { _eq: String(id) }, action: { _eq: 'create' } };
      const plan = await client.utils.undo(filter, { dryRun: true });
      // the later updates are the same user's: no conflict
      expect(plan).to.deep.equal([
        { collection: 'notes', item: String(id), action: 'delete', fields: [], values: {}, conflicts: [] },
      ]);
      expect(await client.items('notes').readOne(id, { fields: ['body'] })).to.deep.equal({ body: 'before' });
      expect(await client.utils.undo(filter)).to.deep.equal(plan);
      expectServerError(await rejection(client.items('notes').readOne(id)), 403, 'FORBIDDEN');
    });

    it('versions: createContentVersion, saveToContentVersion, readOne with version, compare and promote', async () => {
      await client.collections.updateOne('notes', { meta: { versioning: true } });
      const id = (await client.items('notes').createOne({ body: 'live' }))?.['id'] as number;
      const version = await client.versions.createContentVersion({ key: 'draft', collection: 'notes', item: id });
      expect(version).to.include({ key: 'draft', collection: 'notes', item: String(id) });
      const vid = version?.id as string;
      expect(await client.versions.saveToContentVersion(vid, { body: 'draft' })).to.deep.include({ id, body: 'draft' });
      expect(await client.items('notes').readOne(id, { fields: ['body'], version: 'draft' })).to.deep.equal({
        body: 'draft',
      });
      const comparison = await client.versions.compareContentVersion(vid);
      expect(comparison).to.deep.include({ outdated: false, current: { body: 'draft' }, fields: ['body'] });
      expectServerError(
        await rejection(client.versions.promoteContentVersion(vid, 'stale')),
        422,
        'UNPROCESSABLE_ENTITY',
      );
      expect(await client.versions.promoteContentVersion(vid, comparison?.mainHash as string)).to.equal(id);
      expect(await client.items('notes').readOne(id, { fields: ['body'] })).to.deep.equal({ body: 'draft' });
      expect((await client.versions.readByQuery({ filter: { item: { _eq: String(id) } } })).data).to.have.length(1);
    });

    it('revisions.history and revisions.diff: what changed, newest first', async () => {
      const id = (await client.items('notes').createOne({ body: 'one' }))?.['id'] as number;
      await client.items('notes').updateOne(id, { body: 'two' });
      const history = await client.revisions.history('notes', id, { limit: 5 });
      expect(history?.map((h) => h.action)).to.deep.equal(['update', 'create']);
      expect((await client.revisions.history('notes', id, { field: 'body' }))?.map((h) => h.value)).to.deep.equal([
        'two',
        'one',
      ]);
      const diff = await client.revisions.diff(history?.[0]?.revision as number);
      expect(diff?.fields['body']).to.deep.include({ before: 'one', after: 'two' });
      const back = await client.revisions.diff(history?.[1]?.revision as number, history?.[0]?.revision as number);
      expect(back?.fields['body']).to.deep.include({ before: 'one', after: 'two' });
    });

    it('activity.comments create, update and delete a comment; svc_comments follows', async () => {
      const note = await client.items('notes').createOne({ body: 'commented' });
      const comments = () =>
        client.comments.readByQuery({ filter: { item: { _eq: String(note?.['id']) } }, fields: ['comment'] });
      const created = await client.activity.comments.create({
        collection: 'notes',
        item: note?.['id'] as number,
        comment: 'Nice',
      });
      expect(created).to.include({
        action: 'comment',
        collection: 'notes',
        item: String(note?.['id']),
        comment: 'Nice',
      });
      expect((await comments()).data).to.deep.equal([{ comment: 'Nice' }]);
      const updated = await client.activity.comments.update(created?.id as number, 'Nicer');
      expect(updated).to.include({ id: created?.id, comment: 'Nicer' });
      expect((await comments()).data).to.deep.equal([{ comment: 'Nicer' }]);
      await client.activity.comments.delete(created?.id as number);
      expect((await comments()).data).to.deep.equal([]);
      expectServerError(
        await rejection(client.activity.comments.update(created?.id as number, 'Gone')),
        403,
        'FORBIDDEN',
      );
      expectServerError(
        await rejection(client.activity.comments.create({ collection: 'notes', item: 1, comment: '' })),
        400,
        'INVALID_PAYLOAD',
      );
    });

    it('flows: a flow saved with its operations, triggered, its dead letters read and a replay refused', async () => {
      const [id, first] = [randomUUID(), randomUUID()];
      await client.flows.createOne({
        id,
        name: 'echo',
        status: 'active',
        trigger: 'webhook',
        options: { method: 'POST' },
        operation: first,
        operations: [
          { id: first, key: 'echo', type: 'transform', options: { json: { got: '{{ $trigger.body.n }}' } } },
        ],
      });
      expect(
        (await client.operations.readByQuery({ filter: { flow: { _eq: id } }, fields: ['key'] })).data,
      ).to.deep.equal([{ key: 'echo' }]);
      expect(await client.flows.trigger(id, { n: 7 })).to.deep.equal({ got: 7 });
      await client.flows.updateOne(id, { options: { method: 'POST', async: true } });
      expect(await client.flows.trigger(id, { n: 8 })).to.equal(undefined);
      expect(await client.flows.deadLetters()).to.deep.equal([]);
      expectServerError(await rejection(client.flows.replay('no-such-run')), 403, 'FORBIDDEN');
      expectServerError(await rejection(client.flows.trigger(randomUUID(), {})), 403, 'FORBIDDEN');
    });

    it('flows.webhook saves an after-commit event flow and its signed request in one call', async () => {
      const hook = await client.flows.webhook({
        url: 'https://hooks.example.com/build',
        events: ['create', 'items.delete'],
        collections: ['notes'],
        secret: 'whsec_c2VjcmV0',
      });
      expect(hook).to.deep.include({ trigger: 'event', status: 'active', accountability: 'all' });
      expect(hook.options).to.deep.equal({
        type: 'action',
        scope: ['items.create', 'items.delete'],
        collections: ['notes'],
        retry: true,
      });
      const { data } = await client.operations.readByQuery({
        filter: { flow: { _eq: hook.id } },
        fields: ['id', 'type', 'options'],
      });
      expect(data).to.deep.equal([
        {
          id: hook.operation,
          type: 'request',
          options: {
            method: 'POST',
            url: 'https://hooks.example.com/build',
            body: '{{ $trigger }}',
            secret: 'whsec_c2VjcmV0',
          },
        },
      ]);
    });

    it('server.ping, info and oas', async () => {
      expect(await client.server.ping()).to.equal('pong');
      expect((await client.server.info())?.project).to.be.an('object');
      expect((await client.server.oas())['openapi']).to.match(/^3\./);
    });

    it('users.me.read and users.me.update on the caller', async () => {
      expect(await client.users.me.read({ fields: ['email'] })).to.deep.equal({ email: TEST_ADMIN.email });
      const updated = await client.users.me.update({ title: 'Editor in chief' }, { fields: ['title'] });
      expect(updated).to.deep.equal({ title: 'Editor in chief' });
      expect(await ctx().server.db('svc_users').where('email', TEST_ADMIN.email).first('title')).to.deep.equal({
        title: 'Editor in chief',
      });
    });

    it("permissions.readUserPermissions and readItemPermissions: the caller's own permissions", async () => {
      const access = await client.permissions.readUserPermissions();
      expect(access?.['notes']?.['update']).to.deep.equal({ access: 'full', fields: ['*'] });
      const all = { update: { access: true }, delete: { access: true }, share: { access: true } };
      expect(await client.permissions.readItemPermissions('notes')).to.deep.equal(all);
      expect(await client.permissions.readItemPermissions('notes', 1)).to.deep.equal(all);
      expectServerError(await rejection(client.permissions.readItemPermissions('no_such_thing', 1)), 403, 'FORBIDDEN');
      // The svc_permissions items are still there.
      expect((await client.permissions.readByQuery({ limit: 1 })).data).to.be.an('array');
    });

    it('permissions.readRolePermissions and readRoleItems: view as role; users.disableTfa', async () => {
      const role = (await client.roles.createOne({ name: 'Note readers', app_access: false, admin_access: false }))?.id;
      expect(role).to.be.a('string');
      await client.permissions.createOne({ role: String(role), collection: 'notes', action: 'read', fields: ['id'] });
      await client.items('notes').createOne({ body: 'seen by the role without its body' });
      const access = await client.permissions.readRolePermissions(String(role));
      expect(access?.['notes']?.['read']).to.deep.equal({ access: 'full', fields: ['id'] });
      expect(access?.['notes']?.['update']).to.deep.equal({ access: 'none' });
      const items = await client.permissions.readRoleItems(String(role), 'notes', { meta: 'filter_count' });
      expect(items.data?.every((item) => Object.keys(item).join() === 'id')).to.equal(true);
      expect(items.meta?.filter_count).to.equal(items.data?.length);
      expectServerError(await rejection(client.permissions.readRoleItems(String(role), 'svc_users')), 403, 'FORBIDDEN');
      const user = (await client.users.createOne({ email: 'tfa-off@example.com', role: String(role) }))?.id;
      await ctx().server.db('svc_users').where('id', user).update({ tfa_secret: 'JBSWY3DPEHPK3PXP' });
      await client.users.disableTfa(String(user));
      expect(await ctx().server.db('svc_users').where('id', user).first('tfa_secret')).to.deep.equal({
        tfa_secret: null,
      });
    });

    it('reads the schema through collections, fields and relations, and settings as a singleton', async () => {
      expect((await client.collections.readOne('notes'))?.collection).to.equal('notes');
      expect((await client.collections.readAll()).data?.map((c) => c.collection)).to.include('notes');
      expect((await client.fields.readOne('notes', 'body'))?.type).to.equal('text');
      expect((await client.fields.readMany('notes')).data?.map((f) => f.field).sort()).to.deep.equal(['body', 'id']);
      expect(
        (await client.relations.readAll())?.some((r) => r.collection === 'svc_users' && r.field === 'role'),
      ).to.equal(true);
      expect(await client.settings.read({ fields: ['id'] })).to.have.property('id');
    });
  },
  SQLITE_ONLY,
);
