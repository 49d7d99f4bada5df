/**
 * The API's filter operators per field type, for the filter builder: a mirror of
 * catalog/overview/filter-operators.ts (the Studio imports only the client), checked against it
 * by test/unit/console/filter-operators.test.ts. No imports, so that test can load it without a browser.
 */
export type Shape = 'scalar' | 'list' | 'pair' | 'flag' | 'geometry' | 'pattern' | 'presence' | 'quantifier';
export type Family = 'text' | 'uuid' | 'number' | 'temporal' | 'boolean' | 'json' | 'hash' | 'geometry' | 'untyped';

const ALL: readonly Family[] = ['text', 'uuid', 'number', 'temporal', 'boolean', 'json', 'hash', 'geometry', 'untyped'];
const EQUALITY: readonly Family[] = ['text', 'uuid', 'number', 'temporal', 'boolean', 'geometry', 'untyped'];
const ORDERED: readonly Family[] = ['number', 'temporal', 'untyped'];
const LISTED: readonly Family[] = ['text', 'uuid', 'number', 'temporal', 'untyped'];
const TEXT: readonly Family[] = ['text'];
const TEXTISH: readonly Family[] = ['text', 'untyped'];
const EMPTY: readonly Family[] = ['text', 'hash', 'untyped'];
const GEO: readonly Family[] = ['geometry'];

/** The API's filter operators, in its table's order. */
const OPERATORS: readonly { op: string; shape: Shape; families: readonly Family[] }[] = [
  { op: '_eq', shape: 'scalar', families: EQUALITY },
  { op: '_neq', shape: 'scalar', families: EQUALITY },
  { op: '_gt', shape: 'scalar', families: ORDERED },
  { op: '_gte', shape: 'scalar', families: ORDERED },
  { op: '_lt', shape: 'scalar', families: ORDERED },
  { op: '_lte', shape: 'scalar', families: ORDERED },
  { op: '_contains', shape: 'scalar', families: TEXTISH },
  { op: '_icontains', shape: 'scalar', families: TEXT },
  { op: '_ncontains', shape: 'scalar', families: TEXTISH },
  { op: '_starts_with', shape: 'scalar', families: TEXT },
  { op: '_nstarts_with', shape: 'scalar', families: TEXT },
  { op: '_istarts_with', shape: 'scalar', families: TEXT },
  { op: '_nistarts_with', shape: 'scalar', families: TEXT },
  { op: '_ends_with', shape: 'scalar', families: TEXT },
  { op: '_nends_with', shape: 'scalar', families: TEXT },
  { op: '_iends_with', shape: 'scalar', families: TEXT },
  { op: '_niends_with', shape: 'scalar', families: TEXT },
  { op: '_intersects', shape: 'geometry', families: GEO },
  { op: '_nintersects', shape: 'geometry', families: GEO },
  { op: '_intersects_bbox', shape: 'geometry', families: GEO },
  { op: '_nintersects_bbox', shape: 'geometry', families: GEO },
  { op: '_in', shape: 'list', families: LISTED },
  { op: '_nin', shape: 'list', families: LISTED },
  { op: '_between', shape: 'pair', families: ORDERED },
  { op: '_nbetween', shape: 'pair', families: ORDERED },
  { op: '_null', shape: 'flag', families: ALL },
  { op: '_nnull', shape: 'flag', families: ALL },
  { op: '_empty', shape: 'flag', families: EMPTY },
  { op: '_nempty', shape: 'flag', families: EMPTY },
  { op: '_regex', shape: 'pattern', families: [] },
  { op: '_submitted', shape: 'presence', families: [] },
  { op: '_some', shape: 'quantifier', families: [] },
  { op: '_none', shape: 'quantifier', families: [] },
];
const VALIDATION_ONLY = new Set(['_regex', '_submitted']);
export const SHAPE = new Map(OPERATORS.map((o) => [o.op, o.shape]));

export const FAMILY_OF_TYPE: Readonly<Record<string, Family>> = {
  string: 'text',
  text: 'text',
  csv: 'text',
  binary: 'text',
  uuid: 'uuid',
  integer: 'number',
  bigInteger: 'number',
  float: 'number',
  decimal: 'number',
  date: 'temporal',
  dateTime: 'temporal',
  timestamp: 'temporal',
  time: 'temporal',
  boolean: 'boolean',
  json: 'json',
  hash: 'hash',
  geometry: 'geometry',
};

/**
 * The operators of a to-many field (a one-to-many, or a many-to-many alias, which the API reads as
 * a one-to-many on its junction): the quantifiers, whose value is a filter on the related rows.
 */
export const QUANTIFIERS: readonly string[] = OPERATORS.filter((o) => o.shape === 'quantifier').map((o) => o.op);

/** The operators a field of `type` takes (with the validation-only ones when asked). */
export function operatorsOf(type: string, validation = false): string[] {
  const family = FAMILY_OF_TYPE[type] ?? 'untyped';
  return OPERATORS.filter(
    (o) => o.families.includes(family) || (validation && VALIDATION_ONLY.has(o.op) && family !== 'geometry'),
  ).map((o) => o.op);
}
