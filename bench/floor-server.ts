/**
 * The floor: a bare node:http + pg server answering the read scenarios with hand-written SQL,
 * so the service's figures have something honest to be compared with.
 *   node --import tsx bench/floor-server.ts   (PORT, default 8099; PG* env for the database)
 */
import { createServer } from 'node:http';
import pg from 'pg';
import { READ_SCENARIOS } from './scenarios.js';

const pool = new pg.Pool({
  database: process.env['BENCH_DB'] ?? 'svc_bench',
  host: process.env['PGHOST'] ?? '127.0.0.1',
  user: process.env['PGUSER'] ?? 'root',
  max: 10,
});
// The JSON is built and serialized by PostgreSQL: the floor only passes text through.
const byPath = new Map(READ_SCENARIOS.map((s) => [s.path, `SELECT (${s.sql})::text AS body`]));

const server = createServer((req, res) => {
  const sql = byPath.get(req.url ?? '');
  if (sql === undefined) {
    res.writeHead(404).end();
    return;
  }
  pool.query<{ body: string }>(sql).then(
    (result) => {
      res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8' }).end(result.rows[0]?.body ?? 'null');
    },
    (error: unknown) => {
      res.writeHead(500).end(String(error));
    },
  );
});

server.listen(Number(process.env['PORT'] ?? 8099), '127.0.0.1');
