import type { Knex } from 'knex';
import type { DbClient } from '../../src/db-client.js';
import { dialectOf } from '../../src/db/index.js';
import { isDatabaseError, translateDatabaseError } from '../../src/db/translate-error.js';
import { InvalidForeignKeyError, InvalidPayloadError, ServiceError } from '../../src/errors.js';
import { danglingRowsError, type SchemaChange } from './schema-change.js';
import { constraintName } from './names.js';

export interface ForeignKey {
  readonly collection: string;
  readonly field: string;
  readonly relatedCollection: string;
  readonly foreignColumn: string;
  readonly onDelete: string;
  /** Null where the dialect has no names (SQLite) or the key is to be created. */
  readonly constraintName: string | null;
}

/**
 * Adds the FK constraint; a refusal by the database names the relation, never its statement or
 * the driver's words: rows referring to missing rows as SQLite's check says it (schema-change.ts),
 * anything else (columns of different types) as a foreign key the database refuses.
 */
export async function addForeignKey(change: SchemaChange, key: ForeignKey): Promise<void> {
  const name = key.constraintName ?? constraintName(key.collection, key.field, 'foreign');
  let dialect: DbClient | undefined;
  try {
    await change.ddl(
      (db) => {
        dialect = dialectOf(db);
        return db.schema.alterTable(key.collection, (t) => {
          t.foreign(key.field, name)
            .references(key.foreignColumn)
            .inTable(key.relatedCollection)
            .onDelete(key.onDelete);
        });
      },
      (db) => dropConstraint(db, { ...key, constraintName: name }),
    );
  } catch (error) {
    if (error instanceof ServiceError) throw error;
    const translated =
      dialect === undefined ? undefined : translateDatabaseError(error, dialect, { collection: key.collection });
    if (translated instanceof InvalidForeignKeyError) throw danglingRowsError(key.collection, key.relatedCollection);
    throw new InvalidPayloadError(
      `Field "${key.field}" of collection "${key.collection}" can't reference "${key.relatedCollection}.${key.foreignColumn}": the database refuses the foreign key (do the two fields have the same type?)`,
    );
  }
}

/** The columns a new foreign key joins. */
export type ForeignKeyColumns = Pick<ForeignKey, 'collection' | 'field' | 'relatedCollection' | 'foreignColumn'>;

/**
 * Refuses a foreign key the stored rows would break (a value naming no row of the related
 * table) before anything changes, with the words every database then gives. Run before the
 * schema change (or before a step drops the relation the key replaces: schema apply on SQLite
 * and MariaDB keeps the steps before a failing one). A comparison the database can't make
 * (columns of different types) is left to the foreign key's own refusal.
 */
export async function assertReferencesExist(db: Knex, key: ForeignKeyColumns): Promise<void> {
  const [from, to] = [`m.${key.field}`, `r.${key.foreignColumn}`];
  let dangling: unknown;
  try {
    // In a savepoint: a failed statement aborts PostgreSQL's transaction (schema apply runs in one).
    dangling = await db.transaction((trx) =>
      trx({ m: key.collection })
        .leftJoin({ r: key.relatedCollection }, from, to)
        .whereNotNull(from)
        .whereNull(to)
        .first(trx.raw('1 as one')),
    );
  } catch (error) {
    if (isDatabaseError(error)) return;
    throw error;
  }
  if (dangling !== undefined) throw danglingRowsError(key.collection, key.relatedCollection);
}

/** Drops the FK constraint (knex rebuilds the table on SQLite); undone by adding it back. */
export async function dropForeignKey(change: SchemaChange, key: ForeignKey): Promise<void> {
  await change.ddl(
    (db) => dropConstraint(db, key),
    (db) =>
      db.schema.alterTable(key.collection, (t) => {
        t.foreign(key.field, key.constraintName ?? undefined)
          .references(key.foreignColumn)
          .inTable(key.relatedCollection)
          .onDelete(key.onDelete);
      }),
  );
}

function dropConstraint(db: Knex, key: ForeignKey): Promise<void> {
  return db.schema.alterTable(key.collection, (t) => {
    t.dropForeign([key.field], key.constraintName ?? undefined);
  });
}
