// The database engines the service runs on: read by config (DB_CLIENT) and used by db, the query
// compiler, the write side and the catalogue to choose per-engine behaviour. A leaf, like errors.ts.
export const DB_CLIENTS = ['sqlite3', 'pg', 'mysql'] as const;
export type DbClient = (typeof DB_CLIENTS)[number];
