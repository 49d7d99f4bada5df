import { expect } from 'chai';
import type { Knex } from 'knex';
import type { ServerContext } from '../../support/server.js';
import { TEST_ADMIN } from '../../support/server.js';

/**
 * The collections the write-side suites work on, made the way an installation has them:
 * tables plus svc_collections / svc_fields / svc_relations rows, then the schema cache told.
 *
 * articles ─ author (m2o → authors), comments (o2m ← comments.article), tags (m2m through
 * articles_tags, deselect = delete), sections (m2a through articles_sections → headings |
 * texts); comments ─ author (m2o → authors); authors ─ articles (o2m ← articles.author).
 * gadgets: one column per type with unique, required, validation and hash fields.
 * home: a singleton. quiet: accountability null. logged: accountability `activity`.
 * steps: manual sort field.
 */
export async function createCommandSchema(ctx: ServerContext): Promise<void> {
  const db = ctx.server.db;
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
    t.timestamp('date_updated', { useTz: true });
    t.uuid('user_created');
  });
  await db.schema.createTable('comments', (t) => {
    t.increments('id');
    t.text('text');
    t.integer('article').unsigned().references('id').inTable('articles').onDelete('SET NULL');
    t.integer('author').unsigned().references('id').inTable('authors').onDelete('SET NULL');
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
  await db.schema.createTable('gadgets', (t) => {
    t.uuid('id').primary();
    t.string('name', 10).notNullable();
    t.string('slug', 50).unique();
    t.smallint('rank');
    t.integer('count');
    t.bigInteger('big');
    t.float('ratio');
    t.decimal('price', 5, 2);
    t.boolean('active');
    t.date('day');
    t.timestamp('seen_at', { useTz: true });
    t.json('doc');
    t.string('secret', 255);
    t.string('code', 20);
    t.text('note');
  });
  await db.schema.createTable('home', (t) => {
    t.increments('id');
    t.string('headline', 255).defaultTo('Hello');
  });
  for (const name of ['quiet', 'logged']) {
    await db.schema.createTable(name, (t) => {
      t.increments('id');
      t.string('name', 255);
    });
  }
  await db.schema.createTable('steps', (t) => {
    t.increments('id');
    t.string('name', 255);
    t.integer('sort');
  });

  await insertEach(db, 'svc_collections', [
    { collection: 'home', singleton: true },
    { collection: 'quiet', accountability: null },
    { collection: 'logged', accountability: 'activity' },
    { collection: 'steps', sort_field: 'sort' },
  ]);
  await insertEach(db, 'svc_fields', [
    { collection: 'articles', field: 'comments', special: 'o2m' },
    { collection: 'articles', field: 'tags', special: 'm2m' },
    { collection: 'articles', field: 'sections', special: 'm2a' },
    { collection: 'articles', field: 'code', validation: JSON.stringify({ _and: [{ code: { _starts_with: 'C' } }] }) },
    { collection: 'articles', field: 'date_created', special: 'date-created' },
    { collection: 'articles', field: 'date_updated', special: 'date-updated' },
    { collection: 'articles', field: 'user_created', special: 'user-created' },
    { collection: 'authors', field: 'articles', special: 'o2m' },
    { collection: 'authors', field: 'name', required: true },
    { collection: 'gadgets', field: 'id', special: 'uuid' },
    { collection: 'gadgets', field: 'secret', special: 'hash' },
    { collection: 'gadgets', field: 'note', required: true },
    {
      collection: 'gadgets',
      field: 'code',
      validation: JSON.stringify({ _and: [{ code: { _regex: '^[A-Z]+$' } }] }),
      validation_message: 'Codes are upper-case letters.',
    },
  ]);
  await insertEach(db, 'svc_relations', [
    { many_collection: 'articles', many_field: 'author', one_collection: 'authors', one_field: 'articles' },
    { many_collection: 'comments', many_field: 'article', one_collection: 'articles', one_field: 'comments' },
    { many_collection: 'comments', many_field: 'author', one_collection: 'authors' },
    {
      many_collection: 'articles_tags',
      many_field: 'articles_id',
      one_collection: 'articles',
      one_field: 'tags',
      junction_field: 'tags_id',
      one_deselect_action: 'delete',
    },
    { many_collection: 'articles_tags', many_field: 'tags_id', one_collection: 'tags', junction_field: 'articles_id' },
    {
      many_collection: 'articles_sections',
      many_field: 'articles_id',
      one_collection: 'articles',
      one_field: 'sections',
      junction_field: 'item',
    },
    {
      many_collection: 'articles_sections',
      many_field: 'item',
      one_collection: null,
      one_collection_field: 'collection',
      one_allowed_collections: 'headings,texts',
      junction_field: 'articles_id',
    },
  ]);
  await ctx.server.schema.invalidate();
}

/** One insert per row: a multi-row insert on SQLite would null the columns other rows leave out. */
async function insertEach(db: Knex, table: string, rows: readonly Record<string, unknown>[]): Promise<void> {
  for (const row of rows) await db(table).insert(row);
}

export interface ApiResult {
  readonly status: number;
  readonly body: { data?: unknown; errors?: { message: string; extensions: Record<string, unknown> }[] } | undefined;
}

/** An admin request with a JSON body; the parsed answer (undefined for an empty body). */
export async function adminApi(ctx: ServerContext, method: string, path: string, body?: unknown): Promise<ApiResult> {
  const res = await ctx.api(path, {
    method,
    headers: {
      Authorization: `Bearer ${TEST_ADMIN.token}`,
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text === '' ? undefined : (JSON.parse(text) as ApiResult['body']) };
}

/** The `data` of a successful answer; fails the test with the errors otherwise. */
export function dataOf<T = Record<string, unknown>>(result: ApiResult, status = 200): T {
  expect(result.status, JSON.stringify(result.body)).to.equal(status);
  return result.body?.data as T;
}

/** [code, extensions] of every error of a failed answer, after checking its status. */
export function errorsOf(result: ApiResult, status: number): [unknown, Record<string, unknown>][] {
  expect(result.status, JSON.stringify(result.body)).to.equal(status);
  return (result.body?.errors ?? []).map((e) => {
    const { code, ...rest } = e.extensions;
    return [code, rest];
  });
}

/** Row count of each table, to prove a failed write left nothing behind. */
export async function countRows(db: Knex, tables: readonly string[]): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of tables) {
    const row = await db(table).count({ n: '*' }).first<{ n: number | string }>();
    counts[table] = Number(row?.n ?? 0);
  }
  return counts;
}

export const ARTICLE_TABLES = [
  'articles',
  'authors',
  'comments',
  'tags',
  'articles_tags',
  'articles_sections',
  'headings',
  'texts',
  'svc_activity',
  'svc_revisions',
] as const;

/** JSON columns come back as text on SQLite and MariaDB. */
export function parseJson(value: unknown): unknown {
  return typeof value === 'string' ? JSON.parse(value) : value;
}
