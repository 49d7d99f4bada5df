/**
 * A scratch PostgreSQL database of N collections for the schema benchmarks: 10 columns each
 * (serial key, varchar with default, text, numeric(10,2), boolean, jsonb, timestamptz default
 * now(), a unique uuid and a foreign key to the previous table), a svc_collections row, 10
 * svc_fields rows and a svc_relations row per table. With `reverse`, every relation also gets
 * its one-to-many alias (`children`) on the previous table. Dropped after `work`.
 */
import knex from 'knex';
import type { Knex } from 'knex';
import { migrate } from '../catalog/migrate.js';
import { createDatabase } from '../src/db/index.js';

export interface ScratchOptions {
  readonly collections: number;
  readonly reverse?: boolean;
}

export async function withScratchSchema(options: ScratchOptions, work: (db: Knex) => Promise<void>): Promise<void> {
  const connection = {
    host: process.env['PGHOST'] ?? '127.0.0.1',
    port: Number(process.env['PGPORT'] ?? 5432),
    user: process.env['PGUSER'] ?? 'root',
    password: process.env['PGPASSWORD'] ?? '',
  };
  const database = `bench_schema_${process.pid}`;
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
    connectWaitMs: 0,
  });
  try {
    await migrate(db);
    await createTables(db, options);
    await work(db);
  } finally {
    await db.destroy();
    await admin.raw('DROP DATABASE IF EXISTS ?? WITH (FORCE)', [database]);
    await admin.destroy();
  }
}

async function createTables(db: Knex, { collections, reverse = false }: ScratchOptions): Promise<void> {
  await db.transaction(async (trx) => {
    for (let i = 0; i < collections; i += 1) {
      const name = `bench_c${i}`;
      const ref = i === 0 ? 'integer' : `integer REFERENCES bench_c${i - 1} (id) ON DELETE SET NULL`;
      await trx.raw(
        `CREATE TABLE ${name} (id serial PRIMARY KEY, title varchar(255) NOT NULL DEFAULT 'untitled', body text, ` +
          `status varchar(20) DEFAULT 'draft', price numeric(10,2), active boolean DEFAULT true, data jsonb, ` +
          `created_at timestamptz DEFAULT now(), ref ${ref}, code uuid UNIQUE)`,
      );
    }
    const names = Array.from({ length: collections }, (_, i) => `bench_c${i}`);
    await trx.batchInsert(
      'svc_collections',
      names.map((collection) => ({ collection, icon: 'box' })),
      500,
    );
    const fields = ['id', 'title', 'body', 'status', 'price', 'active', 'data', 'created_at', 'ref', 'code'];
    const fieldRows = names.flatMap((collection) =>
      fields.map((field, sort) => ({
        collection,
        field,
        sort,
        interface: 'input',
        special: field === 'ref' ? 'm2o' : null,
      })),
    );
    if (reverse) {
      fieldRows.push(
        ...names
          .slice(0, -1)
          .map((collection) => ({ collection, field: 'children', sort: 10, interface: 'list-o2m', special: 'o2m' })),
      );
    }
    await trx.batchInsert('svc_fields', fieldRows, 1000);
    const relationRows = names.slice(1).map((collection, i) => ({
      many_collection: collection,
      many_field: 'ref',
      one_collection: `bench_c${i}`,
      ...(reverse ? { one_field: 'children' } : {}),
    }));
    await trx.batchInsert('svc_relations', relationRows, 500);
  });
}
