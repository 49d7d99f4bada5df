import type { Knex } from 'knex';
import type { DbClient } from '../../src/db-client.js';
import { databaseDialect, type NumberTarget } from '../../src/db/dialects/index.js';
import { InvalidPayloadError, ValueOutOfRangeError } from '../../src/errors.js';
import type { FieldType } from '../overview/types.js';
import { FLOAT32_MAX, FLOAT32_MIN } from '../overview/value-forms.js';

/** A column's type as far as its values' conversion goes. */
export interface NumberColumn {
  readonly type: FieldType;
  readonly precision: number | null;
  readonly scale: number | null;
}

/** Where the value is: the changed field. */
interface ChangedColumn {
  readonly collection: string;
  readonly field: string;
}

/** A stored value the change would alter, and what it would become. */
export interface ChangedValue {
  readonly value: string;
  readonly converted: string;
}

const NUMBER_TYPES: ReadonlySet<FieldType> = new Set(['integer', 'bigInteger', 'float', 'decimal']);
const TEXT_TYPES: ReadonlySet<FieldType> = new Set(['string', 'text']);
const INTEGER_TYPES: ReadonlySet<FieldType> = new Set(['integer', 'bigInteger']);

/** knex's decimal(10, 5) when a definition gives no precision or scale (columns.ts). */
const DEFAULT_PRECISION = 10;
const DEFAULT_SCALE = 5;

/** The number a column type converts to; undefined for a type whose values aren't numbers. */
function targetOf(column: NumberColumn): NumberTarget | undefined {
  switch (column.type) {
    case 'integer':
    case 'bigInteger':
    case 'float':
      return { type: column.type };
    case 'decimal':
      return {
        type: 'decimal',
        precision: column.precision ?? DEFAULT_PRECISION,
        scale: column.scale ?? DEFAULT_SCALE,
      };
    default:
      return undefined;
  }
}

/**
 * A change from number or text to a number type whose stored values the database converts:
 * a new type, precision or scale; or from an integer to a boolean (0 and 1 stay, any other
 * number becomes true). Other changes convert no number (or none the database would take:
 * its own refusal stands).
 */
export function convertsNumbers(before: NumberColumn, after: NumberColumn): boolean {
  if (after.type === 'boolean') return INTEGER_TYPES.has(before.type);
  if (!NUMBER_TYPES.has(after.type) || !(NUMBER_TYPES.has(before.type) || TEXT_TYPES.has(before.type))) return false;
  if (before.type !== after.type) return true;
  return after.type === 'decimal' && (before.precision !== after.precision || before.scale !== after.scale);
}

/** SQL of `inner` converted to `to`: the dialect's conversion with the column (`??`) replaced. */
function convert(dialect: DbClient, to: NumberTarget, fromFloat: boolean, inner = '??'): string {
  return databaseDialect(dialect).numberSql(to, fromFloat).replaceAll('??', `(${inner})`);
}

/** The raw SQL with its column bindings: every `??` is the field. */
function raw(sql: string, field: string): [string, string[]] {
  return [sql, Array.from({ length: sql.split('??').length - 1 }, () => field)];
}

/**
 * The first stored value the new type would store as another value: a fraction an integer
 * drops, digits a decimal's scale rounds away, a float's digits a decimal or a float loses,
 * an integer other than 0 and 1 a boolean makes true. Compared as the old type (text: as an
 * exact number) after the round trip, so a float 0.1 that a decimal(10, 5) keeps as 0.10000
 * is no change. Text to float is not checked (a float is approximate), nor are values the
 * database can't convert at all (its refusal, or assertNumbersConvert's).
 */
export async function findChangedValue(
  db: Knex,
  dialect: DbClient,
  changed: ChangedColumn,
  before: NumberColumn,
  after: NumberColumn,
): Promise<ChangedValue | undefined> {
  if (after.type === 'boolean') {
    if (!convertsNumbers(before, after)) return undefined;
    const row = await db(changed.collection)
      .select(db.raw('?? as value', [changed.field]))
      .whereNotIn(changed.field, [0, 1])
      .first<{ value: unknown } | undefined>();
    return row === undefined ? undefined : { value: shown(row.value), converted: 'true' };
  }
  const to = targetOf(after);
  if (to === undefined || !convertsNumbers(before, after)) return undefined;
  const fromText = TEXT_TYPES.has(before.type);
  if (fromText && to.type === 'float') return undefined;
  const back: NumberTarget = (fromText ? undefined : targetOf(before)) ?? { type: 'exact' };
  const fromFloat = before.type === 'float';
  const converted = convert(dialect, to, fromFloat);
  const original = convert(dialect, back, fromFloat);
  const roundTrip = convert(dialect, back, to.type === 'float', converted);
  const [where, whereBindings] = raw(`${roundTrip} <> ${original}`, changed.field);
  const [select, selectBindings] = raw(`${converted} as converted`, changed.field);
  const row = await db(changed.collection)
    .select(db.raw('?? as value', [changed.field]), db.raw(select, selectBindings))
    .whereNotNull(changed.field)
    .whereRaw(where, whereBindings)
    .first<{ value: unknown; converted: unknown } | undefined>();
  return row === undefined ? undefined : { value: shown(row.value), converted: shown(row.converted) };
}

