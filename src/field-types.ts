/**
 * The API's field types: the words the catalogue describes a column in (catalog/overview), the
 * database dialects write each one's SQL for (db/dialects) and every door answers in. A leaf,
 * like db-client.ts, so the dialects below the catalogue can name them.
 */

export const FIELD_TYPES = [
  'string',
  'text',
  'integer',
  'bigInteger',
  'float',
  'decimal',
  'boolean',
  'date',
  'time',
  'dateTime',
  'timestamp',
  'json',
  'csv',
  'uuid',
  'hash',
  'alias',
  'binary',
  'geometry',
  'unknown',
] as const;
export type FieldType = (typeof FIELD_TYPES)[number];
