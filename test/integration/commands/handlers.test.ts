import { expect } from 'chai';
import { migrate } from '../../../catalog/migrate.js';
import { ALLOW_ALL } from '../../../src/access/write-permissions.js';
import { handleCreate } from '../../../src/commands/create.js';
import { handleDelete } from '../../../src/commands/delete.js';
import { handleUpdate } from '../../../src/commands/update.js';
import type { CommandContext } from '../../../src/commands/types.js';
import { createDatabase, type Knex } from '../../../src/db/index.js';
import { testConfig } from '../../support/server.js';
import { DATABASE_TARGETS, requireOrSkip, type TestDatabase } from '../../support/services.js';
import { FIXTURE_OVERVIEW } from '../../unit/commands/fixture-overview.js';
import { createArticleTables } from './fixture-schema.js';

const admin = { user: null, role: null, admin: true, app: true, ip: '127.0.0.1', userAgent: 'test', origin: null };

for (const target of DATABASE_TARGETS) {
  describe(`command handlers with nested payloads [${target.dialect}]`, function () {
    let database: TestDatabase | undefined;
    let db: Knex;
    let ctx: CommandContext;

    before(async function () {
      requireOrSkip(this, await target.unavailable());
      database = await target.create();
      db = createDatabase(testConfig(database).db);
      await migrate(db);
      await createArticleTables(db);
      ctx = { db, overview: FIXTURE_OVERVIEW, accountability: admin, permissions: ALLOW_ALL, maxBatchMutation: Infinity };
    });

    after(async () => {
      await db?.destroy();
      await database?.drop();
    });

    it('creates an article with every nested shape at depth 2', async () => {
      const [key] = await handleCreate(
        {
          kind: 'create',
          collection: 'articles',
          data: [
            {
              title: 'Hello',
              author: { name: 'Ada' },
              comments: [{ text: 'c1' }, { text: 'c2' }],
              tags: [{ tags_id: { label: 'news' } }],
              sections: [{ collection: 'headings', item: { title: 'H1' } }],
            },
          ],
        },
        ctx,
      );
      const article = await db('articles').where({ id: key }).first();
      expect(article.title).to.equal('Hello');
      const author = await db('authors').where({ id: article.author }).first();
      expect(author.name).to.equal('Ada');
      expect((await db('comments').where({ article: key }).orderBy('id')).map((c: { text: string }) => c.text)).to.deep.equal(['c1', 'c2']);
      const junction = await db('articles_tags').where({ articles_id: key });
      expect(junction).to.have.length(1);
      expect((await db('tags').where({ id: junction[0].tags_id }).first()).label).to.equal('news');
      const section = await db('articles_sections').where({ articles_id: key }).first();
      expect(section.collection).to.equal('headings');
      expect((await db('headings').where({ id: Number(section.item) }).first()).title).to.equal('H1');
      const revisions = await db('svc_revisions').orderBy('id');
      const parent = revisions.find((r: { collection: string }) => r.collection === 'articles');
      expect(revisions.filter((r: { parent: number | null }) => r.parent === parent.id).map((r: { collection: string }) => r.collection).sort()).to.deep.equal(
        ['articles_sections', 'articles_tags', 'authors', 'comments', 'comments'].sort(),
      );
    });

    it('updates with basic arrays, deselecting by nullify and delete', async () => {
      const [key] = await handleCreate({ kind: 'create', collection: 'articles', data: [{ title: 'T', comments: [{ text: 'a' }, { text: 'b' }], tags: [{ tags_id: { label: 'x' } }, { tags_id: { label: 'y' } }] }] }, ctx);
      const comments = await db('comments').where({ article: key }).orderBy('id');
      const tags = await db('articles_tags').where({ articles_id: key }).orderBy('id');
      await handleUpdate({ kind: 'update', collection: 'articles', keys: [key as number], data: { comments: [comments[0].id, { text: 'c' }], tags: [tags[1].id] } }, ctx);
      expect((await db('comments').where({ id: comments[1].id }).first()).article).to.equal(null);
      expect((await db('comments').where({ article: key }).orderBy('id')).map((c: { text: string }) => c.text)).to.deep.equal(['a', 'c']);
      expect((await db('articles_tags').where({ articles_id: key })).map((t: { id: number }) => t.id)).to.deep.equal([tags[1].id]);
      expect(await db('articles_tags').where({ id: tags[0].id })).to.have.length(0);
    });

    it('detailed form create/update/delete', async () => {
      const [key] = await handleCreate({ kind: 'create', collection: 'articles', data: [{ title: 'D', comments: [{ text: 'a' }, { text: 'b' }] }] }, ctx);
      const [a, b] = await db('comments').where({ article: key }).orderBy('id');
      await handleUpdate({ kind: 'update', collection: 'articles', keys: [key as number], data: { comments: { create: [{ text: 'n' }], update: [{ id: a.id, text: 'a2' }], delete: [b.id] } } }, ctx);
      expect((await db('comments').where({ article: key }).orderBy('id')).map((c: { text: string }) => c.text)).to.deep.equal(['a2', 'n']);
      expect((await db('comments').where({ id: b.id }).first()).article).to.equal(null);
    });

    it('rolls back everything when a nested item fails validation', async () => {
      const before = await db('articles').count({ n: '*' }).first();
      const error = await handleCreate({ kind: 'create', collection: 'articles', data: [{ title: 'ok', author: { name: 'x' }, comments: [{ text: 'x', nope: 1 }] }] }, ctx).catch((e: unknown) => e);
      expect((error as { code?: string }).code).to.equal('INVALID_PAYLOAD');
      expect(await db('articles').count({ n: '*' }).first()).to.deep.equal(before);
    });

    it('deleting a missing item is FORBIDDEN and deletes nothing', async () => {
      const [key] = await handleCreate({ kind: 'create', collection: 'articles', data: [{ title: 'X' }] }, ctx);
      const error = await handleDelete({ kind: 'delete', collection: 'articles', keys: [key as number, 99999] }, ctx).catch((e: unknown) => e);
      expect((error as { code?: string }).code).to.equal('FORBIDDEN');
      expect(await db('articles').where({ id: key })).to.have.length(1);
    });
  });
}
