import type { RawColumn } from './types.js';

/** What a column's single-column indexes make of it: the part of RawColumn they decide. */
export type ColumnKeys = Pick<RawColumn, 'isUnique' | 'isIndexed' | 'indexNames'>;

const NONE: ColumnKeys = Object.freeze({ isUnique: false, isIndexed: false, indexNames: [] });

/**
 * The single-column indexes of every table, by `table.column`, collected the same way by the
 * three dialects so is_indexed and the names is_indexed false drops come from one reading.
 */
export class ColumnKeyIndex {
  readonly #keys = new Map<string, ColumnKeys>();

  add(table: string, column: string, index: { name: string; isUnique: boolean }): void {
    const key = `${table}.${column}`;
    const known = this.#keys.get(key) ?? NONE;
    this.#keys.set(key, {
      isUnique: known.isUnique || index.isUnique,
      isIndexed: true,
      indexNames: index.isUnique ? known.indexNames : [...known.indexNames, index.name],
    });
  }

  of(table: string, column: string): ColumnKeys {
    return this.#keys.get(`${table}.${column}`) ?? NONE;
  }
}
