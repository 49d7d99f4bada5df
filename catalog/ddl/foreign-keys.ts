import type { Knex } from 'knex';
import { InvalidPayloadError, ServiceError } from '../../src/errors.js';
import type { SchemaChange } from './schema-change.js';
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

/** Adds the FK constraint; a refusal by the database (types, existing rows) names the relation. */
export async function addForeignKey(change: SchemaChange, key: ForeignKey): Promise<void> {
  const name = key.constraintName ?? constraintName(key.collection, key.field, 'foreign');
  try {
    await change.ddl(
      (db) =>
        db.schema.alterTable(key.collection, (t) => {
          t.foreign(key.field, name)
            .references(key.foreignColumn)
            .inTable(key.relatedCollection)
            .onDelete(key.onDelete);
        }),
      (db) => dropConstraint(db, { ...key, constraintName: name }),
    );
  } catch (error) {
    if (error instanceof ServiceError) throw error;
    throw new InvalidPayloadError(
      `Field "${key.field}" of collection "${key.collection}" can't reference "${key.relatedCollection}.${key.foreignColumn}": ${(error as Error).message}`,
    );
  }
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
