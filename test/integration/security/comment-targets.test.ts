import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeEachDatabase, type ServerContext } from '../../support/server.js';
import { call, createCaller, dataOf, grant, type Caller, type JsonResponse } from '../access/permission-helpers.js';
import { graphql, type GraphqlResponse } from '../graphql/graphql-client.js';
import { createQueryFixture } from '../query/fixture-schema.js';
import { dumpTables, expectSameRefusal, type Row } from './helpers.js';

/*
 * A comment is about an item the commenter may read, in a collection that exists:
 * on every path that creates one (POST
 * /comments, /items/svc_comments, /activity/comment, GraphQL) or moves one to another item,
 * a hidden item, a missing one and an unknown or forbidden collection answer the same
 * FORBIDDEN, and nothing is written. The commenter's role has app access (its implicit
 * rows: own svc_comments, svc_activity comments) and reads published articles only.
 */

const dir = mkdtempSync(join(tmpdir(), 'svc-comments-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const WATCHED: readonly (readonly [string, string])[] = [
  ['svc_comments', 'id'],
  ['svc_activity', 'id'],
  ['svc_revisions', 'id'],
];

/** Targets that must all be refused alike: a draft article (hidden), a missing one, a forbidden and an unknown collection. */
const REFUSED_TARGETS = [
  { collection: 'articles', item: '2' },
  { collection: 'articles', item: '99999' },
  { collection: 'articles', item: 'not-a-key' },
  { collection: 'countries', item: '1' },
  { collection: 'no_such_collection', item: '1' },
] as const;

type Target = (typeof REFUSED_TARGETS)[number];

describeEachDatabase(
  'comments only on items the commenter may read',
  (context) => {
    let ctx: ServerContext;
    let commenter: Caller;
    /** An own comment on a readable article (1), made through /comments. */
    let ownComment: string;
    const as = (method: string, path: string, body?: unknown) => call(ctx, commenter.token, method, path, body);

    before(async () => {
      ctx = context();
      await createQueryFixture(ctx);
      commenter = await createCaller(ctx.server.db, { app: true });
      await grant(ctx, commenter.role, [
        { collection: 'articles', action: 'read', permissions: { status: { _eq: 'published' } } },
      ]);
      ownComment = String(
        dataOf<Row>(await as('POST', '/comments', { collection: 'articles', item: '1', comment: 'mine' }))['id'],
      );
    });

    /** Every target refused the same way by `create`, and no row of the journal or comments written. */
    async function expectAllRefused(
      create: (target: Target) => Promise<JsonResponse>,
      targets: readonly Target[] = REFUSED_TARGETS,
    ): Promise<void> {
      const before = await dumpTables(ctx.server.db, WATCHED);
      const [first, ...rest] = targets;
      if (first === undefined) throw new Error('no targets');
      const refusal = await create(first);
      for (const target of rest) expectSameRefusal(refusal, await create(target));
      expect(await dumpTables(ctx.server.db, WATCHED), 'no row changed').to.deep.equal(before);
    }

    it('a comment on a readable item is written (the control case)', async () => {
      const made = dataOf<Row>(
        await as('POST', '/activity/comment?fields=collection,item,comment', {
          collection: 'articles',
          item: '3',
          comment: 'fine',
        }),
      );
      expect(made).to.deep.equal({ collection: 'articles', item: '3', comment: 'fine' });
    });

    it('a comment without its collection or item is a bad payload, not a refusal', async () => {
      const before = await dumpTables(ctx.server.db, WATCHED);
      for (const body of [
        { item: '1', comment: 'x' },
        { collection: 'articles', comment: 'x' },
      ]) {
        const res = await as('POST', '/comments', body);
        expect(res.status, JSON.stringify(res.body)).to.equal(400);
      }
      expect(await dumpTables(ctx.server.db, WATCHED), 'no row changed').to.deep.equal(before);
    });

    it('POST /comments', () => expectAllRefused((t) => as('POST', '/comments', { ...t, comment: 'sneaky' })));

    it('POST /items/svc_comments', () =>
      expectAllRefused((t) => as('POST', '/items/svc_comments', { ...t, comment: 'sneaky' })));

    it('POST /comments with an array: one refused target refuses all', () =>
      expectAllRefused((t) =>
        as('POST', '/comments', [
          { collection: 'articles', item: '1', comment: 'ok' },
          { ...t, comment: 'sneaky' },
        ]),
      ));

    it('POST /activity/comment', () =>
      expectAllRefused((t) => as('POST', '/activity/comment', { ...t, comment: 'sneaky' })));

    it('moving an own comment onto another item', async () => {
      await expectAllRefused((t) => as('PATCH', `/comments/${ownComment}`, t));
      // Only `item`: the comment stays on articles.
      const articles = REFUSED_TARGETS.filter((t) => t.collection === 'articles');
      await expectAllRefused((t) => as('PATCH', `/comments/${ownComment}`, { item: t.item }), articles);
      await expectAllRefused((t) => as('PATCH', '/comments', { keys: [ownComment], data: t }));
    });

    it('GraphQL create_comments_item and create_comment', async () => {
      const system = { scope: 'system', token: commenter.token } as const;
      const errorsOf = (res: GraphqlResponse) => [
        res.status,
        res.body.errors?.map((e) => [e.message, e.extensions['code']]),
        res.body.data,
      ];
      for (const mutation of [
        'create_comments_item(data: { collection: "%c", item: "%i", comment: "x" }) { id }',
        'create_comment(collection: "%c", item: "%i", comment: "x") { id }',
      ]) {
        const before = await dumpTables(ctx.server.db, WATCHED);
        const answers = [];
        for (const target of REFUSED_TARGETS) {
          const text = mutation.replace('%c', target.collection).replace('%i', target.item);
          answers.push(errorsOf(await graphql(ctx, `mutation { ${text} }`, system)));
        }
        const name = mutation.slice(0, mutation.indexOf('('));
        expect(answers[0]).to.deep.equal([
          200,
          [["You don't have permission to access this.", 'FORBIDDEN']],
          { [name]: null },
        ]);
        for (const answer of answers) expect(answer).to.deep.equal(answers[0]);
        expect(await dumpTables(ctx.server.db, WATCHED), 'no row changed').to.deep.equal(before);
      }
    });
  },
  { env: { STORAGE_LOCAL_ROOT: join(dir, 'uploads'), TEMP_PATH: join(dir, 'tmp') } },
);
