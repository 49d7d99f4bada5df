import type { Knex } from 'knex';
import type { DbClient } from '../../src/db-client.js';
import { databaseDialect } from '../../src/db/dialects/index.js';
import { translateDatabaseError } from '../../src/db/translate-error.js';
import {
  InvalidPayloadError,
  NotNullViolationError,
  RecordNotUniqueError,
  ServiceError,
  ValueOutOfRangeError,
  ValueTooLongError,
} from '../../src/errors.js';
import type { FieldType } from '../overview/types.js';

/** The field a schema change alters or adds, and the type it is to have. */
export interface ChangedField {
  readonly collection: string;
  readonly field: string;
  readonly type: FieldType;
}

/**
 * A database error of a schema change as the error of docs/errors.md, naming the field
 * the change was about (the database errors of DDL often don't): a unique key over
 * duplicates → RECORD_NOT_UNIQUE, NOT NULL over nulls → NOT_NULL_VIOLATION, values too long
 * or out of range for the new column → VALUE_TOO_LONG / VALUE_OUT_OF_RANGE, other values
 * the new type can't take, a default it can't take (checked before: default-values.ts), a
 * column or row larger than the database takes (column-sizes.ts) and keys another table's
 * foreign key needs → INVALID_PAYLOAD.
 * Anything else is returned unchanged (500).
 */
export function translateSchemaError(error: unknown, dialect: DbClient, changed: ChangedField): unknown {
  if (error instanceof ServiceError) return error;
  // Before the generic translation, which calls a row too large a value too large.
  if (typeof error === 'object' && error !== null && databaseDialect(dialect).isColumnSizeError(error)) {
    return tooLarge(changed);
  }
  const ref = { collection: changed.collection, field: changed.field };
  const translated = translateDatabaseError(error, dialect, { collection: changed.collection });
  if (translated instanceof RecordNotUniqueError) return new RecordNotUniqueError(ref);
  if (translated instanceof NotNullViolationError) return new NotNullViolationError(ref);
  if (translated instanceof ValueTooLongError) return new ValueTooLongError(ref);
  if (translated instanceof ValueOutOfRangeError) return new ValueOutOfRangeError(ref);
  if (typeof error !== 'object' || error === null) return translated;
  const database = databaseDialect(dialect);
  if (database.isInvalidDefaultError(error)) return invalidDefault(changed);
  if (database.isConversionError(error)) return conversionError(changed);
  if (database.isDependencyError(error)) return dependencyError(changed);
  // A prefix would make the key unique on the prefix only: refused instead.
  if (database.isUnindexableKeyError(error)) return notIndexable(changed);
  return translated;
}

/** Types no dialect indexes the same way: PostgreSQL's json has no btree operator class. */
const NOT_INDEXABLE: ReadonlySet<FieldType> = new Set(['json', 'alias', 'geometry', 'unknown']);

/** INVALID_PAYLOAD before a unique key or index is made on a field whose type can't have one. */
export function assertIndexable(changed: ChangedField): void {
  if (NOT_INDEXABLE.has(changed.type)) throw notIndexable(changed);
}

function notIndexable({ collection, field, type }: ChangedField): InvalidPayloadError {
  return new InvalidPayloadError(
    `Field "${field}" of collection "${collection}" of type "${type}" can't be unique or indexed`,
  );
}

/** INVALID_PAYLOAD: a stored value can't be converted to the field's new type. */
function conversionError({ collection, field, type }: ChangedField): InvalidPayloadError {
  return new InvalidPayloadError(
    `Field "${field}" of collection "${collection}" can't be altered to "${type}": a stored value can't be converted`,
  );
}

/** INVALID_PAYLOAD: the column, or the table's row with it, is larger than the database takes. */
function tooLarge({ collection, field, type }: ChangedField): InvalidPayloadError {
  return new InvalidPayloadError(
    `Field "${field}" of collection "${collection}" of type "${type}" is larger than the database takes (its length, precision or scale, or the table's row size with it)`,
  );
}

/** INVALID_PAYLOAD: the database refuses the default for the column's type. */
function invalidDefault({ collection, field, type }: ChangedField): InvalidPayloadError {
  return new InvalidPayloadError(
    `The default value of field "${field}" of collection "${collection}" is not a value of type "${type}"`,
  );
}

/** INVALID_PAYLOAD: the change would drop a key that another table's foreign key needs. */
function dependencyError({ collection, field }: ChangedField): InvalidPayloadError {
  return new InvalidPayloadError(
    `Field "${field}" of collection "${collection}" can't be changed so: a foreign key of another table depends on its key`,
  );
}

/** Types whose SQLite column (numeric affinity) keeps a value it can't convert as text. */
const SQLITE_NUMERIC: ReadonlySet<FieldType> = new Set(['integer', 'bigInteger', 'float', 'decimal', 'boolean']);

/**
 * SQLite converts nothing when a column changes type (a text value stays text in an integer
 * column), where PostgreSQL and MySQL refuse: run inside the change, after the new column is
 * in place, it refuses the same values the others do.
 */
export async function assertSqliteConverted(trx: Knex.Transaction, changed: ChangedField): Promise<void> {
  if (!SQLITE_NUMERIC.has(changed.type)) return;
  const unconverted = await trx(changed.collection)
    .whereRaw("typeof(??) in ('text', 'blob')", [changed.field])
    .first<{ one: number } | undefined>(trx.raw('1 as one'));
  if (unconverted !== undefined) throw conversionError(changed);
}

/**
 * VALUE_TOO_LONG when a stored value (as text) is longer than `maxLength`: PostgreSQL's
 * ALTER ... USING (column::varchar(n)) would cut it silently, SQLite would keep it.
 */
export async function assertValuesFit(
  db: Knex,
  dialect: DbClient,
  changed: ChangedField,
  maxLength: number,
): Promise<void> {
  const length = databaseDialect(dialect).textLengthSql;
  const tooLong = await db(changed.collection)
    .whereRaw(`${length} > ?`, [changed.field, maxLength])
    .first<{ one: number } | undefined>(db.raw('1 as one'));
  if (tooLong !== undefined) throw new ValueTooLongError({ collection: changed.collection, field: changed.field });
}
