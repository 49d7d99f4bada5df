import { expect } from 'chai';
import { describeEachDatabase } from '../../support/server.js';
import { call, createCaller, grant } from '../access/permission-helpers.js';
import { createQueryFixture } from './fixture-schema.js';
import { adminIds, adminRead, errorOf } from './read-client.js';

/** `filter` as a query string value. */
const q = (value: unknown): string => encodeURIComponent(JSON.stringify(value));

const ids = (body: Record<string, unknown> | undefined): unknown[] =>
  ((body?.['data'] ?? []) as { id: unknown }[]).map((item) => item.id);

// Directus 10's `$FOLLOW(collection, field)`: the rows of another collection whose field
// points at this row, filtered like a one-to-many alias, with or without an alias defined.
// The fixture's comments.author points at authors, and authors has no alias for it.
describeEachDatabase('filter keys $FOLLOW(collection, field): the rows that point at this one', (ctx) => {
  before(async () => {
    await createQueryFixture(ctx());
  });

  const authors = (filter: unknown): Promise<unknown[]> =>
    adminIds(ctx(), `/items/authors?fields=id&sort=id&filter=${q(filter)}`);

  it('nested field keys: some row pointing here matches (the query string form too)', async () => {
    expect(
      await adminIds(
        ctx(),
        '/items/authors?fields=id&sort=id&filter[$FOLLOW(articles,author)][title][_eq]=Hello world',
      ),
    ).to.deep.equal([1]);
    expect(await authors({ '$FOLLOW(comments,author)': { text: { _contains: 'good' } } })).to.deep.equal([1, 2]);
    expect(await authors({ '$FOLLOW( comments , author )': { text: { _eq: 'd1' } } })).to.deep.equal([1]);
  });

  it('_some, _none and _null as on a one-to-many alias, and inside _and/_or and deeper levels', async () => {
    expect(await authors({ '$FOLLOW(comments,author)': { _none: { text: { _contains: 'good' } } } })).to.deep.equal([
      3,
    ]);
    expect(await authors({ '$FOLLOW(comments,author)': { _some: { text: { _contains: 'spam' } } } })).to.deep.equal([
      3,
    ]);
    expect(await authors({ '$FOLLOW(articles,author)': { _null: true } })).to.deep.equal([3]);
    expect(
      await authors({ _or: [{ id: { _eq: 3 } }, { '$FOLLOW(articles,author)': { status: { _eq: 'draft' } } }] }),
    ).to.deep.equal([2, 3]);
    // From comments: their article's author has a comment of their own on article 3.
    const deeper = { article: { author: { '$FOLLOW(comments,author)': { article: { _eq: 3 } } } } };
    expect(await adminIds(ctx(), `/items/comments?fields=id&sort=id&filter=${q(deeper)}`)).to.deep.equal([1, 2, 3, 5]);
  });

  it('$FOLLOW(junction, item, collection_field): the many-to-any rows naming this collection and key', async () => {
    const follow = '$FOLLOW(articles_sections,item,collection)';
    const of = (collection: string, filter: unknown): Promise<unknown[]> =>
      adminIds(ctx(), `/items/${collection}?fields=id&sort=id&filter=${q({ [follow]: filter })}`);
    expect(await of('headings', { articles_id: { _eq: 1 } })).to.deep.equal([1, 2]);
    expect(await of('headings', { articles_id: { _eq: 2 } })).to.deep.equal([2]);
    // Row 1 of articles_sections is heading 1 (item "1"): text 1 has item "1" too, in another row.
    expect(await of('texts', { sort: { _eq: 2 } })).to.deep.equal([]);
    expect(await of('texts', { sort: { _eq: 1 } })).to.deep.equal([1]);
    expect(await of('headings', { _none: { articles_id: { _eq: 1 } } })).to.deep.equal([]);
  });

  it('a field that cannot hold this collection keys, or an unknown field, is 400 INVALID_QUERY', async () => {
    for (const filter of [
      { '$FOLLOW(comments,text)': { id: { _eq: 1 } } },
      { '$FOLLOW(comments,nothing)': { id: { _eq: 1 } } },
      { '$FOLLOW(comments,author,text)': { id: { _eq: 1 } } },
      { '$FOLLOW(articles_sections,item,sort)': { id: { _eq: 1 } } },
    ]) {
      const error = await errorOf(adminRead(ctx(), `/items/authors?filter=${q(filter)}`));
      expect({ status: error.status, code: error.code }, JSON.stringify(filter)).to.deep.equal({
        status: 400,
        code: 'INVALID_QUERY',
      });
    }
  });

  it('permission-checked: the followed collection and field must be readable, and only readable rows count', async () => {
    const filter = q({ '$FOLLOW(comments,author)': { text: { _contains: 'good' } } });
    const path = `/items/authors?fields=id&sort=id&filter=${filter}`;
    const noComments = await createCaller(ctx().server.db);
    await grant(ctx(), noComments.role, [{ collection: 'authors', action: 'read' }]);
    expect((await call(ctx(), noComments.token, 'GET', path)).status).to.equal(403);

    const noAuthorField = await createCaller(ctx().server.db);
    await grant(ctx(), noAuthorField.role, [
      { collection: 'authors', action: 'read' },
      { collection: 'comments', action: 'read', fields: ['id', 'text'] },
    ]);
    expect((await call(ctx(), noAuthorField.token, 'GET', path)).status).to.equal(403);

    const someComments = await createCaller(ctx().server.db);
    await grant(ctx(), someComments.role, [
      { collection: 'authors', action: 'read' },
      { collection: 'comments', action: 'read', permissions: { article: { _neq: 3 } } },
    ]);
    const res = await call(ctx(), someComments.token, 'GET', path);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    // Comment 5 (Ann's, on article 3) is not readable: only Bob's good comments count.
    expect(ids(res.body)).to.deep.equal([2]);
  });
});
