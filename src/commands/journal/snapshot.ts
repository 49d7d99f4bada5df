import type { Knex } from 'knex';
import { getFieldRelation } from '../../../catalog/overview/lookup.js';
import type { CollectionOverview, FieldOverview, SchemaOverview } from '../../../catalog/overview/types.js';
import type { DbClient } from '../../config/index.js';
import type { Item, PrimaryKey } from '../types.js';

/**
 * The full item after an update, for its revision (reference/audit-and-utils.md): every
 * column typed as reads return it, and each one-to-many alias as the array of the keys of
 * its many (junction) rows, in the relation's sort order.
 */
export async function readSnapshot(
  trx: Knex.Transaction,
  dialect: DbClient,
  overview: SchemaOverview,
  collection: CollectionOverview,
  key: PrimaryKey,
): Promise<Item> {
  const fields = Object.values(collection.fields);
  const columns = fields.filter((f) => !f.isAlias).map((f) => f.field);
  const row = await trx(collection.collection).where(collection.primary, key).first<Record<string, unknown> | undefined>(columns);
  const item: Record<string, unknown> = {};
  for (const field of fields) {
    if (!field.isAlias) {
      item[field.field] = shapeStoredValue(field, row?.[field.field] ?? null, dialect);
      continue;
    }
    const relation = getFieldRelation(overview, collection.collection, field.field);
    if (relation?.kind === 'o2m') item[field.field] = await readRelatedKeys(trx, overview, relation.related, relation.relation.field, relation.relation.meta?.sortField ?? null, key);
  }
  return item;
}

/** Keys of the rows of `many` whose `foreignKey` points at `key`, sort field first. */
export async function readRelatedKeys(
  trx: Knex.Transaction,
  overview: SchemaOverview,
  many: string,
  foreignKey: string,
  sortField: string | null,
  key: PrimaryKey,
): Promise<PrimaryKey[]> {
  const related = overview.collections[many];
  if (related === undefined) return [];
  const query = trx(many).where(foreignKey, key).select(related.primary);
  if (sortField !== null) query.orderBy(sortField);
  const rows = await query.orderBy(related.primary);
  const keyField = related.fields[related.primary];
  return rows.map((r: Record<string, unknown>) => (keyField ? shapeKey(keyField, r[related.primary]) : (r[related.primary] as PrimaryKey)));
}

function shapeKey(field: FieldOverview, value: unknown): PrimaryKey {
  return field.type === 'integer' ? Number(value) : String(value);
}

/** A stored value as the API shows it, identical on every dialect. */
export function shapeStoredValue(field: Pick<FieldOverview, 'type'>, value: unknown, dialect: DbClient): unknown {
  if (value === null || value === undefined) return null;
  switch (field.type) {
    case 'boolean':
      return typeof value === 'boolean' ? value : value === 1 || value === '1' || value === 'true';
    case 'integer':
    case 'float':
      return Number(value);
    case 'bigInteger': {
      const number = Number(value);
      return Number.isSafeInteger(number) ? number : String(value);
    }
    case 'decimal':
      return String(value);
    case 'json':
      return typeof value === 'string' ? parseJson(value) : value;
    case 'csv':
      return String(value) === '' ? [] : String(value).split(',');
    case 'timestamp':
      return value instanceof Date ? value.toISOString() : storedTextToIso(String(value));
    case 'dateTime':
      return value instanceof Date ? dateParts(value, dialect).join('T') : String(value).replace(' ', 'T');
    case 'date':
      return value instanceof Date ? dateParts(value, dialect)[0] : String(value).slice(0, 10);
    default:
      return value;
  }
}

/** SQLite keeps timestamps as text: ISO from the service, `YYYY-MM-DD HH:MM:SS` (UTC) from CURRENT_TIMESTAMP. */
function storedTextToIso(text: string): string {
  const withZone = /[zZ]|[+-]\d{2}:?\d{2}$/.test(text) ? text : `${text.replace(' ', 'T')}Z`;
  const time = Date.parse(withZone);
  return Number.isNaN(time) ? text : new Date(time).toISOString();
}

/**
 * [date, time] of a zone-less value read as a Date: node-postgres builds it in local time,
 * mysql2 (connection timezone Z) in UTC.
 */
function dateParts(date: Date, dialect: DbClient): [string, string] {
  const utc = dialect !== 'pg';
  const pad = (n: number, width = 2) => String(n).padStart(width, '0');
  const y = utc ? date.getUTCFullYear() : date.getFullYear();
  const mo = (utc ? date.getUTCMonth() : date.getMonth()) + 1;
  const d = utc ? date.getUTCDate() : date.getDate();
  const h = utc ? date.getUTCHours() : date.getHours();
  const mi = utc ? date.getUTCMinutes() : date.getMinutes();
  const s = utc ? date.getUTCSeconds() : date.getSeconds();
  return [`${pad(y, 4)}-${pad(mo)}-${pad(d)}`, `${pad(h)}:${pad(mi)}:${pad(s)}`];
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
