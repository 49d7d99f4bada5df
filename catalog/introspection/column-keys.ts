import type { RawColumn, RawUniqueKey } from './types.js';

/** What a column's single-column indexes make of it: the part of RawColumn they decide. */
export type ColumnKeys = Pick<RawColumn, 'isUnique' | 'isIndexed' | 'indexNames' | 'uniqueKeys'>;

/** What a single-column index is to its column: the primary key, a plain index or a unique key. */
export type IndexRole = 'primary' | 'plain' | RawUniqueKey['kind'];

/** A column in no single-column index. */
export const NO_KEYS: ColumnKeys = Object.freeze({ isUnique: false, isIndexed: false, indexNames: [], uniqueKeys: [] });

/**
 * The single-column indexes of every table, by `table.column`, collected the same way by the
 * three dialects so is_indexed, is_unique and the names is_indexed / is_unique false drop come
 * from one reading.
 */
export class ColumnKeyIndex {
  readonly #keys = new Map<string, ColumnKeys>();

  add(table: string, column: string, name: string, role: IndexRole): void {
    const key = `${table}.${column}`;
    const known = this.#keys.get(key) ?? NO_KEYS;
    this.#keys.set(key, {
      isUnique: known.isUnique || role !== 'plain',
      isIndexed: true,
      indexNames: role === 'plain' ? [...known.indexNames, name] : known.indexNames,
      // The primary key is no unique key of its own: it is altered never (422), not dropped.
      uniqueKeys:
        role === 'plain' || role === 'primary' ? known.uniqueKeys : [...known.uniqueKeys, { name, kind: role }],
    });
  }

  of(table: string, column: string): ColumnKeys {
    return this.#keys.get(`${table}.${column}`) ?? NO_KEYS;
  }
}
