import {
  InvalidForeignKeyError,
  NotNullViolationError,
  RecordNotUniqueError,
  ValueOutOfRangeError,
  ValueTooLongError,
  type ServiceError,
} from '../../../errors.js';
import { standard } from '../standard.js';
import type { BadInput, Dialect, DriverError, NumberTarget, StatementTarget } from '../types.js';
import { introspectPostgres } from './introspect.js';
import { postgresRead } from './read.js';

/** SQLSTATEs of class 22 (data exception) and 54 (program limit) by what they mean. */
const BAD_INPUT: Readonly<Record<string, BadInput>> = {
  '22003': 'out of range', // numeric_value_out_of_range
  '22008': 'out of range', // datetime_field_overflow
  '22P02': 'wrong form', // invalid_text_representation (also a lone surrogate in json)
  '22007': 'wrong form', // invalid_datetime_format
  '22023': 'wrong form', // invalid_parameter_value
  '2201B': 'wrong form', // invalid_regular_expression
  '22025': 'wrong form', // invalid_escape_sequence
  '22019': 'wrong form', // invalid_escape_character
  '22021': 'unstorable text', // character_not_in_repertoire: NUL in text
  '22P05': 'unstorable text', // untranslatable_character: \u0000 in json
  '54000': 'too large', // program_limit_exceeded: an index row or a value too big
  '54001': 'too large', // statement_too_complex
};

/**
 * cannot_coerce: no cast from the column's type to the new one (`cannot cast type json to
 * integer`), whatever the rows hold; SQLite and MariaDB convert such values or refuse them.
 */
const CANNOT_COERCE = '42846';

/** dependent_objects_still_exist: a key another table's foreign key needs. */
const DEPENDENT_OBJECTS_STILL_EXIST = '2BP01';

/**
 * PostgreSQL, by SQLSTATE: transactional DDL, RETURNING in row order, sequences to move, COPY,
 * typed JSON built in the statement (read.ts), and the catalogue read from pg_catalog.
 */
export const postgres: Dialect = {
  ...standard,
  ...postgresRead,
  client: 'pg',
  engine: 'PostgreSQL',
  vendor: 'postgres',
  rawRows: (result) => (result as { rows: Record<string, unknown>[] }).rows,
  constraintError,
  badInput: ({ code }) => (typeof code === 'string' ? BAD_INPUT[code] : undefined),
  refusesNul: true,
  returnsStoredKeys: true,
  insertsRecordset: true,
  sequencesLagGivenKeys: true,
  copiesRows: true,
  updatesRowsBy: 'copy',
  keepsForeignKeyPlans: true,
  async withMigrationLock(trx, lock, run) {
    await trx.raw('SELECT pg_advisory_xact_lock(?)', [lock.key]);
    return run();
  },
  dateTimeColumn: (table, name) => table.timestamp(name, { useTz: false }),
  textLengthSql: 'length(cast(?? as text))',
  numberSql: (to) => `cast(?? as ${postgresNumberType(to)})`,
  // SQLSTATE class 22, data exception: invalid text representation, datetime format, ...;
  // and a type the column's can't be cast to at all. Sizes are checked before
  // (catalog/ddl/column-sizes.ts), within what PostgreSQL takes.
  isConversionError: ({ code }) => typeof code === 'string' && (code.startsWith('22') || code === CANNOT_COERCE),
  isDependencyError: ({ code }) => code === DEPENDENT_OBJECTS_STILL_EXIST,
  // undefined_table, undefined_column.
  isMissingSchemaObject: ({ code }) => code === '42P01' || code === '42703',
  defaultPort: 5432,
  takesConnectionString: true,
  createCommand(db) {
    const port = db.port === undefined ? '' : ` -p ${db.port}`;
    const user = db.user === undefined ? '' : ` -U ${db.user}`;
    return `\`createdb -h ${db.host ?? '127.0.0.1'}${port}${user} ${db.database ?? 'svc'}\``;
  },
  introspect: introspectPostgres,
};

function constraintError(error: DriverError, target: StatementTarget): ServiceError | undefined {
  const collection = typeof error.table === 'string' ? error.table : target.collection;
  const detail = typeof error.detail === 'string' ? error.detail : '';
  // detail: `Key (slug)=(a) already exists.` / `Key (author)=(5) is not present in table "users".`
  const keyColumn = /^Key \(([^,)]+)\)=/.exec(detail)?.[1]?.replace(/^"|"$/g, '') ?? null;
  switch (error.code) {
    case '23505':
      return new RecordNotUniqueError({ collection, field: keyColumn });
    case '23502':
      return new NotNullViolationError({ collection, field: typeof error.column === 'string' ? error.column : null });
    case '23503':
      // Deleting a still referenced row names the referenced key, not a column of `collection`.
      return /is still referenced/.test(detail)
        ? new InvalidForeignKeyError({ collection: target.collection, field: null })
        : new InvalidForeignKeyError({ collection, field: keyColumn });
    case '22001':
      return new ValueTooLongError({ collection: target.collection, field: null });
    case '22003':
      return new ValueOutOfRangeError({ collection: target.collection, field: null });
    default:
      return undefined;
  }
}

/** The type an ALTER ... USING (column::type) converts to (knex's spelling of each column type). */
function postgresNumberType(to: NumberTarget): string {
  switch (to.type) {
    case 'integer':
      return 'integer';
    case 'bigInteger':
      return 'bigint';
    case 'float':
      return 'real';
    case 'decimal':
      return `numeric(${to.precision}, ${to.scale})`;
    case 'exact':
      return 'numeric';
  }
}
