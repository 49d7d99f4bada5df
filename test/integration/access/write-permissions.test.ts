import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { verifyPassword } from '../../../src/access/passwords.js';
import { describeEachDatabase } from '../../support/server.js';
import { ARTICLE_TABLES, countRows, createCommandSchema } from '../commands/schema.js';
import { waitForExport } from '../files/export-status.js';
import {
  asAdmin,
  call,
  createCaller,
  dataOf,
  expectForbidden,
  grant,
  type Caller,
  type JsonResponse,
} from './permission-helpers.js';

type Row = Record<string, unknown>;

const dir = mkdtempSync(join(tmpdir(), 'svc-write-permissions-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** The FAILED_VALIDATION entries of a 400 answer, as [field, type]. */
function failedValidations(res: JsonResponse): [unknown, unknown][] {
  expect(res.status, JSON.stringify(res.body)).to.equal(400);
  const errors = (res.body?.['errors'] ?? []) as { extensions: Row }[];
  return errors.map((e) => {
    expect(e.extensions['code']).to.equal('FAILED_VALIDATION');
    return [e.extensions['field'], e.extensions['type']];
  });
}

/**
 * Writes through HTTP as a limited role: payload
 * fields, presets, validation, item filters on targets and on created items, nested writes
 * against their own collections, sort, revert, import, exports run as their caller, and the
 * rules of svc_users writes.
 */
describeEachDatabase(
  'write permissions',
  (ctx) => {
    const db = () => ctx().server.db;
    let writer: Caller;
    const as = (method: string, path: string, body?: unknown) => call(ctx(), writer.token, method, path, body);
    const snapshot = () => countRows(db(), ARTICLE_TABLES);

    before(async () => {
      await createCommandSchema(ctx());
      writer = await createCaller(db());
      const own = { user_created: { _eq: '$CURRENT_USER' } };
      await grant(ctx(), writer.role, [
        { collection: 'articles', action: 'read', permissions: own },
        {
          collection: 'articles',
          action: 'create',
          fields: ['title', 'status', 'code', 'author', 'comments', 'tags'],
          presets: { status: 'draft', code: 'C-preset' },
          validation: { status: { _in: ['draft', 'review'] } },
          // A created article may not be by an author called "Banned" (checked after nested writes).
          permissions: { _or: [{ author: { _null: true } }, { author: { name: { _neq: 'Banned' } } }] },
        },
        {
          collection: 'articles',
          action: 'update',
          permissions: own,
          fields: ['title', 'status', 'comments'],
          validation: { status: { _neq: 'published' } },
        },
        { collection: 'articles', action: 'delete', permissions: own },
        { collection: 'authors', action: 'create', fields: ['name'], presets: { name: '$CURRENT_USER' } },
        { collection: 'authors', action: 'read' },
        { collection: 'comments', action: 'create', fields: ['text', 'article'] },
        { collection: 'comments', action: 'read' },
        { collection: 'steps', action: 'read' },
        { collection: 'steps', action: 'update', fields: ['sort'], permissions: { id: { _neq: 3 } } },
        { collection: 'svc_revisions', action: 'read' },
      ]);
    });

    describe('create', () => {
      it('fills presets under the payload (variables resolved) and the item reads back', async () => {
        const created = dataOf<Row>(
          await as('POST', '/items/articles?fields=title,status,code,user_created', { title: 'Mine' }),
        );
        expect(created).to.deep.equal({ title: 'Mine', status: 'draft', code: 'C-preset', user_created: writer.user });
        expect(dataOf<Row>(await as('POST', '/items/authors?fields=name', {}))).to.deep.equal({ name: writer.user });
        const chosen = dataOf<Row>(
          await as('POST', '/items/articles?fields=status', { title: 'Chosen', status: 'review' }),
        );
        expect(chosen).to.deep.equal({ status: 'review' });
      });

      it('a payload field outside the permitted fields is FORBIDDEN, nothing written', async () => {
        const before = await snapshot();
        expectForbidden(await as('POST', '/items/articles', { title: 'Sneaky', views: 100 }));
        expectForbidden(await as('POST', '/items/articles', [{ title: 'Fine' }, { title: 'Sneaky', views: 100 }]));
        expect(await snapshot()).to.deep.equal(before);
      });

      it('a merged item failing the permission validation is FAILED_VALIDATION, nothing written', async () => {
        const before = await snapshot();
        expect(
          failedValidations(await as('POST', '/items/articles', { title: 'Loud', status: 'published' })),
        ).to.deep.equal([['status', 'in']]);
        expect(await snapshot()).to.deep.equal(before);
      });

      it('an item created outside the create filter is FORBIDDEN, with its nested writes rolled back', async () => {
        const before = await snapshot();
        expectForbidden(await as('POST', '/items/articles', { title: 'Banned one', author: { name: 'Banned' } }));
        expect(await snapshot()).to.deep.equal(before);
        const fine = dataOf<Row>(
          await as('POST', '/items/articles?fields=author.name', { title: 'Fine one', author: { name: 'Fine' } }),
        );
        expect(fine).to.deep.equal({ author: { name: 'Fine' } });
      });

      it('nested writes are checked against their own collection', async () => {
        const before = await snapshot();
        expectForbidden(await as('POST', '/items/articles', { title: 'Tagged', tags: [{ tags_id: { label: 'x' } }] }));
        expectForbidden(
          await as('POST', '/items/articles', { title: 'Commented', comments: [{ text: 'hi', author: 1 }] }),
        );
        expect(await snapshot()).to.deep.equal(before);
        const ok = dataOf<Row>(
          await as('POST', '/items/articles?fields=comments.text', { title: 'Commented', comments: [{ text: 'hi' }] }),
        );
        expect(ok).to.deep.equal({ comments: [{ text: 'hi' }] });
      });

      it('a collection without create permission is FORBIDDEN, as an unknown one', async () => {
        expectForbidden(await as('POST', '/items/tags', { label: 'x' }));
        expectForbidden(await as('POST', '/items/nothing_here', { label: 'x' }));
      });
    });

    describe('update and delete', () => {
      let mine: number;
      let theirs: number;

      before(async () => {
        mine = Number(dataOf<Row>(await as('POST', '/items/articles', { title: 'Own' }))['id']);
        theirs = Number(dataOf<Row>(await asAdmin(ctx(), 'POST', '/items/articles', { title: 'Theirs' }))['id']);
      });

      const titleOf = async (id: number) => (await db()('articles').where('id', id).first<Row>('title'))?.['title'];

      it('updates its own item within the permitted fields', async () => {
        expect(
          dataOf<Row>(await as('PATCH', `/items/articles/${mine}?fields=title`, { title: 'Own, edited' })),
        ).to.deep.equal({ title: 'Own, edited' });
        expectForbidden(await as('PATCH', `/items/articles/${mine}`, { views: 3 }));
        expect(failedValidations(await as('PATCH', `/items/articles/${mine}`, { status: 'published' }))).to.deep.equal([
          ['status', 'neq'],
        ]);
      });

      it("another's item and a missing item get the same 403, and nothing changes", async () => {
        const before = await snapshot();
        expectForbidden(await as('PATCH', `/items/articles/${theirs}`, { title: 'Hijacked' }));
        expectForbidden(await as('PATCH', '/items/articles/99999', { title: 'Hijacked' }));
        expectForbidden(await as('PATCH', '/items/articles', { keys: [mine, theirs], data: { title: 'Both' } }));
        expectForbidden(
          await as('PATCH', '/items/articles', [
            { id: mine, title: 'Both' },
            { id: theirs, title: 'Both' },
          ]),
        );
        expect(await titleOf(theirs)).to.equal('Theirs');
        expect(await titleOf(mine)).to.equal('Own, edited');
        expect(await snapshot()).to.deep.equal(before);
      });

      it('an update by query selects only what the role may read', async () => {
        const updated = dataOf<Row[]>(
          await as('PATCH', '/items/articles?fields=id', {
            query: { filter: { title: { _in: ['Own, edited', 'Theirs'] } } },
            data: { status: 'review' },
          }),
        );
        expect(updated).to.deep.equal([{ id: mine }]);
        expect((await db()('articles').where('id', theirs).first<Row>('status'))?.['status']).to.equal('draft');
      });

      it('deletes its own items only; a request naming another item deletes nothing', async () => {
        const extra = Number(dataOf<Row>(await as('POST', '/items/articles', { title: 'Doomed' }))['id']);
        const before = await snapshot();
        expectForbidden(await as('DELETE', `/items/articles/${theirs}`));
        expectForbidden(await as('DELETE', '/items/articles/99999'));
        expectForbidden(await as('DELETE', '/items/articles', [extra, theirs]));
        expect(await snapshot()).to.deep.equal(before);
        expect((await as('DELETE', `/items/articles/${extra}`)).status).to.equal(204);
        expect(await db()('articles').where('id', extra).first('id')).to.equal(undefined);
      });

      it('nested edits of an own item are checked against the nested collection', async () => {
        const res = await as('PATCH', `/items/articles/${mine}?fields=comments.text`, {
          comments: { create: [{ text: 'nested' }] },
        });
        expect(dataOf(res)).to.deep.equal({ comments: [{ text: 'nested' }] });
        // comments has no update rule: taking another article's comment is an update of it.
        const other = Number(
          dataOf<Row>(await asAdmin(ctx(), 'POST', '/items/comments', { text: 'elsewhere', article: theirs }))['id'],
        );
        const before = await snapshot();
        expectForbidden(await as('PATCH', `/items/articles/${mine}`, { comments: [other] }));
        expect(await snapshot()).to.deep.equal(before);
        expect((await db()('comments').where('id', other).first<Row>('article'))?.['article']).to.equal(theirs);
      });
    });

    describe('sort, revert, import', () => {
      before(async () => {
        await db()('steps').insert([1, 2, 3, 4].map((id) => ({ id, name: `s${id}`, sort: id })));
      });

      const sorts = async () => (await db()('steps').orderBy('id').select<Row[]>('sort')).map((r) => Number(r['sort']));

      it('sort needs update permission on the item with the sort field', async () => {
        expect((await as('POST', '/utils/sort/steps', { item: 1, to: 2 })).status).to.equal(200);
        expect(await sorts()).to.deep.equal([2, 1, 3, 4]);
        expectForbidden(await as('POST', '/utils/sort/steps', { item: 3, to: 1 }));
        const other = await createCaller(db());
        await grant(ctx(), other.role, [{ collection: 'steps', action: 'update', fields: ['name'] }]);
        expectForbidden(await call(ctx(), other.token, 'POST', '/utils/sort/steps', { item: 1, to: 2 }));
        expect(await sorts()).to.deep.equal([2, 1, 3, 4]);
      });

      it('revert reads the revision with read permission and updates with update permission', async () => {
        const reverter = await createCaller(db());
        const own = { user_created: { _eq: '$CURRENT_USER' } };
        await grant(ctx(), reverter.role, [
          { collection: 'articles', action: 'read', permissions: own },
          { collection: 'articles', action: 'create' },
          { collection: 'articles', action: 'update', permissions: own },
          { collection: 'svc_revisions', action: 'read' },
        ]);
        const revert = (id: unknown) => call(ctx(), reverter.token, 'POST', `/utils/revert/${String(id)}`);
        const firstRevision = async (item: number) =>
          (
            await db()('svc_revisions')
              .where({ collection: 'articles', item: String(item) })
              .orderBy('id')
              .first<Row>('id')
          )?.['id'];
        const titleOf = async (id: number) => (await db()('articles').where('id', id).first<Row>('title'))?.['title'];

        const mine = Number(
          dataOf<Row>(await call(ctx(), reverter.token, 'POST', '/items/articles', { title: 'Rev 1' }))['id'],
        );
        dataOf(await call(ctx(), reverter.token, 'PATCH', `/items/articles/${mine}`, { title: 'Rev 2' }));
        expect((await revert(await firstRevision(mine))).status).to.equal(204);
        expect(await titleOf(mine)).to.equal('Rev 1');

        const theirs = Number(dataOf<Row>(await asAdmin(ctx(), 'POST', '/items/articles', { title: 'Admin 1' }))['id']);
        dataOf(await asAdmin(ctx(), 'PATCH', `/items/articles/${theirs}`, { title: 'Admin 2' }));
        expectForbidden(await revert(await firstRevision(theirs)));
        expect(await titleOf(theirs)).to.equal('Admin 2');
        // The writer may read the revision of its own article, but not update `code`, which the
        // revert would change back (a revert writes only the fields that change: reverting an
        // unchanged item needs no update permission on the rest, so the old 403 there is gone).
        const writers = Number(dataOf<Row>(await as('POST', '/items/articles', { title: 'W 1' }))['id']);
        dataOf(await asAdmin(ctx(), 'PATCH', `/items/articles/${writers}`, { code: 'C-admin' }));
        expectForbidden(await as('POST', `/utils/revert/${String(await firstRevision(writers))}`));
        expect((await db()('articles').where('id', writers).first<Row>('code'))?.['code']).to.equal('C-admin');
      });

      it('import needs create and update permission', async () => {
        const importAs = async (token: string, collection: string, items: unknown) => {
          const form = new FormData();
          form.append('file', new Blob([JSON.stringify(items)], { type: 'application/json' }), 'items.json');
          const res = await ctx().api(`/utils/import/${collection}`, {
            method: 'POST',
            body: form,
            headers: { Authorization: `Bearer ${token}` },
          });
          const text = await res.text();
          return { status: res.status, body: text === '' ? undefined : (JSON.parse(text) as Row) };
        };
        const before = await snapshot();
        expectForbidden(await importAs(writer.token, 'authors', [{ name: 'Imported' }]));
        expect(await snapshot()).to.deep.equal(before);
        const importer = await createCaller(db());
        await grant(ctx(), importer.role, [
          { collection: 'authors', action: 'create', fields: ['name'], presets: { name: '$CURRENT_USER' } },
          { collection: 'authors', action: 'update', fields: ['name'] },
        ]);
        expect((await importAs(importer.token, 'authors', [{ name: 'Imported' }])).status).to.equal(200);
        expect(await db()('authors').where('name', 'Imported').first('id')).to.not.equal(undefined);
      });
    });

    describe('exports and assets run as their caller', () => {
      let exporter: Caller;

      before(async () => {
        exporter = await createCaller(db());
        await grant(ctx(), exporter.role, [
          {
            collection: 'articles',
            action: 'read',
            permissions: { status: { _eq: 'review' } },
            fields: ['id', 'title'],
          },
          { collection: 'svc_files', action: 'create' },
          { collection: 'svc_files', action: 'read', permissions: { uploaded_by: { _eq: '$CURRENT_USER' } } },
        ]);
      });

      it('an export holds only what its caller may read, and its file is theirs', async () => {
        const res = await call(ctx(), exporter.token, 'POST', '/utils/export/articles', {
          format: 'json',
          query: { fields: ['*'], sort: ['id'] },
        });
        expect(res.status, JSON.stringify(res.body)).to.equal(204);
        const done = await waitForExport(ctx(), (r) => r.user === exporter.user && r.status.status === 'done');
        const expected = await db()('articles').where('status', 'review').orderBy('id').select<Row[]>('id', 'title');
        const asset = await ctx().api(`/assets/${String(done.status.file)}`, {
          headers: { Authorization: `Bearer ${exporter.token}` },
        });
        expect(asset.status).to.equal(200);
        expect(await asset.json()).to.deep.equal(expected.map((r) => ({ id: Number(r['id']), title: r['title'] })));
        expectForbidden(await call(ctx(), writer.token, 'GET', `/assets/${String(done.status.file)}`));
      });

      it("another user's file cannot be downloaded, like a missing one", async () => {
        const form = new FormData();
        form.append('file', new Blob(['admin only'], { type: 'text/plain' }), 'admin.txt');
        const uploaded = await ctx().api('/files', {
          method: 'POST',
          body: form,
          headers: { Authorization: 'Bearer test-admin-static-token' },
        });
        const file = ((await uploaded.json()) as { data: Row }).data;
        const assetAs = (id: string) =>
          ctx().api(`/assets/${id}`, { headers: { Authorization: `Bearer ${exporter.token}` } });
        const forbidden = await assetAs(String(file['id']));
        const missing = await assetAs('00000000-0000-4000-8000-000000000000');
        expect([forbidden.status, await forbidden.text()]).to.deep.equal([missing.status, await missing.text()]);
        expect(forbidden.status).to.equal(403);
      });
    });

    describe('svc_users writes', () => {
      it('passwords follow settings.auth_password_policy, for admins too', async () => {
        await db()('svc_settings').delete();
        await db()('svc_settings').insert({ auth_password_policy: '/^.{12,}$/' });
        try {
          const short = await asAdmin(ctx(), 'POST', '/users', { email: 'short@example.com', password: 'short' });
          expect(failedValidations(short)).to.deep.equal([['password', 'regex']]);
          expect(await db()('svc_users').where('email', 'short@example.com').first('id')).to.equal(undefined);
          const user = dataOf<Row>(
            await asAdmin(ctx(), 'POST', '/users', { email: 'long@example.com', password: 'long enough password' }),
          );
          expect(
            failedValidations(await asAdmin(ctx(), 'PATCH', `/users/${String(user['id'])}`, { password: 'nope' })),
          ).to.deep.equal([['password', 'regex']]);
          const stored = await db()('svc_users').where('id', String(user['id'])).first<Row>('password');
          expect(await verifyPassword(String(stored?.['password']), 'long enough password')).to.equal(true);
        } finally {
          await db()('svc_settings').delete();
        }
      });

      it('tfa_secret is never written through items; an admin may clear it', async () => {
        const user = dataOf<Row>(await asAdmin(ctx(), 'POST', '/users', { email: 'tfa@example.com' }));
        await db()('svc_users').where('id', String(user['id'])).update({ tfa_secret: 'JBSWY3DPEHPK3PXP' });
        expectForbidden(
          await asAdmin(ctx(), 'PATCH', `/users/${String(user['id'])}`, { tfa_secret: 'KRSXG5CTMVRXEZLU' }),
        );
        expect(
          (await db()('svc_users').where('id', String(user['id'])).first<Row>('tfa_secret'))?.['tfa_secret'],
        ).to.equal('JBSWY3DPEHPK3PXP');
        dataOf(await asAdmin(ctx(), 'PATCH', `/users/${String(user['id'])}`, { tfa_secret: null }));
        expect(
          (await db()('svc_users').where('id', String(user['id'])).first<Row>('tfa_secret'))?.['tfa_secret'],
        ).to.equal(null);
      });

      it('a re-sent masked token keeps the token: the mask never becomes a static token', async () => {
        const user = dataOf<Row>(
          await asAdmin(ctx(), 'POST', '/users', { email: 'token@example.com', token: 'a-real-static-token' }),
        );
        const read = dataOf<Row>(await asAdmin(ctx(), 'GET', `/users/${String(user['id'])}?fields=token,email`));
        expect(read['token']).to.equal('**********');
        dataOf(await asAdmin(ctx(), 'PATCH', `/users/${String(user['id'])}`, read));
        expect((await db()('svc_users').where('id', String(user['id'])).first<Row>('token'))?.['token']).to.equal(
          'a-real-static-token',
        );
        expect((await call(ctx(), '**********', 'GET', '/users/me')).status).to.equal(401);
      });
    });
  },
  { env: { STORAGE_LOCAL_ROOT: join(dir, 'uploads'), TEMP_PATH: join(dir, 'tmp') } },
);
