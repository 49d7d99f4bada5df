import type { Knex } from 'knex';
import type { ServerContext } from '../../support/server.js';

/**
 * The read-side test schema, created through knex (the schema routes are another issue's):
 * countries ← authors ← articles ← comments (o2m chain of three), articles ↔ categories
 * (m2m through articles_categories), articles → headings | texts (m2a through
 * articles_sections), and a singleton. Relations are real foreign keys plus svc_relations
 * rows; alias fields and specials are svc_fields rows.
 */
export async function createQueryFixture(ctx: ServerContext): Promise<void> {
  const db = ctx.server.db;
  const isSqlite = ctx.dialect === 'sqlite';
  await db.schema.createTable('countries', (t) => {
    t.increments('id').primary();
    t.string('name', 80);
    t.string('code', 2);
  });
  await db.schema.createTable('authors', (t) => {
    t.increments('id').primary();
    t.string('name', 80);
    t.string('email', 120);
    t.integer('country').unsigned().references('id').inTable('countries').onDelete('SET NULL');
  });
  await db.schema.createTable('articles', (t) => {
    t.increments('id').primary();
    t.string('status', 20).defaultTo('draft');
    t.string('title', 200);
    t.text('body');
    t.integer('views');
    // SQLite: knex would declare `float`; keep the declared precision so the type is decimal.
    if (isSqlite) t.specificType('rating', 'decimal(10,2)');
    else t.decimal('rating', 10, 2);
    t.bigInteger('big');
    t.boolean('featured');
    t.date('published_on');
    t.datetime('published', { useTz: false });
    t.timestamp('created', { useTz: true }).nullable();
    t.time('starts');
    t.json('data');
    t.string('tags', 200);
    t.uuid('uid');
    t.string('secret', 255);
    t.integer('author').unsigned().references('id').inTable('authors').onDelete('SET NULL');
  });
  await db.schema.createTable('comments', (t) => {
    t.increments('id').primary();
    t.integer('article').unsigned().references('id').inTable('articles').onDelete('SET NULL');
    t.integer('author').unsigned().references('id').inTable('authors').onDelete('SET NULL');
    t.text('text');
    t.integer('sort');
  });
  await db.schema.createTable('categories', (t) => {
    t.increments('id').primary();
    t.string('name', 80);
  });
  await db.schema.createTable('articles_categories', (t) => {
    t.increments('id').primary();
    t.integer('articles_id').unsigned().references('id').inTable('articles').onDelete('CASCADE');
    t.integer('categories_id').unsigned().references('id').inTable('categories').onDelete('CASCADE');
  });
  await db.schema.createTable('headings', (t) => {
    t.increments('id').primary();
    t.string('title', 80);
    t.integer('level');
  });
  await db.schema.createTable('texts', (t) => {
    t.increments('id').primary();
    t.text('body');
  });
  await db.schema.createTable('articles_sections', (t) => {
    t.increments('id').primary();
    t.integer('articles_id').unsigned().references('id').inTable('articles').onDelete('CASCADE');
    t.string('item', 255);
    t.string('collection', 64);
    t.integer('sort');
  });
  await db.schema.createTable('site_settings', (t) => {
    t.increments('id').primary();
    t.string('headline', 80).defaultTo('Hello');
    t.integer('visits').defaultTo(0);
  });

  await db('svc_collections').insert({ collection: 'site_settings', singleton: true });
  await db('svc_fields').insert([
    { collection: 'articles', field: 'comments', special: 'o2m' },
    { collection: 'articles', field: 'categories', special: 'm2m' },
    { collection: 'articles', field: 'sections', special: 'm2a' },
    { collection: 'articles', field: 'tags', special: 'cast-csv' },
    { collection: 'articles', field: 'secret', special: 'hash' },
    { collection: 'articles', field: 'created', special: 'cast-timestamp' },
    { collection: 'authors', field: 'articles', special: 'o2m' },
    { collection: 'countries', field: 'authors', special: 'o2m' },
  ]);
  await db('svc_relations').insert([
    { many_collection: 'articles', many_field: 'author', one_collection: 'authors', one_field: 'articles' },
    { many_collection: 'authors', many_field: 'country', one_collection: 'countries', one_field: 'authors' },
    { many_collection: 'comments', many_field: 'article', one_collection: 'articles', one_field: 'comments' },
    { many_collection: 'comments', many_field: 'author', one_collection: 'authors' },
    {
      many_collection: 'articles_categories',
      many_field: 'articles_id',
      one_collection: 'articles',
      one_field: 'categories',
      junction_field: 'categories_id',
    },
    {
      many_collection: 'articles_categories',
      many_field: 'categories_id',
      one_collection: 'categories',
      junction_field: 'articles_id',
    },
    {
      many_collection: 'articles_sections',
      many_field: 'articles_id',
      one_collection: 'articles',
      one_field: 'sections',
      junction_field: 'item',
      sort_field: 'sort',
    },
    {
      many_collection: 'articles_sections',
      many_field: 'item',
      one_collection_field: 'collection',
      one_allowed_collections: 'headings,texts',
      junction_field: 'articles_id',
    },
  ]);
  await seed(db);
  if (ctx.dialect === 'postgres') {
    // seed() inserted its rows with their keys: move the sequences past them, so that
    // items the tests create get new keys.
    const tables = [
      'countries',
      'authors',
      'articles',
      'comments',
      'categories',
      'articles_categories',
      'headings',
      'texts',
      'articles_sections',
    ];
    for (const table of tables)
      await db.raw(`select setval(pg_get_serial_sequence(?, 'id'), (select max(id) from ??))`, [table, table]);
  }
  await ctx.server.schema.invalidate();
}

