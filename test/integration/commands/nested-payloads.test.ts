import { expect } from 'chai';
import { describeEachDatabase } from '../../support/server.js';
import { ARTICLE_TABLES, adminApi, countRows, createCommandSchema, dataOf, errorsOf } from './schema.js';

type Row = Record<string, unknown>;

describeEachDatabase('nested relational payloads', (ctx) => {
  const db = () => ctx().server.db;
  const api = (method: string, path: string, body?: unknown) => adminApi(ctx(), method, path, body);
  const createArticle = async (body: Row): Promise<number> =>
    Number(dataOf<Row>(await api('POST', '/items/articles', body))['id']);
  const rows = (table: string, where: Row = {}) => db()(table).where(where).orderBy('id').select<Row[]>('*');
  const one = async (table: string, id: unknown): Promise<Row> => {
    const row = await db()(table).where({ id }).first<Row | undefined>();
    if (row === undefined) throw new Error(`${table} ${String(id)} missing`);
    return row;
  };

  before(async () => {
    await createCommandSchema(ctx());
  });

  describe('create, every shape, to depth 3', () => {
    let article: Row;
    let existingTag: number;
    let existingText: number;

    before(async () => {
      existingTag = Number(dataOf<Row>(await api('POST', '/items/tags', { label: 'existing' }))['id']);
      existingText = Number(dataOf<Row>(await api('POST', '/items/texts', { body: 'kept' }))['id']);
      const id = await createArticle({
        title: 'Deep',
        author: { name: 'Ada' },
        comments: [{ text: 'first', author: { name: 'Bo', articles: [{ title: 'By Bo' }] } }, { text: 'second' }],
        tags: [{ tags_id: { label: 'fresh' } }, { tags_id: existingTag }],
        sections: [
          { collection: 'headings', item: { title: 'H1' } },
          { collection: 'texts', item: existingText },
        ],
      });
      article = await one('articles', id);
    });

    it('many-to-one object without key: the related item is created and its key stored', async () => {
      expect((await one('authors', article['author']))['name']).to.equal('Ada');
    });

    it('one-to-many objects are created pointing at the parent, nesting their own relations', async () => {
      const comments = await rows('comments', { article: article['id'] });
      expect(comments.map((c) => c['text'])).to.deep.equal(['first', 'second']);
      const bo = await one('authors', comments[0]?.['author']);
      expect(bo['name']).to.equal('Bo');
      // depth 3: article → comments → author → articles
      expect((await rows('articles', { author: bo['id'] })).map((a) => a['title'])).to.deep.equal(['By Bo']);
    });

    it('many-to-many entries create junction rows; the target follows the m2o rules', async () => {
      const junctions = await rows('articles_tags', { articles_id: article['id'] });
      expect(junctions).to.have.length(2);
      expect((await one('tags', junctions[0]?.['tags_id']))['label']).to.equal('fresh');
      expect(Number(junctions[1]?.['tags_id'])).to.equal(existingTag);
    });

    it('many-to-any entries store the collection and the item key as a string', async () => {
      const sections = await rows('articles_sections', { articles_id: article['id'] });
      expect(sections.map((s) => s['collection'])).to.deep.equal(['headings', 'texts']);
      expect((await one('headings', Number(sections[0]?.['item'])))['title']).to.equal('H1');
      expect(sections[1]?.['item']).to.equal(String(existingText));
    });
  });

  describe('many-to-one', () => {
    it('an object with an existing key updates that item and links it', async () => {
      const author = Number(dataOf<Row>(await api('POST', '/items/authors', { name: 'Old' }))['id']);
      const id = await createArticle({ title: 'M2O', author: { id: author, name: 'Renamed' } });
      expect(Number((await one('articles', id))['author'])).to.equal(author);
      expect((await one('authors', author))['name']).to.equal('Renamed');
    });

    it('an object with a key that does not exist creates the item with that key', async () => {
      const id = await createArticle({ title: 'M2O new key', author: { id: 4242, name: 'Given key' } });
      expect(Number((await one('articles', id))['author'])).to.equal(4242);
      expect((await one('authors', 4242))['name']).to.equal('Given key');
    });

    it('a scalar key is stored; null unlinks', async () => {
      const id = await createArticle({ title: 'M2O key', author: 4242 });
      expect(Number((await one('articles', id))['author'])).to.equal(4242);
      dataOf(await api('PATCH', `/items/articles/${id}`, { author: null }));
      expect((await one('articles', id))['author']).to.equal(null);
    });

    it('a key that points nowhere is INVALID_FOREIGN_KEY naming the field, and nothing is written', async () => {
      const before = await countRows(db(), ARTICLE_TABLES);
      expect(errorsOf(await api('POST', '/items/articles', { title: 'Bad FK', author: 999999 }), 400)).to.deep.equal([
        ['INVALID_FOREIGN_KEY', { collection: 'articles', field: 'author' }],
      ]);
      expect(await countRows(db(), ARTICLE_TABLES)).to.deep.equal(before);
    });
  });

  describe('one-to-many / many-to-many / many-to-any basic arrays replace the set', () => {
    it('keys link, objects with key update, objects without key create, omitted rows are nullified', async () => {
      const id = await createArticle({ title: 'O2M', comments: [{ text: 'a' }, { text: 'b' }, { text: 'c' }] });
      const [a, b, c] = await rows('comments', { article: id });
      const loose = Number(dataOf<Row>(await api('POST', '/items/comments', { text: 'loose' }))['id']);
      dataOf(
        await api('PATCH', `/items/articles/${id}`, {
          comments: [a?.['id'], { id: b?.['id'], text: 'b2' }, { text: 'd' }, loose],
        }),
      );
      const linked = await rows('comments', { article: id });
      expect(linked.map((r) => r['text'])).to.deep.equal(['a', 'b2', 'loose', 'd']);
      // default one_deselect_action nullify: the row stays, unlinked
      expect((await one('comments', c?.['id']))['article']).to.equal(null);
    });

    it('deselected junction rows are deleted when one_deselect_action is delete', async () => {
      const id = await createArticle({
        title: 'M2M',
        tags: [{ tags_id: { label: 'x' } }, { tags_id: { label: 'y' } }],
      });
      const [x, y] = await rows('articles_tags', { articles_id: id });
      const other = Number(dataOf<Row>(await api('POST', '/items/tags', { label: 'z' }))['id']);
      dataOf(
        await api('PATCH', `/items/articles/${id}`, {
          tags: [{ id: y?.['id'], tags_id: other }, { tags_id: { id: other, label: 'z2' } }],
        }),
      );
      const junctions = await rows('articles_tags', { articles_id: id });
      expect(junctions.map((j) => Number(j['tags_id']))).to.deep.equal([other, other]);
      expect(await rows('articles_tags', { id: x?.['id'] })).to.deep.equal([]);
      expect((await one('tags', other))['label']).to.equal('z2');
      // the tag itself is untouched by the junction delete
      expect(await rows('tags', { id: x?.['tags_id'] })).to.have.length(1);
    });

    it('many-to-any entries update in place and refuse collections outside the allowed list', async () => {
      const id = await createArticle({ title: 'M2A', sections: [{ collection: 'texts', item: { body: 'one' } }] });
      const [section] = await rows('articles_sections', { articles_id: id });
      dataOf(
        await api('PATCH', `/items/articles/${id}`, {
          sections: [
            { id: section?.['id'], item: { id: Number(section?.['item']), body: 'one!' }, collection: 'texts' },
          ],
        }),
      );
      expect((await one('texts', Number(section?.['item'])))['body']).to.equal('one!');
      const before = await countRows(db(), ARTICLE_TABLES);
      const errors = errorsOf(
        await api('PATCH', `/items/articles/${id}`, { sections: [{ collection: 'authors', item: { name: 'no' } }] }),
        400,
      );
      expect(errors.map(([code]) => code)).to.deep.equal(['INVALID_PAYLOAD']);
      expect(await countRows(db(), ARTICLE_TABLES)).to.deep.equal(before);
    });

    it('an empty array unlinks everything', async () => {
      const id = await createArticle({ title: 'Empty', comments: [{ text: 'gone' }] });
      dataOf(await api('PATCH', `/items/articles/${id}`, { comments: [] }));
      expect(await rows('comments', { article: id })).to.deep.equal([]);
    });

    it('a key of a row that does not exist is FORBIDDEN and nothing is written', async () => {
      const id = await createArticle({ title: 'Ghost' });
      const before = await countRows(db(), ARTICLE_TABLES);
      errorsOf(await api('PATCH', `/items/articles/${id}`, { title: 'changed', comments: [999999] }), 403);
      expect(await countRows(db(), ARTICLE_TABLES)).to.deep.equal(before);
      expect((await one('articles', id))['title']).to.equal('Ghost');
    });
  });

  describe('detailed {create, update, delete}', () => {
    it('edits the set incrementally and leaves unmentioned rows alone', async () => {
      const id = await createArticle({ title: 'Detailed', comments: [{ text: 'c1' }, { text: 'c2' }, { text: 'c3' }] });
      const [c1, c2, c3] = await rows('comments', { article: id });
      const foreign = Number(dataOf<Row>(await api('POST', '/items/comments', { text: 'not mine' }))['id']);
      dataOf(
        await api('PATCH', `/items/articles/${id}`, {
          comments: {
            create: [{ text: 'c4', author: { name: 'Nested in detailed' } }],
            update: [
              { id: c1?.['id'], text: 'c1-upd' },
              { id: foreign, text: 'hijacked' },
            ],
            delete: [c3?.['id']],
          },
        }),
      );
      expect((await rows('comments', { article: id })).map((c) => c['text'])).to.deep.equal(['c1-upd', 'c2', 'c4']);
      expect((await one('comments', c3?.['id']))['article']).to.equal(null);
      expect((await one('comments', foreign))['text']).to.equal('not mine');
      expect((await one('comments', c2?.['id']))['text']).to.equal('c2');
      const c4 = (await rows('comments', { article: id }))[2];
      expect((await one('authors', c4?.['author']))['name']).to.equal('Nested in detailed');
    });

    it('an unknown key is INVALID_PAYLOAD', async () => {
      const id = await createArticle({ title: 'Detailed bad' });
      expect(errorsOf(await api('PATCH', `/items/articles/${id}`, { comments: { add: [] } }), 400)[0]?.[0]).to.equal(
        'INVALID_PAYLOAD',
      );
    });

    it('nested updates reach depth 2 through an update', async () => {
      const id = await createArticle({ title: 'Depth', comments: [{ text: 'x', author: { name: 'Before' } }] });
      const [comment] = await rows('comments', { article: id });
      dataOf(
        await api('PATCH', `/items/articles/${id}`, {
          comments: { update: [{ id: comment?.['id'], author: { id: comment?.['author'], name: 'After' } }] },
        }),
      );
      expect((await one('authors', comment?.['author']))['name']).to.equal('After');
    });
  });
});
