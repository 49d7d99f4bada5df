import type { FilterObject } from '../../catalog/overview/types.js';

/**
 * The one typed query of the read side. REST query strings, SEARCH
 * bodies and GraphQL selections all become a `Query`; nothing downstream sees encodings.
 * Values are as given by the caller: field names, paths and filter values are checked
 * against the schema overview later (validate/, ast/).
 */

export const META_KINDS = ['total_count', 'filter_count'] as const;
export type MetaKind = (typeof META_KINDS)[number];

export const AGGREGATE_FUNCTIONS = [
  'count',
  'countDistinct',
  'countAll',
  'sum',
  'sumDistinct',
  'avg',
  'avgDistinct',
  'min',
  'max',
] as const;
export type AggregateFunction = (typeof AGGREGATE_FUNCTIONS)[number];

export const EXPORT_FORMATS = ['csv', 'json', 'xml', 'yaml'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** `filter` grammar, as in Directus 10: `{field: {_op: value}}`, `_and`, `_or`, nesting. */
export type Filter = FilterObject;

/** `aggregate[<fn>]=<field|*>,...`: the fields (or `*`) per function. */
export type Aggregate = Readonly<Partial<Record<AggregateFunction, readonly string[]>>>;

/** `deep`: per relational field (or alias) the query of that nested level. */
export type Deep = Readonly<Record<string, NestedQuery>>;

/** What one level of a read can be given: the root query, or `deep[<relation>]`. */
export interface NestedQuery {
  readonly filter?: Filter;
  readonly search?: string;
  /** Field names or paths, `-` = descending; an empty array disables the default sort. */
  readonly sort?: readonly string[];
  /** -1 = all. */
  readonly limit?: number;
  readonly offset?: number;
  readonly page?: number;
  /** `alias[<new>]=<field>`: `<new>` can be requested in `fields`, filled from `<field>`. */
  readonly alias?: Readonly<Record<string, string>>;
  readonly deep?: Deep;
  /**
   * Output keys of this level whose value is a fixed text, in `fields` among the others:
   * GraphQL's `__typename`. Never taken from a request's query string (parseQuery builds no such
   * key), so a REST caller cannot name one.
   */
  readonly constants?: Readonly<Record<string, string>>;
}

export interface Query extends NestedQuery {
  /** Field paths (`title`, `author.name`, `*.*`, `year(date)`, `sections.item:headings.title`). */
  readonly fields?: readonly string[];
  readonly meta?: readonly MetaKind[];
  readonly aggregate?: Aggregate;
  readonly groupBy?: readonly string[];
  readonly export?: ExportFormat;
}
