/**
 * The import floor: what a CSV import with its audit trail costs at the least, by hand with pg
 * (bench/floor-server.ts serves it at POST /utils/import/bench_import). The uploaded file goes
 * straight into a COPY ... CSV of a temporary table (Node parses nothing), then three set-based
 * statements write the rows, one svc_activity row per row and one svc_revisions row per row
 * (snapshot = delta: the row as JSON), all in one transaction. No permission, validation or
 * type check: everything the service does beyond this is what its figure is compared with.
 */
import busboy from 'busboy';
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
