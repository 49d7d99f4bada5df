/**
 * The import floor: what a CSV import with its audit trail costs at the least, by hand with pg
 * (bench/floor-server.ts serves it at POST /utils/import/bench_import). The uploaded file goes
 * straight into a COPY ... CSV of a temporary table (Node parses nothing), then three set-based
 * statements write the rows, one svc_activity row per row and one svc_revisions row per row
 * (snapshot = delta: the row as JSON), all in one transaction. No permission, validation or
 * type check: everything the service does beyond this is what its figure is compared with.
 */
import busboy from 'busboy';
import { parse } from 'csv-parse';
import type { IncomingMessage } from 'node:http';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';

const COLLECTION = 'bench_import';
const COLUMNS = 'title, status, views, rating, body';

/** Imports the CSV file of the multipart request `req` into bench_import; the rows written. */
export async function importFloor(pool: pg.Pool, req: IncomingMessage): Promise<number> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query(
      `CREATE TEMP TABLE floor_rows ON COMMIT DROP AS SELECT ${COLUMNS} FROM ${COLLECTION} WITH NO DATA`,
    );
    await new Promise<void>((resolve, reject) => {
      const form = busboy({ headers: req.headers });
      form.on('file', (_name, file) => {
        const copy = client.query(copyFrom(`COPY floor_rows (${COLUMNS}) FROM STDIN (FORMAT csv, HEADER true)`));
        pipeline(file, copy).then(resolve, reject);
      });
      form.on('error', reject);
      req.pipe(form);
    });
    const written = await client.query(
      `WITH written AS (
         INSERT INTO ${COLLECTION} (${COLUMNS}) SELECT ${COLUMNS} FROM floor_rows RETURNING *
       ), logged AS (
         INSERT INTO svc_activity (action, collection, item, ip, user_agent, origin)
         SELECT 'create', '${COLLECTION}', id::text, '127.0.0.1', 'bench', 'http://127.0.0.1' FROM written
         RETURNING id, item
       )
       INSERT INTO svc_revisions (activity, collection, item, data, delta)
       SELECT logged.id, '${COLLECTION}', logged.item, row_to_json(written), row_to_json(written)
       FROM logged JOIN written ON written.id::text = logged.item`,
    );
    await client.query('COMMIT');
    return written.rowCount ?? 0;
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  } finally {
    client.release();
  }
}

/**
 * A database the batched floor writes to: one connection, statements with bound values, the
 * rows a RETURNING answers (MariaDB 10.5+ and SQLite both have it).
 */
export interface BatchConnection {
  run(sql: string, values: readonly unknown[]): Promise<Record<string, unknown>[]>;
}

const BATCH_ROWS = 2_000;
const FIELDS = COLUMNS.split(', ');

/**
 * The floor of MariaDB and SQLite, which have no COPY: what their import costs at the least by
 * hand, as the issue asks of them (multi-row INSERTs in batches). The file is parsed by
 * csv-parse into arrays, and every 2,000 rows three multi-row INSERTs write the rows (keys by
 * RETURNING), their svc_activity rows (ids by RETURNING) and their svc_revisions rows
 * (snapshot = delta: the row as JSON), all in one transaction. No check of any kind.
 */
export async function importFloorBatched(db: BatchConnection, req: IncomingMessage): Promise<number> {
  await db.run('BEGIN', []);
  try {
    let written = 0;
    for await (const batch of batchesOfFile(req)) {
      const keys = await db.run(insertSql(COLLECTION, FIELDS, batch.length, 'id'), batch.flat());
      const ids = keys.map((row) => Number(row['id']));
      const logged = await db.run(
        insertSql('svc_activity', ['action', 'collection', 'item', 'ip', 'user_agent', 'origin'], ids.length, 'id'),
        ids.flatMap((id) => ['create', COLLECTION, String(id), '127.0.0.1', 'bench', 'http://127.0.0.1']),
      );
      const revisions = batch.flatMap((row, i) => {
        const snapshot = JSON.stringify({ id: ids[i], ...Object.fromEntries(FIELDS.map((f, c) => [f, row[c]])) });
        return [logged[i]?.['id'], COLLECTION, String(ids[i]), snapshot, snapshot];
      });
      await db.run(
        insertSql('svc_revisions', ['activity', 'collection', 'item', 'data', 'delta'], batch.length),
        revisions,
      );
      written += batch.length;
    }
    await db.run('COMMIT', []);
    return written;
  } catch (error) {
    await db.run('ROLLBACK', []);
    throw error;
  }
}

/** The uploaded CSV's rows as arrays of strings, BATCH_ROWS at a time. */
async function* batchesOfFile(req: IncomingMessage): AsyncGenerator<string[][]> {
  const parser = parse({ from_line: 2 });
  const form = busboy({ headers: req.headers });
  form.on(
    'file',
    (_name, file) => void pipeline(file, parser).catch((error: unknown) => parser.destroy(error as Error)),
  );
  form.on('error', (error: Error) => parser.destroy(error));
  req.pipe(form);
  let batch: string[][] = [];
  for await (const row of parser) {
    batch.push(row as string[]);
    if (batch.length === BATCH_ROWS) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

function insertSql(table: string, columns: readonly string[], rows: number, returning?: string): string {
  const row = `(${columns.map(() => '?').join(', ')})`;
  const list = Array.from({ length: rows }, () => row).join(', ');
  return `INSERT INTO ${table} (${columns.join(', ')}) VALUES ${list}${returning === undefined ? '' : ` RETURNING ${returning}`}`;
}