export const UID_1 = 'aaaaaaaa-bbbb-4ccc-8ddd-000000000001';

async function seed(db: Knex): Promise<void> {
  await db('countries').insert([
    { id: 1, name: 'Netherlands', code: 'NL' },
    { id: 2, name: 'Germany', code: 'DE' },
  ]);
  await db('authors').insert([
    { id: 1, name: 'Ann', email: 'ann@example.com', country: 1 },
    { id: 2, name: 'Bob', email: 'bob@example.com', country: 2 },
    { id: 3, name: 'Cid', email: 'cid@example.com', country: null },
  ]);
  await db('articles').insert([
    {
      id: 1,
      status: 'published',
      title: 'Hello world',
      body: 'First post',
      views: 5,
      rating: '4.50',
      big: '9007199254740993',
      featured: true,
      published_on: '2024-01-15',
      published: '2024-01-15 10:00:00',
      created: '2024-01-15 10:00:00',
      starts: '08:30:00',
      data: JSON.stringify({ a: [1, 2] }),
      tags: 'red,green',
      uid: UID_1,
      secret: '$argon2id$v=19$m=65536,t=3,p=4$c2FsdA$aGFzaA',
      author: 1,
    },
    {
      id: 2,
      status: 'draft',
      title: 'Second thoughts',
      body: 'Another body 100% of C:\\temp',
      views: 1,
      rating: '1.00',
      big: '2',
      featured: false,
      published_on: '2023-06-01',
      published: '2023-06-01 08:00:00',
      created: '2023-06-01 08:00:00',
      starts: '09:00:00',
      data: JSON.stringify([1, 2, 3]),
      tags: 'blue',
      author: 2,
    },
    { id: 3, status: 'published', title: 'Quantum leap', body: 'quantum_body', views: 6, author: 1, tags: '' },
    { id: 4, status: 'archived', title: 'No author', views: 0, author: null },
  ]);
  await db('comments').insert([
    { id: 1, article: 1, author: 2, text: 'c1 good', sort: 1 },
    { id: 2, article: 1, author: 3, text: 'c2 spam', sort: 2 },
    { id: 3, article: 1, author: 2, text: 'c3 good', sort: 3 },
    { id: 4, article: 2, author: 1, text: 'd1', sort: 1 },
    { id: 5, article: 3, author: 1, text: 'e1 good', sort: 1 },
  ]);
  await db('categories').insert([
    { id: 1, name: 'news' },
    { id: 2, name: 'tech' },
    { id: 3, name: 'misc' },
  ]);
  await db('articles_categories').insert([
    { id: 1, articles_id: 1, categories_id: 1 },
    { id: 2, articles_id: 1, categories_id: 2 },
    { id: 3, articles_id: 2, categories_id: 2 },
    { id: 4, articles_id: 3, categories_id: 1 },
  ]);
  await db('headings').insert([
    { id: 1, title: 'H1', level: 1 },
    { id: 2, title: 'H2', level: 2 },
  ]);
  await db('texts').insert([{ id: 1, body: 'T1 body' }]);
  await db('articles_sections').insert([
    { id: 1, articles_id: 1, item: '1', collection: 'headings', sort: 2 },
    { id: 2, articles_id: 1, item: '1', collection: 'texts', sort: 1 },
    { id: 3, articles_id: 1, item: '2', collection: 'headings', sort: 3 },
    { id: 4, articles_id: 2, item: '2', collection: 'headings', sort: 1 },
  ]);
}
