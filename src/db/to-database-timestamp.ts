import type { DbClient } from '../db-client.js';
import { databaseDialect } from './dialects/index.js';

/**
 * A moment as the database stores it: PostgreSQL and MySQL take a Date (the MySQL
 * connection talks UTC); SQLite, which has no date type, UTC text `YYYY-MM-DD HH:MM:SS.SSS`,
 * the form of its CURRENT_TIMESTAMP, so text order is time order and the read side's
 * filters compare against it.
 */
export function toDatabaseTimestamp(date: Date, dialect: DbClient): Date | string {
  return databaseDialect(dialect).timestampValue(date);
}
