/**
 * Times buildOverview on a PostgreSQL database of 500 collections (issue #3: under a second).
 *   npx tsx bench/overview-500.ts            (PG at 127.0.0.1:5432 as root; PG* variables override)
 * Creates a scratch database, 500 tables of 10 columns (every one with a unique key and a
 * foreign key to the previous table) plus svc_collections / svc_fields / svc_relations rows
 * for each, builds the overview RUNS times, prints the timings and drops the database.
 */
import knex from 'knex';
import { migrate } from '../catalog/migrate.js';
import { buildOverview } from '../catalog/overview/build.js';
import { createDatabase } from '../src/db/index.js';

const COLLECTIONS = Number(process.env['COLLECTIONS'] ?? 500);
const RUNS = Number(process.env['RUNS'] ?? 10);
const connection = {
  host: process.env['PGHOST'] ?? '127.0.0.1',
  port: Number(process.env['PGPORT'] ?? 5432),
  user: process.env['PGUSER'] ?? 'root',
  password: process.env['PGPASSWORD'] ?? '',
};
const database = `bench_overview_${process.pid}`;

const admin = knex({ client: 'pg', connection: { ...connection, database: 'postgres' }, pool: { min: 0, max: 1 } });
await admin.raw('CREATE DATABASE ??', [database]);
const db = createDatabase({
  client: 'pg',
  filename: '',
  host: connection.host,
  port: connection.port,
  database,
  user: connection.user,
  password: connection.password,
  connectionString: undefined,
  searchPath: ['public'],
  pool: { min: undefined, max: undefined },
  excludeTables: [],
  healthcheckThresholdMs: 150,
});

try {
  await migrate(db);
  await db.transaction(async (trx) => {
    for (let i = 0; i < COLLECTIONS; i += 1) {
      const name = `bench_c${i}`;
      const ref = i === 0 ? 'integer' : `integer REFERENCES bench_c${i - 1} (id) ON DELETE SET NULL`;
      await trx.raw(
        `CREATE TABLE ${name} (id serial PRIMARY KEY, title varchar(255) NOT NULL DEFAULT 'untitled', body text, ` +
          `status varchar(20) DEFAULT 'draft', price numeric(10,2), active boolean DEFAULT true, data jsonb, ` +
          `created_at timestamptz DEFAULT now(), ref ${ref}, code uuid UNIQUE)`,
      );
    }
    const names = Array.from({ length: COLLECTIONS }, (_, i) => `bench_c${i}`);
    await trx.batchInsert('svc_collections', names.map((collection) => ({ collection, icon: 'box' })), 500);
    const fields = ['id', 'title', 'body', 'status', 'price', 'active', 'data', 'created_at', 'ref', 'code'];
    const fieldRows = names.flatMap((collection) =>
      fields.map((field, sort) => ({ collection, field, sort, interface: 'input', special: field === 'ref' ? 'm2o' : null })),
    );
    await trx.batchInsert('svc_fields', fieldRows, 1000);
    const relationRows = names.slice(1).map((collection, i) => ({
      many_collection: collection,
      many_field: 'ref',
      one_collection: `bench_c${i}`,
    }));
    await trx.batchInsert('svc_relations', relationRows, 500);
  });

  const timings: number[] = [];
  let collections = 0;
  let relations = 0;
  for (let run = 0; run <= RUNS; run += 1) {
    const started = performance.now();
    const overview = await buildOverview(db, { version: run });
    const elapsed = performance.now() - started;
    if (run > 0) timings.push(elapsed); // run 0 warms the pool and the catalog caches
    collections = Object.keys(overview.collections).length;
    relations = overview.relations.length;
  }
  timings.sort((a, b) => a - b);
  const at = (q: number) => timings[Math.min(timings.length - 1, Math.floor(q * timings.length))]?.toFixed(0);
  console.log(
    `buildOverview: ${collections} collections (${COLLECTIONS} user + system), ${relations} relations, ` +
      `${RUNS} runs: min ${at(0)} ms, median ${at(0.5)} ms, max ${at(1)} ms`,
  );
} finally {
  await db.destroy();
  await admin.raw('DROP DATABASE IF EXISTS ?? WITH (FORCE)', [database]);
  await admin.destroy();
}
