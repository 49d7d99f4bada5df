import type { Knex } from 'knex';
import { readColumnKeys, type RawUniqueKey } from '../introspection/index.js';
import { InvalidPayloadError } from '../../src/errors.js';
import { constraintName } from './names.js';
import type { ColumnSpec } from './payloads.js';
import type { SchemaChange } from './schema-change.js';
import { assertIndexable, type ChangedField } from './schema-errors.js';

/** Unique key and index of a new column (knex names, shortened to fit every dialect). */
export async function addKeys(change: SchemaChange, column: ChangedField, spec: ColumnSpec): Promise<void> {
  if (spec.isPrimaryKey === true) return;
  if (spec.isUnique === true || spec.isIndexed === true) assertIndexable(column);
  if (spec.isUnique === true) await changeKey(change, column, 'unique', true);
  else if (spec.isIndexed === true) await changeKey(change, column, 'index', true);
}

/**
 * Adds or drops a column's unique key (a constraint on PostgreSQL), unique index or plain
 * index (by default under the name the service gives it); the opposite is the undo.
 */
export async function changeKey(
  change: SchemaChange,
  column: ChangedField,
  kind: 'unique' | 'uniqueIndex' | 'index',
  isAdded: boolean,
  indexName = constraintName(column.collection, column.field, kind === 'index' ? 'index' : 'unique'),
): Promise<void> {
  const { collection: table, field } = column;
  const add = (x: Knex) =>
    x.schema.alterTable(table, (t) => {
      if (kind === 'index') t.index([field], indexName);
      else t.unique([field], { indexName, useConstraint: kind === 'unique' });
    });
  const drop = (x: Knex) =>
    x.schema.alterTable(table, (t) => {
      if (kind === 'unique') t.dropUnique([field], indexName);
      else t.dropIndex([field], indexName);
    });
  await (isAdded ? change.ddl(add, drop) : change.ddl(drop, add));
}

/**
 * Drops the column's single-column unique keys by the names and kinds the database reports,
 * whoever made them; keys over more columns are other keys, left as they are. SQLite drops a
 * UNIQUE written in CREATE TABLE only with its table: a 400, before anything is dropped.
 */
export async function dropUniqueKeys(change: SchemaChange, column: ChangedField): Promise<void> {
  const { uniqueKeys } = await change.data((trx) => readColumnKeys(trx, column.collection, column.field));
  const inTable = uniqueKeys.find((key) => key.kind === 'table');
  if (inTable !== undefined) {
    throw new InvalidPayloadError(
      `Field "${column.field}" of collection "${column.collection}" is unique by its table's definition ` +
        `("${inTable.name}"): SQLite drops such a key only with the table`,
    );
  }
  for (const key of uniqueKeys) await changeKey(change, column, uniqueKindOf(key), false, key.name);
}

function uniqueKindOf(key: RawUniqueKey): 'unique' | 'uniqueIndex' {
  return key.kind === 'constraint' ? 'unique' : 'uniqueIndex';
}
