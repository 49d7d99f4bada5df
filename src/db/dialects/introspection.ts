/**
 * What every dialect's introspection returns: the database's own description of its tables,
 * before any catalogue metadata is applied. Names are as stored; `dataType` is the column's
 * base type in lower case without length or precision (`character varying`, `varchar`,
 * `tinyint(1)` is the one exception MySQL needs: see `columnType`).
 */
export interface RawSchema {
  readonly tables: readonly RawTable[];
  readonly foreignKeys: readonly RawForeignKey[];
}

export interface RawTable {
  readonly name: string;
  readonly comment: string | null;
  /** Columns of the primary key in key order; empty when the table has none. */
  readonly primaryKey: readonly string[];
  /** Columns in ordinal order. */
  readonly columns: readonly RawColumn[];
}

export interface RawColumn {
  readonly name: string;
  /** Base type, lower case: `integer`, `character varying`, `varchar`, `timestamp with time zone`. */
  readonly dataType: string;
  /** The full declared type where it carries meaning (MySQL `tinyint(1)`), else equal to dataType. */
  readonly columnType: string;
  /** The default as the database prints it (`'draft'::character varying`, `CURRENT_TIMESTAMP`), or null. */
  readonly defaultRaw: string | null;
  readonly isNullable: boolean;
  readonly maxLength: number | null;
  readonly numericPrecision: number | null;
  readonly numericScale: number | null;
  /** In a single-column unique index or constraint (the primary key counts). */
  readonly isUnique: boolean;
  /** In a single-column index of any kind (unique ones and the primary key count). */
  readonly isIndexed: boolean;
  /** The plain (not unique) single-column indexes on it, by name, whoever made them. */
  readonly indexNames: readonly string[];
  /** The single-column unique keys on it (not the primary key), whoever made them. */
  readonly uniqueKeys: readonly RawUniqueKey[];
  readonly hasAutoIncrement: boolean;
  /** A generated (computed) column; its expression when the dialect tells. */
  readonly isGenerated: boolean;
  readonly generationExpression: string | null;
  /** MariaDB stores JSON as longtext with a json_valid check: true when such a check exists. */
  readonly hasJsonCheck: boolean;
  readonly comment: string | null;
}

/**
 * A unique key by its name and how it can be dropped: `constraint` a PostgreSQL UNIQUE
 * constraint (DROP CONSTRAINT), `index` a unique index (DROP INDEX; MariaDB's UNIQUE too),
 * `table` a UNIQUE written in SQLite's CREATE TABLE (only a new table drops it).
 */
export interface RawUniqueKey {
  readonly name: string;
  readonly kind: 'constraint' | 'index' | 'table';
}

export interface RawForeignKey {
  readonly table: string;
  readonly column: string;
  readonly foreignTable: string;
  /** Null when the dialect leaves it implicit (SQLite `REFERENCES t` means t's primary key). */
  readonly foreignColumn: string | null;
  readonly constraintName: string | null;
  /** `CASCADE`, `SET NULL`, `RESTRICT`, `NO ACTION`, `SET DEFAULT`. */
  readonly onUpdate: string | null;
  readonly onDelete: string | null;
}

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

/** Rows grouped by a key, groups and rows in first-seen order. */
export function groupBy<T>(rows: readonly T[], key: (row: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const row of rows) {
    const k = key(row);
    const group = groups.get(k);
    if (group === undefined) groups.set(k, [row]);
    else group.push(row);
  }
  return groups;
}

/** The rows of the foreign keys over one column, by each row's constraint (`constraintOf`): keys over more columns are no column's key. */
export function singleColumnKeys<T>(rows: readonly T[], constraintOf: (row: T) => string): T[] {
  return [...groupBy(rows, constraintOf).values()].filter((group) => group.length === 1).flat();
}
