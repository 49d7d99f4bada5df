import type { Knex } from 'knex';

/**
 * A table of `rows` generated rows (id, title, views, published, created_at, body), vacuumed
 * and analyzed so the first measured read does not set hint bits: what the export and
 * `limit=-1` benchmarks stream.
 */
export async function createGeneratedRows(db: Knex, table: string, rows: number): Promise<void> {
  await db.schema.createTable(table, (t) => {
    t.increments('id');
    t.string('title', 255);
    t.integer('views');
    t.boolean('published');
    t.timestamp('created_at', { useTz: true });
    t.text('body');
  });
  await db.raw(
    `insert into ?? (title, views, published, created_at, body)
     select 'Row ' || g, g % 1000, g % 2 = 0, timestamp '2026-01-01' + g * interval '1 second', repeat('x', 40) || ' "quoted" ' || g
     from generate_series(1, ?) g`,
    [table, rows],
  );
  await db.raw('VACUUM ANALYZE ??', [table]);
}
