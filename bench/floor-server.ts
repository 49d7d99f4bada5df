/**
 * The floor: a bare node:http + pg server answering the read scenarios, the writes of
 * write-floor.ts and the CSV import of import-floor.ts with hand-written SQL, so the service's
 * figures have something honest to be compared with.
 *   node --import tsx bench/floor-server.ts   (PORT, default 8099; PG* env for the database;
 *   FLOOR_PREPARED=1: reads as named prepared statements; `?floor=one` on a single write: the
 *   one-statement write floor)
 * With DB_CLIENT=sqlite3 (DB_FILENAME) or DB_CLIENT=mysql (DB_HOST, DB_PORT, DB_DATABASE,
 * DB_USER, DB_PASSWORD), the import is the batched floor on that database (the other floors
 * are PostgreSQL's).
 */
import { createServer, type IncomingMessage } from 'node:http';
import type BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { READ_SCENARIOS } from './scenarios.js';
import { importFloor, importFloorBatched, type BatchConnection } from './import-floor.js';
import {
  createArticleInOneStatement,
  createArticles,
  updateArticle,
  updateArticleInOneStatement,
  type ArticleInput,
} from './write-floor.js';

const pool = new pg.Pool({
  database: process.env['BENCH_DB'] ?? 'svc_bench',
  host: process.env['PGHOST'] ?? '127.0.0.1',
  user: process.env['PGUSER'] ?? 'root',
  max: 10,
});
const batched = await batchConnection();
// The JSON is built and serialized by PostgreSQL: the floor only passes text through.
const byPath = new Map(
  READ_SCENARIOS.map((s, i) => [s.path, { name: `floor-read-${i}`, sql: `SELECT (${s.sql})::text AS body` }]),
);
/**
 * FLOOR_PREPARED=1: every read is a named prepared statement, parsed and planned once per
 * connection (the strongest read floor); unnamed otherwise, as the floor always was.
 */
const PREPARED = process.env['FLOOR_PREPARED'] === '1';

const server = createServer((req, res) => {
  const fail = (error: unknown) => res.writeHead(500).end(String(error));
  const [path, search] = (req.url ?? '').split('?');
  const oneStatement = new URLSearchParams(search).get('floor') === 'one';
  if (req.method === 'POST' && path === '/items/articles') {
    readJson(req)
      .then(async (body) => {
        const items = (Array.isArray(body) ? body : [body]) as ArticleInput[];
        // ?floor=one: one item in one prepared statement, no transaction.
        const ids =
          oneStatement && !Array.isArray(body)
            ? [await createArticleInOneStatement(pool, body as ArticleInput)]
            : await createArticles(pool, items);
        res
          .writeHead(200, { 'Content-Type': 'application/json; charset=utf-8' })
          .end(JSON.stringify({ data: Array.isArray(body) ? ids.map((id) => ({ id })) : { id: ids[0] } }));
      })
      .catch(fail);
    return;
  }
  if (req.method === 'POST' && path === '/utils/import/bench_import') {
    (batched === undefined ? importFloor(pool, req) : importFloorBatched(batched, req)).then((rows) => {
      res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8' }).end(JSON.stringify({ rows }));
    }, fail);
    return;
  }
  const update = req.method === 'PATCH' ? /^\/items\/articles\/(\d+)$/.exec(path ?? '') : null;
  if (update?.[1] !== undefined) {
    const id = Number(update[1]);
    readJson(req)
      .then(async (body) => {
        const { title } = body as { title: string };
        await (oneStatement ? updateArticleInOneStatement(pool, id, title) : updateArticle(pool, id, title));
        res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8' }).end(JSON.stringify({ data: { id } }));
      })
      .catch(fail);
    return;
  }
  const read = byPath.get(req.url ?? '');
  if (read === undefined) {
    res.writeHead(404).end();
    return;
  }
  pool.query<{ body: string }>(PREPARED ? { name: read.name, text: read.sql } : read.sql).then((result) => {
    res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8' }).end(result.rows[0]?.body ?? 'null');
  }, fail);
});

/** The connection of the batched import floor, for DB_CLIENT sqlite3 or mysql. */
async function batchConnection(): Promise<BatchConnection | undefined> {
  const env = process.env;
  if (env['DB_CLIENT'] === 'sqlite3') {
    const { default: Database } = await import('better-sqlite3');
    const db = new Database(env['DB_FILENAME'] ?? './data/database.sqlite');
    db.pragma('journal_mode = WAL');
    db.pragma('busy_timeout = 5000');
    const statements = new Map<string, BetterSqlite3.Statement>();
    return {
      run: async (sql, values) => {
        let statement = statements.get(sql);
        if (statement === undefined) statements.set(sql, (statement = db.prepare(sql)));
        if (statement.reader) return statement.all(values) as Record<string, unknown>[];
        statement.run(values);
        return [];
      },
    };
  }
  if (env['DB_CLIENT'] === 'mysql') {
    const mysql = await import('mysql2/promise');
    const connection = await mysql.createConnection({
      host: env['DB_HOST'] ?? '127.0.0.1',
      port: Number(env['DB_PORT'] ?? 3306),
      database: env['DB_DATABASE'] ?? 'svc_bench',
      user: env['DB_USER'] ?? 'root',
      password: env['DB_PASSWORD'] ?? '',
    });
    return {
      run: async (sql, values) => {
        const [rows] =
          values.length === 0 ? await connection.query(sql) : await connection.execute(sql, values as string[]);
        return Array.isArray(rows) ? (rows as Record<string, unknown>[]) : [];
      },
    };
  }
  return undefined;
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

server.listen(Number(process.env['PORT'] ?? 8099), '127.0.0.1');
