import { expect } from 'chai';
import { describeEachDatabase } from '../../support/server.js';
import { adminData } from './read-client.js';

type Row = Record<string, unknown>;

/**
 * NULLs sort as the largest value on every dialect (PostgreSQL's own order): last
 * ascending, first descending; at the root, in o2m lists (deep _sort), through an m2o path
 * and in aggregate groups.
 */
describeEachDatabase('read: NULLs sort as the largest value', (ctx) => {
  const read = async (path: string) => (await adminData(ctx(), path)) as Row[];
  const ranks = (rows: readonly Row[]) => rows.map((r) => r['rank']);

  before(async () => {
    const db = ctx().server.db;
    await db.schema.createTable('shelves', (t) => {
      t.increments('id').primary();
      t.string('name', 80);
    });
    await db.schema.createTable('boxes', (t) => {
      t.increments('id').primary();
      t.integer('rank');
      t.integer('shelf').unsigned().references('id').inTable('shelves').onDelete('SET NULL');
    });
    await db('shelves').insert([
      { id: 1, name: 'b' },
      { id: 2, name: null },
      { id: 3, name: 'a' },
    ]);
    // Ranks of shelf 1: 2, null, 1, null, 3 (in key order); shelf 3: null, 5.
    await db('boxes').insert([
      { id: 1, rank: 2, shelf: 1 },
      { id: 2, rank: null, shelf: 1 },
      { id: 3, rank: 1, shelf: 1 },
      { id: 4, rank: null, shelf: 1 },
      { id: 5, rank: 3, shelf: 1 },
      { id: 6, rank: null, shelf: 3 },
      { id: 7, rank: 5, shelf: 2 },
      { id: 8, rank: 4, shelf: null },
    ]);
    await db('svc_fields').insert({ collection: 'shelves', field: 'boxes', special: 'o2m' });
    await db('svc_relations').insert({
      many_collection: 'boxes',
      many_field: 'shelf',
      one_collection: 'shelves',
      one_field: 'boxes',
    });
    await ctx().server.schema.invalidate();
  });

  it('sort on a nullable column: NULLs last ascending, first descending', async () => {
    expect(ranks(await read('/items/boxes?fields=rank&sort=rank,id'))).to.deep.equal([1, 2, 3, 4, 5, null, null, null]);
    expect(ranks(await read('/items/boxes?fields=rank&sort=-rank,id'))).to.deep.equal([
      null,
      null,
      null,
      5,
      4,
      3,
      2,
      1,
    ]);
    const firstTwo = await read('/items/boxes?fields=id&sort=-rank,-id&limit=2');
    expect(firstTwo.map((r) => r['id'])).to.deep.equal([6, 4]);
  });

  it('sort through a many-to-one path: rows whose related value is NULL (or missing) sort as largest', async () => {
    const ascending = await read('/items/boxes?fields=id&filter[id][_in]=1,6,7,8&sort=shelf.name,id');
    expect(ascending.map((r) => r['id'])).to.deep.equal([6, 1, 7, 8]);
    const descending = await read('/items/boxes?fields=id&filter[id][_in]=1,6,7,8&sort=-shelf.name,id');
    expect(descending.map((r) => r['id'])).to.deep.equal([7, 8, 1, 6]);
    const page = await read(
      '/items/boxes?fields=id,shelf.name&filter[id][_in]=1,6,7,8&sort=-shelf.name,id&limit=2&offset=1',
    );
    expect(page).to.deep.equal([
      { id: 8, shelf: null },
      { id: 1, shelf: { name: 'b' } },
    ]);
    const streamed = await read('/items/boxes?fields=id&sort=shelf.name,-rank,id&limit=-1');
    expect(streamed.map((r) => r['id'])).to.deep.equal([6, 2, 4, 5, 1, 3, 7, 8]);
  });

  it('sort inside one-to-many lists (deep _sort), with and without a window', async () => {
    const boxesOf = (shelves: Row[]) => shelves.map((s) => ranks(s['boxes'] as Row[]));
    const base = '/items/shelves?fields=id,boxes.rank&sort=id';
    expect(boxesOf(await read(`${base}&deep[boxes][_sort]=rank,id`))).to.deep.equal([
      [1, 2, 3, null, null],
      [5],
      [null],
    ]);
    expect(boxesOf(await read(`${base}&deep[boxes][_sort]=-rank,id`))).to.deep.equal([
      [null, null, 3, 2, 1],
      [5],
      [null],
    ]);
    expect(boxesOf(await read(`${base}&deep[boxes][_sort]=-rank,id&deep[boxes][_limit]=3`))).to.deep.equal([
      [null, null, 3],
      [5],
      [null],
    ]);
    expect(boxesOf(await read(`${base}&deep[boxes][_sort]=rank,id&deep[boxes][_limit]=3`))).to.deep.equal([
      [1, 2, 3],
      [5],
      [null],
    ]);
  });

  it('aggregate groups sorted on a nullable group', async () => {
    const groups = async (sort: string) =>
      (await read(`/items/boxes?groupBy[]=shelf&aggregate[count]=*&sort=${sort}`)).map((g) =>
        g['shelf'] === null ? null : Number(g['shelf']),
      );
    expect(await groups('shelf')).to.deep.equal([1, 2, 3, null]);
    expect(await groups('-shelf')).to.deep.equal([null, 3, 2, 1]);
    // Shelf 3's only rank is NULL: so is its sum.
    const bySum = async (sort: string) =>
      (await read(`/items/boxes?groupBy[]=shelf&aggregate[sum]=rank&sort=${sort}`)).map((g) =>
        g['shelf'] === null ? null : Number(g['shelf']),
      );
    expect(await bySum('sum.rank')).to.deep.equal([null, 2, 1, 3]);
    expect(await bySum('-sum.rank')).to.deep.equal([3, 1, 2, null]);
  });
});
