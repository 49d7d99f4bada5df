import type { FieldType } from '../../field-types.js';
import { bindTemporal, plainPick, utcDateTime } from './read.js';
import type { Dialect } from './types.js';

/** SQL's own identifier quotes (`"name"`); a quote inside a name is doubled, so any name is safe. */
function quoteStandardId(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/**
 * What a database does when it does what standard SQL says, or what most of the three do: each
 * database's dialect (dialects/<database>/index.ts) is this with its own answers over it, so a
 * reader sees only where a database differs. What no two databases share (driver answers, error
 * codes, a date's parts, a JSON array's length) has no default: every dialect says it.
 */
export const standard = {
  quoteId: quoteStandardId,

  // Driver answers and writes.
  namesFailingForeignKey: true,
  timestampValue: (date) => date,
  refusesNul: false,
  insertKeys: 'returning',
  returnsStoredKeys: false,
  maxInsertRows: Infinity,
  insertsMixedColumns: true,
  insertsRecordset: false,
  sequencesLagGivenKeys: false,
  copiesRows: false,
  updatesRowsBy: 'values',
  valuesReadEarlierColumns: false,
  keepsForeignKeyPlans: false,

  // Schema changes and column types.
  schemaChanges: 'transaction',
  columnComments: true,
  indexesForeignKeys: false,
  autoIncrementKey: (table, name, isBig) =>
    isBig ? table.bigIncrements(name, { primaryKey: true }) : table.increments(name, { primaryKey: true }),
  floatColumn: (table, name) => table.float(name),
  decimalColumn: (table, name, precision, scale) => table.decimal(name, precision, scale),
  dateTimeColumn: (table, name) => table.datetime(name),
  timestampColumn: (table, name) => table.timestamp(name, { useTz: true }),
  addsRequiredColumns: true,
  convertsChangedTypes: true,
  textLengthSql: 'char_length(??)',
  comparesTextExactly: true,
  roundsDecimals: true,
  isConversionError: () => false,
  isInvalidDefaultError: () => false,
  isColumnSizeError: () => false,
  isDependencyError: () => false,
  isUnindexableKeyError: () => false,

  // The server.
  isEmbedded: false,
  takesConnectionString: false,

  // Reads (the query compiler).
  hasLateralLists: false,
  sortsNullablePathsInDerivedRoot: false,
  writesJsonOutput: false,
  insertsThroughWith: false,
  hasCursors: false,
  maxBoundValues: Infinity,
  listAggregation: 'derived',
  listElement: (w, column) => {
    column(w);
  },
  bind: (value, type) => bindTemporal(value, type, utcDateTime),
  // Exact digits (JSON numbers would lose them), JSON as its text, temporal values as stored,
  // whatever the driver would make of them.
  readsAsText: new Set<FieldType>(['bigInteger', 'decimal', 'json', 'date', 'dateTime', 'timestamp', 'time']),
  textType: 'text',
  readColumn(w, column, type) {
    if (w.dialect.readsAsText.has(type)) w.cast(column, w.dialect.textType);
    else column(w);
  },
  inLongList(w, operand, values, negated) {
    operand(w);
    w.raw(negated ? ' not in (' : ' in (')
      .join(values, ', ', (value) => w.value(value))
      .raw(')');
  },
  compareColumn(w, column) {
    column(w);
  },
  jsonArray(w, items) {
    w.raw('json_array(')
      .join(items, ', ', (item) => {
        item(w);
      })
      .raw(')');
  },
  emptyJsonArray: 'json_array()',
  concat(w, parts) {
    w.raw('(')
      .join(parts, ' || ', (part) => {
        part(w);
      })
      .raw(')');
  },
  sortTerm(w, value, descending, canBeNull) {
    // NULLs as the largest value, whatever the database's own order of them.
    value(w);
    if (descending) w.raw(canBeNull ? ' desc nulls first' : ' desc');
    else if (canBeNull) w.raw(' nulls last');
  },
  comparable(w, value) {
    value(w);
  },
  pick: plainPick,
  limitOffset(w, limit, offset) {
    if (limit !== null) w.raw(' limit ').value(limit);
    else if (offset > 0 && w.dialect.noLimit !== undefined) w.raw(` limit ${w.dialect.noLimit}`);
    if (offset > 0) w.raw(' offset ').value(offset);
  },
  withoutJsonKeys(w, value, keys) {
    w.raw('json_remove(');
    value(w);
    for (const key of keys) w.raw(', ').value(`$."${key}"`);
    w.raw(')');
  },
  asText(w, value) {
    w.cast(value, w.dialect.textType);
  },
  keyAs(w, key) {
    key(w);
  },
} satisfies Partial<Dialect>;
