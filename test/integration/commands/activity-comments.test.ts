import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { describeEachDatabase, TEST_ADMIN } from '../../support/server.js';
import { call, createCaller, grant, type Caller, type JsonResponse } from '../access/permission-helpers.js';
import { createUser } from '../auth/helpers.js';
import { graphql, graphqlData } from '../graphql/graphql-client.js';
import { createCommandSchema } from './schema.js';

type Row = Record<string, unknown>;

/** commands/comment-link.ts: the svc_comments id of the comment whose activity row is `id`. */
const linkedCommentId = (activityId: number) => `ac71c0de-0000-8000-8000-${activityId.toString(16).padStart(12, '0')}`;

const JOURNAL_TABLES = ['svc_activity', 'svc_comments', 'svc_revisions'] as const;

describeEachDatabase('activity comments: /activity/comment and svc_comments kept in step', (ctx) => {
  const db = () => ctx().server.db;
  const admin = (method: string, path: string, body?: unknown) => call(ctx(), TEST_ADMIN.token, method, path, body);
  let adminId: string;
  let article: number;
  let author: Caller;
  let other: Caller;

  async function counts(): Promise<Record<string, number>> {
    const result: Record<string, number> = {};
    for (const table of JOURNAL_TABLES) {
      const row = await db()(table).count({ n: '*' }).first<{ n: number | string }>();
      result[table] = Number(row?.n ?? 0);
    }
    return result;
  }

  const activityRow = (id: number) => db()('svc_activity').where({ id }).first<Row | undefined>();
  const commentRow = (id: string) => db()('svc_comments').where({ id }).first<Row | undefined>();

  function dataOf(res: JsonResponse): Row {
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body?.['data'] as Row;
  }

  /** One error of `code`; for INVALID_PAYLOAD, `reason` names the field. */
  function expectError(res: JsonResponse, status: number, code: string, reason?: string): void {
    expect(res.status, JSON.stringify(res.body)).to.equal(status);
    const errors = res.body?.['errors'] as { extensions: { code: string; reason?: string } }[];
    expect(errors.map((e) => e.extensions.code)).to.deep.equal([code]);
    if (reason !== undefined) expect(errors[0]?.extensions.reason).to.equal(reason);
  }

  async function createComment(token: string, comment: string, item: number = article): Promise<number> {
    const created = dataOf(
      await call(ctx(), token, 'POST', '/activity/comment', { collection: 'articles', item, comment }),
    );
    return Number(created['id']);
  }

  before(async () => {
    await createCommandSchema(ctx());
    adminId = String((await db()('svc_users').where({ email: TEST_ADMIN.email }).first<Row>('id'))['id']);
    article = Number(dataOf(await admin('POST', '/items/articles', { title: 'Commented' }))['id']);
    // Two app users of one role: reading articles is all they get beyond the app's own rows.
    author = await createCaller(db(), { app: true });
    const otherToken = `token-${randomUUID()}`;
    other = {
      role: author.role,
      user: (await createUser(db(), { role: author.role, token: otherToken })).id,
      token: otherToken,
    };
    await grant(ctx(), author.role, [{ collection: 'articles', action: 'read' }]);
  });

  describe('POST /activity/comment', () => {
    it('writes the activity row and the linked svc_comments row with the same text, and no revision', async () => {
      const before = await counts();
      const res = await admin('POST', '/activity/comment', {
        collection: 'articles',
        item: article,
        comment: 'First!',
      });
      const data = dataOf(res);
      expect(data).to.include({
        action: 'comment',
        collection: 'articles',
        item: String(article),
        comment: 'First!',
        user: adminId,
      });
      expect(data['revisions']).to.deep.equal([]);
      const id = Number(data['id']);
      expect(await counts()).to.deep.equal({
        ...before,
        svc_activity: before['svc_activity']! + 1,
        svc_comments: before['svc_comments']! + 1,
      });
      const comment = await commentRow(linkedCommentId(id));
      expect(comment).to.include({
        collection: 'articles',
        item: String(article),
        comment: 'First!',
        user_created: adminId,
      });
      expect(comment?.['date_created']).to.not.equal(null);
    });

    it('answers with the fields asked for; directus_ names resolve to svc_', async () => {
      const res = await admin('POST', '/activity/comment?fields=comment,collection', {
        collection: 'directus_users',
        item: adminId,
        comment: 'On a user',
      });
      expect(dataOf(res)).to.deep.equal({ comment: 'On a user', collection: 'svc_users' });
      const row = await db()('svc_comments').where({ comment: 'On a user' }).first<Row>('collection', 'item');
      expect(row).to.deep.equal({ collection: 'svc_users', item: adminId });
    });

    it('a missing or empty field is INVALID_PAYLOAD naming it; nothing is written', async () => {
      const before = await counts();
      const cases: [Row, string][] = [
        [{ item: article, comment: 'x' }, '"collection" is required'],
        [{ collection: 'articles', comment: 'x' }, '"item" is required'],
        [{ collection: 'articles', item: article }, '"comment" is required'],
        [{ collection: 'articles', item: article, comment: '' }, '"comment" is not allowed to be empty'],
        [{ collection: 'articles', item: article, comment: 7 }, '"comment" must be a string'],
        [{ collection: 'articles', item: { id: article }, comment: 'x' }, '"item" must be a string or a number'],
      ];
      for (const [body, message] of cases)
        expectError(await admin('POST', '/activity/comment', body), 400, 'INVALID_PAYLOAD', message);
      expectError(await admin('POST', '/activity/comment', [{ collection: 'articles' }]), 400, 'INVALID_PAYLOAD');
      expect(await counts()).to.deep.equal(before);
    });

    it('an unknown collection or a missing item is FORBIDDEN; nothing is written', async () => {
      const before = await counts();
      expectError(
        await admin('POST', '/activity/comment', { collection: 'nope', item: 1, comment: 'x' }),
        403,
        'FORBIDDEN',
      );
      expectError(
        await admin('POST', '/activity/comment', { collection: 'articles', item: 999_999, comment: 'x' }),
        403,
        'FORBIDDEN',
      );
      expectError(
        await admin('POST', '/activity/comment', { collection: 'articles', item: 'abc', comment: 'x' }),
        403,
        'FORBIDDEN',
      );
      expect(await counts()).to.deep.equal(before);
    });

    it('a user comments only on items they can read; without a token nothing is allowed', async () => {
      const writer = Number(dataOf(await admin('POST', '/items/authors', { name: 'Unreadable' }))['id']);
      const before = await counts();
      expectError(
        await call(ctx(), author.token, 'POST', '/activity/comment', {
          collection: 'authors',
          item: writer,
          comment: 'x',
        }),
        403,
        'FORBIDDEN',
      );
      expectError(
        await call(ctx(), undefined, 'POST', '/activity/comment', {
          collection: 'articles',
          item: article,
          comment: 'x',
        }),
        403,
        'FORBIDDEN',
      );
      expect(await counts()).to.deep.equal(before);

      const res = await call(ctx(), author.token, 'POST', '/activity/comment', {
        collection: 'articles',
        item: article,
        comment: 'Mine',
      });
      const id = Number(dataOf(res)['id']);
      expect(await activityRow(id)).to.include({ user: author.user, comment: 'Mine' });
      expect(await commentRow(linkedCommentId(id))).to.include({ user_created: author.user, comment: 'Mine' });
    });

    it('without app access a role needs create on svc_activity and on svc_comments', async () => {
      const before = await counts();
      const caller = await createCaller(db(), { app: false });
      const post = () =>
        call(ctx(), caller.token, 'POST', '/activity/comment', {
          collection: 'articles',
          item: article,
          comment: 'Explicit',
        });
      await grant(ctx(), caller.role, [{ collection: 'articles', action: 'read' }]);
      expectError(await post(), 403, 'FORBIDDEN');
      await grant(ctx(), caller.role, [
        { collection: 'svc_activity', action: 'create', validation: { comment: { _nnull: true } } },
      ]);
      expectError(await post(), 403, 'FORBIDDEN');
      expect(await counts()).to.deep.equal(before);
      await grant(ctx(), caller.role, [{ collection: 'svc_comments', action: 'create' }]);
      // Written, but the role cannot read svc_activity: the answer is empty.
      expect((await post()).status).to.equal(204);
      const row = await db()('svc_activity').where({ user: caller.user }).first<Row>('id', 'comment');
      expect(row['comment']).to.equal('Explicit');
      expect(await commentRow(linkedCommentId(Number(row['id'])))).to.include({
        comment: 'Explicit',
        user_created: caller.user,
      });
    });
  });

  describe('PATCH and DELETE /activity/comment/:id', () => {
    it('PATCH changes the text of both rows, records no revision; DELETE removes both', async () => {
      const id = await createComment(TEST_ADMIN.token, 'Draft');
      const before = await counts();
      const updated = dataOf(
        await admin('PATCH', `/activity/comment/${id}?fields=id,comment,action`, { comment: 'Edited' }),
      );
      expect(updated).to.deep.equal({ id, comment: 'Edited', action: 'comment' });
      expect(await activityRow(id)).to.include({ comment: 'Edited' });
      expect(await commentRow(linkedCommentId(id))).to.include({ comment: 'Edited', user_updated: adminId });
      expect(await counts()).to.deep.equal(before);

      const deleted = await admin('DELETE', `/activity/comment/${id}`);
      expect(deleted.status).to.equal(204);
      expect(await activityRow(id)).to.equal(undefined);
      expect(await commentRow(linkedCommentId(id))).to.equal(undefined);
      expect(await counts()).to.deep.equal({
        ...before,
        svc_activity: before['svc_activity']! - 1,
        svc_comments: before['svc_comments']! - 1,
      });
      expectError(await admin('DELETE', `/activity/comment/${id}`), 403, 'FORBIDDEN');
    });

    it('a text longer than the database holds is VALUE_TOO_LONG as through /comments, not a 500; nothing written', async () => {
      const long = 'x'.repeat(70_000);
      const id = await createComment(TEST_ADMIN.token, 'Short');
      const before = await counts();
      const created = await admin('POST', '/activity/comment', {
        collection: 'articles',
        item: article,
        comment: long,
      });
      const updated = await admin('PATCH', `/activity/comment/${id}?fields=comment`, { comment: long });
      const direct = await admin('POST', '/comments', { collection: 'articles', item: String(article), comment: long });
      if (ctx().dialect === 'mariadb') {
        // MariaDB's `text` holds 65,535 bytes; PostgreSQL and SQLite take any length.
        for (const res of [created, updated, direct]) expectError(res, 400, 'VALUE_TOO_LONG');
        expect(await counts()).to.deep.equal(before);
        expect(await activityRow(id)).to.include({ comment: 'Short' });
        expect(await commentRow(linkedCommentId(id))).to.include({ comment: 'Short' });
      } else {
        expect(dataOf(created)['comment']).to.equal(long);
        expect(dataOf(updated)).to.deep.equal({ comment: long });
        expect(dataOf(direct)['comment']).to.equal(long);
        expect(await commentRow(linkedCommentId(id))).to.include({ comment: long });
      }
    });

    it("PATCH without a comment is INVALID_PAYLOAD; a missing id or another action's row is FORBIDDEN", async () => {
      const id = await createComment(TEST_ADMIN.token, 'Stays');
      expectError(await admin('PATCH', `/activity/comment/${id}`, {}), 400, 'INVALID_PAYLOAD', '"comment" is required');
      expect(await activityRow(id)).to.include({ comment: 'Stays' });
      const created = await admin('POST', '/items/authors', { name: 'Journaled' });
      expect(created.status).to.equal(200);
      const createActivity = await db()('svc_activity')
        .where({ action: 'create' })
        .orderBy('id', 'desc')
        .first<Row>('id');
      for (const target of [String(createActivity['id']), '999999', 'abc']) {
        expectError(await admin('PATCH', `/activity/comment/${target}`, { comment: 'x' }), 403, 'FORBIDDEN');
        expectError(await admin('DELETE', `/activity/comment/${target}`), 403, 'FORBIDDEN');
      }
      expect(await activityRow(Number(createActivity['id']))).to.include({ action: 'create', comment: null });
    });

    it('only the author or an admin may change or delete a comment', async () => {
      const id = await createComment(author.token, 'By the author');
      const before = await counts();
      expectError(
        await call(ctx(), other.token, 'PATCH', `/activity/comment/${id}`, { comment: 'Hijacked' }),
        403,
        'FORBIDDEN',
      );
      expectError(await call(ctx(), other.token, 'DELETE', `/activity/comment/${id}`), 403, 'FORBIDDEN');
      expectError(
        await call(ctx(), other.token, 'PATCH', `/comments/${linkedCommentId(id)}`, { comment: 'Hijacked' }),
        403,
        'FORBIDDEN',
      );
      expectError(await call(ctx(), undefined, 'DELETE', `/activity/comment/${id}`), 403, 'FORBIDDEN');
      expect(await activityRow(id)).to.include({ comment: 'By the author' });
      expect(await counts()).to.deep.equal(before);

      const own = dataOf(await call(ctx(), author.token, 'PATCH', `/activity/comment/${id}`, { comment: 'Reworded' }));
      expect(own).to.include({ id, comment: 'Reworded', user: author.user });
      expect(await commentRow(linkedCommentId(id))).to.include({ comment: 'Reworded' });
      expect(dataOf(await admin('PATCH', `/activity/comment/${id}`, { comment: 'Moderated' }))).to.include({
        comment: 'Moderated',
      });
      expect(await commentRow(linkedCommentId(id))).to.include({ comment: 'Moderated', user_updated: adminId });
      expect((await admin('DELETE', `/activity/comment/${id}`)).status).to.equal(204);
      expect(await activityRow(id)).to.equal(undefined);

      // Who may edit every svc_comments row through /comments is still not the author here.
      const moderator = await createCaller(db(), { app: true });
      await grant(ctx(), moderator.role, [
        { collection: 'svc_comments', action: 'update' },
        { collection: 'svc_comments', action: 'delete' },
      ]);
      const moderated = await createComment(author.token, 'Needs a fix');
      expectError(
        await call(ctx(), moderator.token, 'PATCH', `/activity/comment/${moderated}`, { comment: 'Fixed' }),
        403,
        'FORBIDDEN',
      );
      expectError(await call(ctx(), moderator.token, 'DELETE', `/activity/comment/${moderated}`), 403, 'FORBIDDEN');
      expect(await activityRow(moderated)).to.include({ comment: 'Needs a fix' });
      // 204: the moderator may update the row but reads only their own comments.
      expect(
        (await call(ctx(), moderator.token, 'PATCH', `/comments/${linkedCommentId(moderated)}`, { comment: 'Fixed' }))
          .status,
      ).to.equal(204);
      expect(await activityRow(moderated)).to.include({ comment: 'Fixed', user: author.user });

      const second = await createComment(author.token, 'Short-lived');
      expect((await call(ctx(), author.token, 'DELETE', `/activity/comment/${second}`)).status).to.equal(204);
      expect(await commentRow(linkedCommentId(second))).to.equal(undefined);
    });
  });

  describe('writes through /comments and /items/svc_comments', () => {
    it("an update of the linked svc_comments row changes the activity row's text", async () => {
      const id = await createComment(TEST_ADMIN.token, 'Original');
      const viaComments = dataOf(
        await admin('PATCH', `/comments/${linkedCommentId(id)}`, { comment: 'Via /comments' }),
      );
      expect(viaComments).to.include({ id: linkedCommentId(id), comment: 'Via /comments' });
      expect(await activityRow(id)).to.include({ action: 'comment', comment: 'Via /comments' });
      dataOf(
        await admin('PATCH', `/items/svc_comments/${linkedCommentId(id).toUpperCase()}`, { comment: 'Via items' }),
      );
      expect(await activityRow(id)).to.include({ comment: 'Via items' });
      const byOwner = await createComment(author.token, 'Owner text');
      dataOf(
        await call(ctx(), author.token, 'PATCH', `/comments/${linkedCommentId(byOwner)}`, { comment: 'Owner edit' }),
      );
      expect(await activityRow(byOwner)).to.include({ comment: 'Owner edit' });
    });

    it('a linked comment moved to another item moves its activity row too', async () => {
      const id = await createComment(TEST_ADMIN.token, 'Misplaced');
      const target = Number(dataOf(await admin('POST', '/items/articles', { title: 'The right one' }))['id']);
      const moved = dataOf(
        await admin('PATCH', `/comments/${linkedCommentId(id)}`, { item: String(target), comment: 'Placed' }),
      );
      expect(moved).to.include({ item: String(target), comment: 'Placed' });
      // was still on the first article, where /activity and its item's comments kept showing it
      expect(await activityRow(id)).to.include({ collection: 'articles', item: String(target), comment: 'Placed' });
      dataOf(await admin('PATCH', `/comments/${linkedCommentId(id)}`, { collection: 'svc_users', item: adminId }));
      expect(await activityRow(id)).to.include({ collection: 'svc_users', item: adminId, comment: 'Placed' });
    });

    it("a comment's item key is stored as the item's own: a uuid in lower case, an integer unpadded", async () => {
      const upper = dataOf(
        await admin('POST', '/comments', { collection: 'svc_users', item: adminId.toUpperCase(), comment: 'Loud' }),
      );
      // was kept upper-case: filtering comments by the user's key found it on MariaDB only
      expect(upper['item']).to.equal(adminId);
      const listed = await admin('GET', `/comments?filter[item][_eq]=${adminId}&filter[comment][_eq]=Loud&fields=id`);
      expect((listed.body?.['data'] as Row[]).map((r) => r['id'])).to.deep.equal([upper['id']]);
      const padded = dataOf(
        await admin('POST', '/comments', { collection: 'articles', item: `00${String(article)}`, comment: 'Padded' }),
      );
      expect(padded['item']).to.equal(String(article));
      const id = await createComment(TEST_ADMIN.token, 'Linked');
      dataOf(
        await admin('PATCH', `/comments/${linkedCommentId(id)}`, {
          collection: 'svc_users',
          item: adminId.toUpperCase(),
        }),
      );
      expect(await commentRow(linkedCommentId(id))).to.include({ item: adminId });
      expect(await activityRow(id)).to.include({ item: adminId });
    });

    it('a delete of the linked svc_comments row deletes the activity row', async () => {
      const one = await createComment(TEST_ADMIN.token, 'One');
      const two = await createComment(TEST_ADMIN.token, 'Two');
      expect((await admin('DELETE', `/comments/${linkedCommentId(one)}`)).status).to.equal(204);
      expect(await activityRow(one)).to.equal(undefined);
      expect((await admin('DELETE', '/items/svc_comments', [linkedCommentId(two)])).status).to.equal(204);
      expect(await activityRow(two)).to.equal(undefined);
      expectError(await admin('PATCH', `/activity/comment/${one}`, { comment: 'Gone' }), 403, 'FORBIDDEN');
    });

    it('comments made through /comments stay unlinked; a linked id cannot be taken through them', async () => {
      const activityBefore = await db()('svc_activity').where({ action: 'comment' }).select<Row[]>('id', 'comment');
      const plain = dataOf(
        await admin('POST', '/comments', { collection: 'articles', item: String(article), comment: 'Plain' }),
      );
      expect(String(plain['id'])).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-4/);
      dataOf(await admin('PATCH', `/comments/${String(plain['id'])}`, { comment: 'Plain edited' }));
      expect((await admin('DELETE', `/comments/${String(plain['id'])}`)).status).to.equal(204);

      const before = await counts();
      const [nextId] = await db()('svc_activity').max({ id: 'id' });
      const reserved = linkedCommentId(Number((nextId as Row)['id']) + 1);
      expectError(
        await admin('POST', '/comments', {
          id: reserved,
          collection: 'articles',
          item: String(article),
          comment: 'Squatting',
        }),
        400,
        'INVALID_PAYLOAD',
      );
      expect(await counts()).to.deep.equal(before);
      expect(await db()('svc_activity').where({ action: 'comment' }).select<Row[]>('id', 'comment')).to.deep.equal(
        activityBefore,
      );
    });
  });

  describe('GraphQL system mutations', () => {
    const system = { scope: 'system' } as const;

    it('create_comment, update_comment and delete_comment work on the activity row and its svc_comments row', async () => {
      const before = await counts();
      const created = await graphqlData(
        ctx(),
        `mutation { create_comment(collection: "articles", item: "${article}", comment: "GraphQL") { id action collection item comment user { email } } }`,
        system,
      );
      const activity = created['create_comment'] as Row;
      expect(activity).to.deep.include({
        action: 'comment',
        collection: 'articles',
        item: String(article),
        comment: 'GraphQL',
        user: { email: TEST_ADMIN.email },
      });
      const id = Number(activity['id']);
      expect(await commentRow(linkedCommentId(id))).to.include({ comment: 'GraphQL', collection: 'articles' });

      const updated = await graphqlData(
        ctx(),
        `mutation { update_comment(id: "${id}", comment: "GraphQL edited") { id comment } }`,
        system,
      );
      expect(updated).to.deep.equal({ update_comment: { id: String(id), comment: 'GraphQL edited' } });
      expect(await commentRow(linkedCommentId(id))).to.include({ comment: 'GraphQL edited' });
      expect(await counts()).to.deep.equal({
        ...before,
        svc_activity: before['svc_activity']! + 1,
        svc_comments: before['svc_comments']! + 1,
      });

      const deleted = await graphqlData(ctx(), `mutation { delete_comment(id: "${id}") { id } }`, system);
      expect(deleted).to.deep.equal({ delete_comment: { id: String(id) } });
      expect(await counts()).to.deep.equal(before);
    });

    it("the same rules as REST: empty comment, another user's comment, unknown collection", async () => {
      const id = await createComment(author.token, 'Guarded');
      const before = await counts();
      const empty = await graphql(
        ctx(),
        `mutation { create_comment(collection: "articles", item: "${article}", comment: "") { id } }`,
        system,
      );
      expect(empty.body.errors?.map((e) => e.extensions['code'])).to.deep.equal(['INVALID_PAYLOAD']);
      const unknown = await graphql(
        ctx(),
        'mutation { create_comment(collection: "nope", item: "1", comment: "x") { id } }',
        system,
      );
      expect(unknown.body.errors?.map((e) => e.extensions['code'])).to.deep.equal(['FORBIDDEN']);
      const hijack = await graphql(ctx(), `mutation { update_comment(id: "${id}", comment: "Hijacked") { id } }`, {
        ...system,
        token: other.token,
      });
      expect(hijack.body.errors?.map((e) => e.extensions['code'])).to.deep.equal(['FORBIDDEN']);
      const remove = await graphql(ctx(), `mutation { delete_comment(id: "${id}") { id } }`, {
        ...system,
        token: other.token,
      });
      expect(remove.body.errors?.map((e) => e.extensions['code'])).to.deep.equal(['FORBIDDEN']);
      expect(await counts()).to.deep.equal(before);
      const own = await graphqlData(
        ctx(),
        `mutation { update_comment(id: "${id}", comment: "Own edit") { comment } }`,
        { ...system, token: author.token },
      );
      expect(own).to.deep.equal({ update_comment: { comment: 'Own edit' } });
    });
  });
});
