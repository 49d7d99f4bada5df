import type { Knex } from 'knex';

/**
 * The tables behind FIXTURE_OVERVIEW's articles family (test/unit/commands/fixture-overview.ts):
 * articles → authors (m2o), comments (o2m), tags (m2m through articles_tags, deselect
 * delete), sections (m2a through articles_sections → headings | texts).
 */
export async function createArticleTables(db: Knex): Promise<void> {
  await db.schema.createTable('authors', (t) => {
    t.increments('id');
    t.string('name', 255);
  });
  await db.schema.createTable('articles', (t) => {
    t.increments('id');
    t.string('title', 20).notNullable();
    t.string('status', 255).notNullable().defaultTo('draft');
    t.string('code', 255);
    t.integer('views');
    t.integer('author').unsigned().references('id').inTable('authors').onDelete('SET NULL');
    t.timestamp('date_created', { useTz: true });
    t.uuid('user_updated');
  });
  await db.schema.createTable('comments', (t) => {
    t.increments('id');
    t.text('text');
    t.integer('article').unsigned().references('id').inTable('articles').onDelete('SET NULL');
  });
  await db.schema.createTable('tags', (t) => {
    t.increments('id');
    t.string('label', 255);
  });
  await db.schema.createTable('articles_tags', (t) => {
    t.increments('id');
    t.integer('articles_id').unsigned().references('id').inTable('articles').onDelete('CASCADE');
    t.integer('tags_id').unsigned().references('id').inTable('tags').onDelete('CASCADE');
  });
  await db.schema.createTable('headings', (t) => {
    t.increments('id');
    t.string('title', 255);
  });
  await db.schema.createTable('texts', (t) => {
    t.increments('id');
    t.text('body');
  });
  await db.schema.createTable('articles_sections', (t) => {
    t.increments('id');
    t.integer('articles_id').unsigned().references('id').inTable('articles').onDelete('CASCADE');
    t.string('collection', 255);
    t.string('item', 255);
  });
}
