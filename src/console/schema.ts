/** What the console needs to know about a collection's fields, read through the client. */
import type { FieldType } from '../client/index.js';
import { client } from './session.js';

/** Field types an input can edit (the rest: relations, JSON, aliases, files, are shown only). */
const SCALAR_TYPES: Readonly<Record<string, string>> = {
  string: 'text',
  text: 'textarea',
  uuid: 'text',
  hash: 'password',
  integer: 'number',
  bigInteger: 'number',
  float: 'number',
  decimal: 'number',
  boolean: 'checkbox',
  date: 'date',
  time: 'time',
  dateTime: 'datetime-local',
  timestamp: 'datetime-local',
};

export interface CollectionFields {
  readonly all: readonly FieldType[];
  readonly primaryKey: string;
  /** Fields shown as columns of the item list. */
  readonly columns: readonly string[];
}

export async function readFields(collection: string): Promise<CollectionFields> {
  const fields = (await client.fields.readMany(collection)).data ?? [];
  const stored = fields.filter((f) => f.schema !== null && f.type !== 'alias');
  const primaryKey = stored.find((f) => f.schema?.is_primary_key === true)?.field ?? 'id';
  const columns = [
    primaryKey,
    ...stored.filter((f) => f.field !== primaryKey && f.type !== 'json').map((f) => f.field),
  ].slice(0, 6);
  return { all: fields, primaryKey, columns };
}

/** The input type for `field`, or undefined when it is not edited here. */
export function inputTypeOf(field: FieldType, primaryKey: string): string | undefined {
  if (field.field === primaryKey || field.schema === null || field.meta?.['readonly'] === true) return undefined;
  if (field.meta?.['special'] !== undefined && Array.isArray(field.meta['special']) && field.meta['special'].length > 0)
    return undefined;
  return SCALAR_TYPES[field.type];
}

/** A value as one line of text for a table cell or a diff. */
export function display(value: unknown): string {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}
