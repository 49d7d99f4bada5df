import type { Knex } from 'knex';
import type { DbClient } from '../db-client.js';
import { InvalidForeignKeyError } from '../errors.js';
import { databaseDialect } from './dialects/index.js';
import { translateDatabaseError, type StatementTarget } from './translate-error.js';

/** A foreign key column of the table written: the table and column its values must name. */
interface ForeignKeyColumn {
  readonly table: string;
  readonly column: string;
}

/** What a write statement writes to, and (SQLite) its foreign keys, to name a broken one. */
export interface WriteTarget extends StatementTarget {
  /** Field → the row it points at; only read when SQLite reports a foreign key failure. */
  readonly foreignKeys?: (field: string) => ForeignKeyColumn | undefined;
}

/**
 * Runs a write statement of `rows`; a constraint violation or a refused value becomes the
 * service's error (translate-error.ts). SQLite does not name the failing foreign key: the
 * rows' foreign key values are looked up until the one that points nowhere is found.
 */
export async function runWriteStatement<T>(
  trx: Knex.Transaction,
  dialect: DbClient,
  target: WriteTarget,
  rows: readonly Record<string, unknown>[],
  run: () => Promise<T>,
): Promise<T> {
  try {
    return await run();
  } catch (error) {
    const translated = translateDatabaseError(error, dialect, target);
    if (
      translated instanceof InvalidForeignKeyError &&
      translated.extensions.field === null &&
      !databaseDialect(dialect).namesFailingForeignKey
    ) {
      for (const row of rows) {
        const field = await brokenForeignKey(trx, target, row);
        if (field !== undefined) throw new InvalidForeignKeyError({ collection: target.collection, field });
      }
    }
    throw translated;
  }
}

async function brokenForeignKey(
  trx: Knex.Transaction,
  target: WriteTarget,
  row: Record<string, unknown>,
): Promise<string | undefined> {
  for (const [name, value] of Object.entries(row)) {
    if (value === null || value === undefined) continue;
    const foreign = target.foreignKeys?.(name);
    if (foreign === undefined) continue;
    const found = await trx(foreign.table)
      .where(foreign.column, value as string | number)
      .first<Record<string, unknown> | undefined>(foreign.column);
    if (found === undefined) return name;
  }
  return undefined;
}
