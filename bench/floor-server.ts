/**
 * The floor: a bare node:http + pg server answering the read scenarios, the writes of
 * write-floor.ts and the CSV import of import-floor.ts with hand-written SQL, so the service's
 * figures have something honest to be compared with.
 *   node --import tsx bench/floor-server.ts   (PORT, default 8099; PG* env for the database)
 */
import { createServer, type IncomingMessage } from 'node:http';
import pg from 'pg';
import { READ_SCENARIOS } from './scenarios.js';
import { importFloor } from './import-floor.js';
import { createArticles, updateArticle, type ArticleInput } from './write-floor.js';

const pool = new pg.Pool({
  database: process.env['BENCH_DB'] ?? 'svc_bench',
  host: process.env['PGHOST'] ?? '127.0.0.1',
  user: process.env['PGUSER'] ?? 'root',
  max: 10,
});
// The JSON is built and serialized by PostgreSQL: the floor only passes text through.
const byPath = new Map(READ_SCENARIOS.map((s) => [s.path, `SELECT (${s.sql})::text AS body`]));

const server = createServer((req, res) => {
  const fail = (error: unknown) => res.writeHead(500).end(String(error));
  const path = (req.url ?? '').split('?')[0];
  if (req.method === 'POST' && path === '/items/articles') {
    readJson(req)
      .then(async (body) => {
        const items = (Array.isArray(body) ? body : [body]) as ArticleInput[];
        const ids = await createArticles(pool, items);
        res
          .writeHead(200, { 'Content-Type': 'application/json; charset=utf-8' })
          .end(JSON.stringify({ data: Array.isArray(body) ? ids.map((id) => ({ id })) : { id: ids[0] } }));
      })
      .catch(fail);
    return;
  }
  if (req.method === 'POST' && path === '/utils/import/bench_import') {
    importFloor(pool, req).then((rows) => {
      res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8' }).end(JSON.stringify({ rows }));
    }, fail);
    return;
  }
  const update = req.method === 'PATCH' ? /^\/items\/articles\/(\d+)$/.exec(path ?? '') : null;
  if (update?.[1] !== undefined) {
    const id = Number(update[1]);
    readJson(req)
      .then(async (body) => {
        await updateArticle(pool, id, (body as { title: string }).title);
        res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8' }).end(JSON.stringify({ data: { id } }));
      })
      .catch(fail);
    return;
  }
  const sql = byPath.get(req.url ?? '');
  if (sql === undefined) {
    res.writeHead(404).end();
    return;
  }
  pool.query<{ body: string }>(sql).then((result) => {
    res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8' }).end(result.rows[0]?.body ?? 'null');
  }, fail);
});

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

server.listen(Number(process.env['PORT'] ?? 8099), '127.0.0.1');
