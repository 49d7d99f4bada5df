/**
 * The read scenarios of the benchmark (issue #4), each as the service's request and the
 * floor's hand-written SQL returning the same JSON. Rows come from bench/data.
 */
export interface ReadScenario {
  readonly name: string;
  /** Path and query string against the service (relative to its base URL). */
  readonly path: string;
  /** The floor: one SQL statement producing `{"data": ...}` as a single JSON value. */
  readonly sql: string;
}

const q = (params: Record<string, string>) => new URLSearchParams(params).toString();

export const READ_SCENARIOS: readonly ReadScenario[] = [
  {
    name: 'flat list of 100',
    path: `/items/articles?${q({ fields: 'id,status,title,published_at,author,category', limit: '100' })}`,
    sql: `SELECT json_build_object('data', coalesce(json_agg(t), '[]')) FROM (
            SELECT id, status, title, published_at, author, category FROM articles ORDER BY id LIMIT 100) t`,
  },
  {
    name: 'filter + sort + meta total_count',
    path: `/items/articles?${q({
      fields: 'id,title,published_at',
      'filter[status][_eq]': 'published',
      sort: '-published_at',
      limit: '25',
      meta: 'total_count',
    })}`,
    sql: `SELECT json_build_object(
            'data', (SELECT coalesce(json_agg(t), '[]') FROM (
              SELECT id, title, published_at FROM articles WHERE status = 'published'
              ORDER BY published_at DESC LIMIT 25) t),
            'meta', json_build_object('total_count', (SELECT count(*) FROM articles)))`,
  },
  {
    name: 'm2o fields',
    path: `/items/articles?${q({ fields: 'id,title,author.name,author.email,category.name', limit: '100' })}`,
    sql: `SELECT json_build_object('data', coalesce(json_agg(t), '[]')) FROM (
            SELECT a.id, a.title,
                   CASE WHEN au.id IS NULL THEN NULL ELSE json_build_object('name', au.name, 'email', au.email) END AS author,
                   CASE WHEN c.id IS NULL THEN NULL ELSE json_build_object('name', c.name) END AS category
            FROM articles a LEFT JOIN authors au ON au.id = a.author LEFT JOIN categories c ON c.id = a.category
            ORDER BY a.id LIMIT 100) t`,
  },
  {
    name: 'o2m + m2m fields',
    path: `/items/articles?${q({ fields: 'id,title,comments.id,comments.body,tags.tags_id.name', limit: '25' })}`,
    sql: `SELECT json_build_object('data', coalesce(json_agg(t), '[]')) FROM (
            SELECT a.id, a.title,
              (SELECT coalesce(json_agg(json_build_object('id', c.id, 'body', c.body) ORDER BY c.id), '[]')
                 FROM comments c WHERE c.article = a.id) AS comments,
              (SELECT coalesce(json_agg(json_build_object('tags_id',
                        CASE WHEN tg.id IS NULL THEN NULL ELSE json_build_object('name', tg.name) END) ORDER BY j.id), '[]')
                 FROM articles_tags j LEFT JOIN tags tg ON tg.id = j.tags_id WHERE j.articles_id = a.id) AS tags
            FROM articles a ORDER BY a.id LIMIT 25) t`,
  },
  {
    name: 'three-level nesting',
    path: `/items/articles?${q({
      fields: 'id,title,category.name,comments.body,comments.author.name,comments.author.email',
      limit: '10',
    })}`,
    sql: `SELECT json_build_object('data', coalesce(json_agg(t), '[]')) FROM (
            SELECT a.id, a.title,
              CASE WHEN cat.id IS NULL THEN NULL ELSE json_build_object('name', cat.name) END AS category,
              (SELECT coalesce(json_agg(json_build_object('body', c.body, 'author',
                        CASE WHEN au.id IS NULL THEN NULL ELSE json_build_object('name', au.name, 'email', au.email) END)
                        ORDER BY c.id), '[]')
                 FROM comments c LEFT JOIN authors au ON au.id = c.author WHERE c.article = a.id) AS comments
            FROM articles a LEFT JOIN categories cat ON cat.id = a.category ORDER BY a.id LIMIT 10) t`,
  },
  {
    name: 'read by id',
    path: `/items/articles/4242?${q({ fields: 'id,title,body,author.name' })}`,
    sql: `SELECT json_build_object('data', json_build_object('id', a.id, 'title', a.title, 'body', a.body,
              'author', CASE WHEN au.id IS NULL THEN NULL ELSE json_build_object('name', au.name) END))
            FROM articles a LEFT JOIN authors au ON au.id = a.author WHERE a.id = 4242`,
  },
  {
    name: 'search',
    path: `/items/articles?${q({ fields: 'id,title', search: 'quantum', limit: '25' })}`,
    sql: `SELECT json_build_object('data', coalesce(json_agg(t), '[]')) FROM (
            SELECT id, title FROM articles
            WHERE title ILIKE '%quantum%' OR status ILIKE '%quantum%' OR body ILIKE '%quantum%'
            ORDER BY id LIMIT 25) t`,
  },
];

/** The article the write benchmarks create (run-writes.ts, run-instructions.ts): its i-th. */
export const benchArticle = (i: number) => ({
  title: `Bench article ${i}`,
  status: 'draft',
  author: 1 + (i % 1000),
  category: 1 + (i % 20),
});

/** The three-level nesting read as a GraphQL document (run-graphql.ts, run-instructions.ts). */
export const THREE_LEVELS_GRAPHQL =
  '{ articles(limit: 10) { id title category { name } comments { body author { name email } } } }';
