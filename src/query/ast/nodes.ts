import type { FieldType } from '../../../catalog/overview/types.js';
import type { DateFunction, Literal, MatchMode, SortPick } from '../../db/dialects/read.js';
import type { AggregateFunction } from '../query.js';

/** The words of the tree a database dialect writes SQL for are the dialects' own (db/dialects/read.ts). */
export { DATE_FUNCTIONS, type DateFunction, type Literal, type MatchMode } from '../../db/dialects/read.js';

/**
 * The read AST: readonly data with a `kind` discriminant, every name resolved from the schema
 * overview (never taken from user input unchecked). The compiler turns one tree into one SQL
 * statement; the shaper walks the same tree to type the rows.
 */

/** The table one level reads. */
export interface CollectionRef {
  readonly collection: string;
  readonly primary: string;
  readonly primaryType: FieldType;
}

/**
 * How a level reaches the next one: m2o = `column` here holds the
 * target's key; o2m = the target's `foreignKey` holds this level's `parentKey`; a2o = the
 * many-to-any item column `column` holds the key of a row in `target` when `collectionColumn`
 * names it.
 */
export type RelationRef =
  | { readonly kind: 'm2o'; readonly column: string; readonly target: CollectionRef }
  | {
      readonly kind: 'o2m';
      readonly foreignKey: string;
      readonly parentKey: string;
      readonly target: CollectionRef;
      /**
       * The reverse of a many-to-any (`$FOLLOW(collection, item, collection_field)` filters):
       * the related rows name `collection` in `collectionColumn`, and `foreignKey` holds the
       * parent's key as text.
       */
      readonly scope?: { readonly collectionColumn: string; readonly collection: string };
    }
  | {
      readonly kind: 'a2o';
      readonly column: string;
      readonly collectionColumn: string;
      readonly target: CollectionRef;
    };

/** What a condition, a sort or a function field reads at the current level. */
export type Operand =
  | {
      readonly kind: 'column';
      readonly column: string;
      readonly type: FieldType;
      /**
       * A 4-byte float column (MariaDB's `float`, PostgreSQL's `real`): the values a filter
       * compares it with are rounded to that precision first (Dialect.singleFloat), as the
       * stored values were; a set only for filters.
       */
      readonly singleFloat?: true;
    }
  | { readonly kind: 'datePart'; readonly fn: DateFunction; readonly column: string }
  /** count(<o2m/m2m/m2a>): the number of related rows that satisfy `filter` (the row permission). */
  | {
      readonly kind: 'countRelated';
      readonly relation: RelationRef & { readonly kind: 'o2m' };
      readonly filter: Condition | null;
    }
  /** count(<json or csv field>): the number of elements. */
  | { readonly kind: 'countElements'; readonly column: string; readonly type: 'json' | 'csv' }
  /**
   * A value of a related row (`sort=author.name`, `sort=children.item:circles.name`); rows
   * that fail `filter` (the row permission) don't count. An m2o or a2o hop reaches one row
   * (null when there is none); an o2m hop reaches many, reduced to one value by `pick`: the
   * smallest for ascending sorts, the largest for descending ones (NULLs ignored; null when
   * no related row has a value), so each parent row still appears once.
   */
  | {
      readonly kind: 'path';
      readonly relation: RelationRef;
      readonly operand: Operand;
      readonly filter: Condition | null;
      /** null: the hop reaches at most one row (m2o, a2o). */
      readonly pick: SortPick | null;
    };

/** A filter value: bound as a parameter, or looked up in the same statement. */
export type Value =
  | { readonly kind: 'literal'; readonly value: Literal; readonly type: FieldType }
  /**
   * `$CURRENT_USER.role.name`: starting at row `key` of the first step's collection, follow
   * each step's column to the next; the last column is the value.
   */
  | { readonly kind: 'lookup'; readonly key: string; readonly steps: readonly LookupStep[] };

export interface LookupStep {
  readonly collection: string;
  readonly keyColumn: string;
  readonly column: string;
}

export type CompareOp = '=' | '<>' | '<' | '<=' | '>' | '>=';

export type Condition =
  | { readonly kind: 'and' | 'or'; readonly items: readonly Condition[] }
  | { readonly kind: 'constant'; readonly value: boolean }
  | { readonly kind: 'compare'; readonly operand: Operand; readonly op: CompareOp; readonly value: Value }
  | { readonly kind: 'in'; readonly operand: Operand; readonly values: readonly Value[]; readonly negated: boolean }
  | {
      readonly kind: 'between';
      readonly operand: Operand;
      readonly low: Value;
      readonly high: Value;
      readonly negated: boolean;
    }
  | { readonly kind: 'null'; readonly operand: Operand; readonly negated: boolean }
  /** null or '' (the empty string only for text-like operands). */
  | { readonly kind: 'empty'; readonly operand: Operand; readonly isText: boolean; readonly negated: boolean }
  | {
      readonly kind: 'match';
      readonly operand: Operand;
      readonly mode: MatchMode;
      readonly caseInsensitive: boolean;
      readonly text: string;
      readonly negated: boolean;
    }
  /** csv fields: one of the comma-separated elements equals `element`. */
  | { readonly kind: 'csvContains'; readonly operand: Operand; readonly element: string; readonly negated: boolean }
  | {
      readonly kind: 'geo';
      readonly operand: Operand;
      readonly mode: 'intersects' | 'bbox';
      readonly geojson: string;
      readonly negated: boolean;
    }
  /** Some related row (through `relation`) satisfies `condition`; `negated` = none does. */
  | {
      readonly kind: 'related';
      readonly relation: RelationRef;
      readonly condition: Condition;
      readonly negated: boolean;
    }
  /**
   * The operand (a key stored as text, like svc_revisions.item) is the primary key, as text, of
   * a row of `target` that satisfies `condition`: an uncorrelated subquery, evaluated once.
   */
  | {
      readonly kind: 'keyIn';
      readonly operand: Operand;
      readonly target: CollectionRef;
      readonly condition: Condition | null;
    };

