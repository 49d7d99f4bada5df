/**
 * The write floor: what the service's writes cost at the least, written by hand with pg.
 * Each write is the row plus its audit trail (one svc_activity and one svc_revisions row per
 * item) in one transaction, as the service records them; and for one item, the strongest
 * floor: the same three rows in ONE prepared statement without BEGIN and COMMIT, as the
 * service's PostgreSQL write of one plain item does (src/items/one-statement.ts).
 */
import type pg from 'pg';

export interface ArticleInput {
  readonly title: string;
  readonly status: string;
  readonly author: number;
  readonly category: number;
}

const COLUMNS = ['title', 'status', 'author', 'category'] as const;

async function inTransaction<T>(pool: pg.Pool, run: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await run(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  } finally {
    client.release();
  }
}

/** Inserts the articles, then one activity row and one revision row each: three statements. */
export function createArticles(pool: pg.Pool, items: readonly ArticleInput[]): Promise<number[]> {
  return inTransaction(pool, async (client) => {
    const values = COLUMNS.map((c) => items.map((i) => i[c]));
    const inserted = await client.query<{ id: number; data: unknown }>(
      `INSERT INTO articles (title, status, author, category)
       SELECT * FROM unnest($1::text[], $2::text[], $3::int[], $4::int[])
       RETURNING id, json_build_object('title', title, 'status', status, 'author', author, 'category', category) AS data`,
      values,
    );
    const ids = inserted.rows.map((r) => r.id);
    await recordAudit(
      client,
      'create',
      ids,
      inserted.rows.map((r) => r.data),
      inserted.rows.map((r) => r.data),
    );
    return ids;
  });
}

/** Updates one article and records the activity and the revision (full snapshot + delta). */
export function updateArticle(pool: pg.Pool, id: number, title: string): Promise<void> {
  return inTransaction(pool, async (client) => {
    const updated = await client.query<{ data: unknown }>(
      `UPDATE articles SET title = $2 WHERE id = $1 RETURNING row_to_json(articles) AS data`,
      [id, title],
    );
    await recordAudit(
      client,
      'update',
      [id],
      updated.rows.map((r) => r.data),
      [{ title }],
    );
  });
}

async function recordAudit(
  client: pg.PoolClient,
  action: string,
  ids: readonly number[],
  data: readonly unknown[],
  delta: readonly unknown[],
): Promise<void> {
  const activity = await client.query<{ id: number }>(
    `INSERT INTO svc_activity (action, collection, item, ip, user_agent)
     SELECT $1, 'articles', unnest($2::text[]), '127.0.0.1', 'bench' RETURNING id`,
    [action, ids.map(String)],
  );
  await client.query(
    `INSERT INTO svc_revisions (activity, collection, item, data, delta)
     SELECT unnest($1::int[]), 'articles', unnest($2::text[]), unnest($3::json[]), unnest($4::json[])`,
    [
      activity.rows.map((r) => r.id),
      ids.map(String),
      data.map((d) => JSON.stringify(d)),
      delta.map((d) => JSON.stringify(d)),
    ],
  );
}

/** One article, its activity and its revision in ONE named prepared statement (no transaction). */
export async function createArticleInOneStatement(pool: pg.Pool, item: ArticleInput): Promise<number> {
  const result = await pool.query<{ id: number }>({
    name: 'floor-create-one',
    text: `WITH i AS (INSERT INTO articles (title, status, author, category) VALUES ($1, $2, $3, $4)
             RETURNING id, json_build_object('title', title, 'status', status, 'author', author, 'category', category, 'id', id) AS data),
           a AS (INSERT INTO svc_activity (action, collection, item, ip, user_agent)
             SELECT 'create', 'articles', i.id::text, '127.0.0.1', 'bench' FROM i RETURNING id),
           r AS (INSERT INTO svc_revisions (activity, collection, item, data, delta)
             SELECT a.id, 'articles', i.id::text, i.data, i.data FROM a, i)
         SELECT id FROM i`,
    values: [item.title, item.status, item.author, item.category],
  });
  const id = result.rows[0]?.id;
  if (id === undefined) throw new Error('no article created');
  return id;
}

/** One article's title, its activity and its revision (snapshot + delta) in ONE named prepared statement. */
export async function updateArticleInOneStatement(pool: pg.Pool, id: number, title: string): Promise<void> {
  await pool.query({
    name: 'floor-update-one',
    text: `WITH u AS (UPDATE articles SET title = $2 WHERE id = $1 RETURNING row_to_json(articles) AS data, id),
           a AS (INSERT INTO svc_activity (action, collection, item, ip, user_agent)
             SELECT 'update', 'articles', u.id::text, '127.0.0.1', 'bench' FROM u RETURNING id)
         INSERT INTO svc_revisions (activity, collection, item, data, delta)
           SELECT a.id, 'articles', u.id::text, u.data, json_build_object('title', $2::text) FROM a, u`,
    values: [id, title],
  });
}
