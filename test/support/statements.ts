import type { Knex } from 'knex';

/** The SQL of every statement run on `db` while `work` runs, in order (knex's `query` event). */
export async function statementsRunOn(db: Knex, work: () => Promise<unknown>): Promise<string[]> {
  const statements: string[] = [];
  const record = (query: { sql: string }) => statements.push(query.sql);
  db.on('query', record);
  try {
    await work();
  } finally {
    db.off('query', record);
  }
  return statements;
}