function shown(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * Refusals every database makes the same, checked before the change: text with a fraction
 * to an integer (PostgreSQL and MariaDB can't convert '12.5' to integer; SQLite would keep
 * 12.5), a value a decimal's precision can't hold after rounding (VALUE_OUT_OF_RANGE:
 * PostgreSQL and MariaDB refuse the ALTER, SQLite would keep the value), text to a float:
 * NaN and Infinity (PostgreSQL reads them, and they read back as null; MariaDB and SQLite
 * refuse them) and numbers a 4-byte float can't hold (VALUE_OUT_OF_RANGE: PostgreSQL and
 * MariaDB refuse them, SQLite would keep them).
 */
export async function assertNumbersConvert(
  db: Knex,
  dialect: DbClient,
  changed: ChangedColumn,
  before: NumberColumn,
  after: NumberColumn,
): Promise<void> {
  const to = targetOf(after);
  if (to === undefined || !convertsNumbers(before, after)) return;
  const fromText = TEXT_TYPES.has(before.type);
  const exact = convert(dialect, { type: 'exact' }, before.type === 'float');
  if (fromText && INTEGER_TYPES.has(after.type)) {
    const [where, bindings] = raw(`${exact} <> round(${exact})`, changed.field);
    const row = await db(changed.collection)
      .select(db.raw('?? as value', [changed.field]))
      .whereNotNull(changed.field)
      .whereRaw(where, bindings)
      .first<{ value: unknown } | undefined>();
    if (row !== undefined) {
      throw new InvalidPayloadError(
        `Field "${changed.field}" of collection "${changed.collection}" can't be altered to "${after.type}": the stored value ${shown(row.value)} isn't a whole number`,
      );
    }
  }
  if (fromText && to.type === 'float') {
    const outside = `abs(${exact}) > ${String(FLOAT32_MAX)} or (${exact} <> 0 and abs(${exact}) < ${String(FLOAT32_MIN)})`;
    const [where, bindings] = raw(outside, changed.field);
    const row = await db(changed.collection)
      .select(db.raw('?? as value', [changed.field]))
      .whereNotNull(changed.field)
      .whereRaw(`(${where})`, bindings)
      .first<{ value: unknown } | undefined>();
    if (row !== undefined && Number.isFinite(Number(row.value))) {
      throw new ValueOutOfRangeError({ collection: changed.collection, field: changed.field });
    }
    if (row !== undefined) {
      throw new InvalidPayloadError(
        `Field "${changed.field}" of collection "${changed.collection}" can't be altered to "float": the stored value ${shown(row.value)} isn't a number`,
      );
    }
  }
  if (to.type === 'decimal') {
    // The smallest magnitude that rounds to 10^(precision - scale): 99.995 for decimal(4, 2).
    const limit = `${'9'.repeat(Math.max(to.precision - to.scale, 0)) || '0'}.${'9'.repeat(to.scale)}5`;
    const [where, bindings] = raw(`abs(${fromText ? exact : '??'}) >= ${limit}`, changed.field);
    const tooLarge = await db(changed.collection)
      .whereNotNull(changed.field)
      .whereRaw(where, bindings)
      .first<{ one: number } | undefined>(db.raw('1 as one'));
    if (tooLarge !== undefined) {
      throw new ValueOutOfRangeError({ collection: changed.collection, field: changed.field });
    }
  }
}

/**
 * INVALID_PAYLOAD naming the field, an affected value and what it would become, unless the
 * caller allows changed values (`allow_destructive`).
 */
export function valuesWouldChange(changed: ChangedColumn, after: NumberColumn, example: ChangedValue): Error {
  const to = targetOf(after);
  const type = to?.type === 'decimal' ? `decimal(${to.precision}, ${to.scale})` : after.type;
  return new InvalidPayloadError(
    `Field "${changed.field}" of collection "${changed.collection}" can't be altered to "${type}" without changing stored values (${example.value} would become ${example.converted}); allow destructive changes (allow_destructive=true) to convert them`,
  );
}

/**
 * An integer changed to a boolean: 0 and 1 stay, every other number becomes true (1), as
 * PostgreSQL's cast makes it; MariaDB's tinyint(1) and SQLite would keep 5, which reads as
 * true but no filter on true finds. Run after the ALTER (on PostgreSQL it finds none).
 */
export async function convertToBooleans(db: Knex, changed: ChangedColumn): Promise<void> {
  await db(changed.collection)
    .whereNotIn(changed.field, [false, true])
    .update({ [changed.field]: true });
}

/**
 * SQLite converts nothing when a column changes type: after its rebuild, the numbers take
 * the new type's value as PostgreSQL and MariaDB convert them (text stays text, refused
 * after by assertSqliteConverted).
 */
export async function convertSqliteNumbers(
  trx: Knex.Transaction,
  dialect: DbClient,
  changed: ChangedColumn,
  before: NumberColumn,
  after: NumberColumn,
): Promise<void> {
  const to = targetOf(after);
  if (to === undefined || !convertsNumbers(before, after)) return;
  const [sql, bindings] = raw(convert(dialect, to, before.type === 'float'), changed.field);
  await trx(changed.collection)
    .whereRaw("typeof(??) in ('integer', 'real')", [changed.field])
    .update({ [changed.field]: trx.raw(sql, bindings) });
}