export interface SortNode {
  readonly operand: Operand;
  readonly descending: boolean;
  /**
   * The value may be NULL (a nullable column, a value through a many-to-one): the compiler
   * then pins NULLs as the largest value on every dialect.
   */
  readonly canBeNull: boolean;
}

/** filter (query filter, search and row permission merged), sort and window of one level. */
export interface LevelQuery {
  readonly filter: Condition | null;
  readonly sort: readonly SortNode[];
  /** null = all rows. */
  readonly limit: number | null;
  readonly offset: number;
}

/** A column value; `masked` values (hash, conceal) never leave as stored. */
export interface FieldNode {
  readonly kind: 'field';
  readonly key: string;
  readonly column: string;
  readonly type: FieldType;
  readonly masked: boolean;
  /** decimal scale, so every dialect prints the same digits. */
  readonly scale: number | null;
  /** An item-values column (svc_revisions.data): the values the caller may not see come out. */
  readonly hidden?: HiddenValues;
}

/**
 * The values of an item-values column a non-admin may see, by the row's `collectionColumn`:
 * all of them for `whole` collections, all but `fields` for `partial` ones, none (null) for
 * any other collection.
 */
export interface HiddenValues {
  readonly collectionColumn: string;
  readonly whole: readonly string[];
  readonly partial: readonly { readonly collection: string; readonly fields: readonly string[] }[];
}

/** `year(date)`, `count(comments)`: output key `<field>_<fn>`. */
interface FunctionNode {
  readonly kind: 'function';
  readonly key: string;
  readonly operand: Operand;
}

export interface M2ONode {
  readonly kind: 'm2o';
  readonly key: string;
  readonly relation: RelationRef & { readonly kind: 'm2o' };
  readonly children: readonly ReadNode[];
  /** Row permission and deep filter of the related row: when false, the value is null. */
  readonly filter: Condition | null;
}

export interface O2MNode {
  readonly kind: 'o2m';
  readonly key: string;
  readonly relation: RelationRef & { readonly kind: 'o2m' };
  /** null: the list holds the related primary keys only (no subfields requested). */
  readonly children: readonly ReadNode[] | null;
  readonly level: LevelQuery;
}

/** One allowed collection of a many-to-any item column, with the fields scoped to it. */
export interface A2OBranch {
  readonly relation: RelationRef & { readonly kind: 'a2o' };
  readonly children: readonly ReadNode[];
  readonly filter: Condition | null;
}

/** The item column of a many-to-any junction, read as the related object per collection. */
export interface A2ONode {
  readonly kind: 'a2o';
  readonly key: string;
  /** Collections without a branch come back as the raw stored key. */
  readonly branches: readonly A2OBranch[];
  readonly column: string;
  readonly collectionColumn: string;
}

/** A fixed text under `key` on every row (NestedQuery.constants: GraphQL's `__typename`). */
interface ConstantNode {
  readonly kind: 'constant';
  readonly key: string;
  readonly value: string;
}

export type ReadNode = FieldNode | FunctionNode | ConstantNode | M2ONode | O2MNode | A2ONode;

/** A list or single-item read: one statement returning one row per item. */
export interface ReadAst {
  readonly kind: 'read';
  readonly collection: CollectionRef;
  readonly children: readonly ReadNode[];
  readonly level: LevelQuery;
}

export interface AggregateNode {
  readonly fn: AggregateFunction;
  /** null = `*` (count rows). */
  readonly column: string | null;
  /** The output field name inside the function's object (`sum: {views: 5}`); null for `count: N`. */
  readonly field: string | null;
  readonly type: FieldType;
  readonly scale: number | null;
}

export interface GroupNode {
  readonly key: string;
  readonly operand: Operand;
  readonly type: FieldType;
  readonly scale: number | null;
}

/** `aggregate` + `groupBy`: sort refers to output positions (groups, then aggregates). */
export interface AggregateAst {
  readonly kind: 'aggregate';
  readonly collection: CollectionRef;
  readonly groups: readonly GroupNode[];
  readonly aggregates: readonly AggregateNode[];
  readonly filter: Condition | null;
  /** canBeNull as in SortNode: nullable groups, aggregates other than counts. */
  readonly sort: readonly { readonly output: number; readonly descending: boolean; readonly canBeNull: boolean }[];
  readonly limit: number | null;
  readonly offset: number;
}

/** meta: `total_count` (row permission only) and `filter_count` (plus filter and search). */
export interface CountAst {
  readonly kind: 'count';
  readonly collection: CollectionRef;
  readonly counts: readonly { readonly key: string; readonly filter: Condition | null }[];
}
