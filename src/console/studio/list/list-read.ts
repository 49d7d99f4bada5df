/**
 * What a list asks beyond react-admin's filter, sort and page (its `meta`, handed to the
 * dataProvider's getList): a filter of its own (archived items hidden) and a moment to read the
 * items as they were then (`as_of`, read item by item: the API reads a single item as of a
 * moment; an item that did not exist then is left out).
 */
import type { Filter, ID } from '../../../client/index.js';
import { client } from '../../session.js';

export type ListMeta = {
  readonly fields?: readonly string[];
  /** Joined to the list's filter with `_and`. */
  readonly filter?: Filter;
  /** ISO 8601: the items as they were at that moment. */
  readonly asOf?: string;
  /**
   * `apart`: the page without its count (a next page known by one more row); `only`: the count
   * alone (`total`, no rows). Without it, the page and `filter_count` in one request.
   */
  readonly count?: 'apart' | 'only';
};

/** `a` and `b` together (either may be absent). */
export function joinFilters(a: Filter | undefined, b: Filter | undefined): Filter | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return { _and: [a, b] };
}

/**
 * Which of `keys` were created after `asOf` (their create activity is later): one activity read,
 * for a role that may read the activity (`mayReadActivity`); none known otherwise.
 */
async function createdAfter(
  collection: string,
  keys: readonly unknown[],
  asOf: string,
  mayReadActivity: boolean,
): Promise<ReadonlySet<string>> {
  if (!mayReadActivity || keys.length === 0) return new Set();
  const answer = await client.activity
    .readByQuery({
      filter: {
        collection: { _eq: collection },
        action: { _eq: 'create' },
        timestamp: { _gt: asOf },
        item: { _in: keys.map(String) },
      },
      fields: ['item'],
      limit: keys.length,
    })
    .catch(() => undefined);
  return new Set((answer?.data ?? []).map((row) => String((row as { item?: unknown }).item)));
}

/**
 * Each item as it was at `asOf`, in the same order; those that did not exist then are left out:
 * not asked for when the activity says they were created later (the API would refuse the read).
 */
export async function itemsAsOf(
  collection: string,
  pk: string,
  rows: readonly Record<string, unknown>[],
  asOf: string,
  fields: readonly string[],
  mayReadActivity: boolean,
): Promise<Record<string, unknown>[]> {
  const later = await createdAfter(
    collection,
    rows.map((item) => item[pk]),
    asOf,
    mayReadActivity,
  );
  const items = rows.filter((item) => !later.has(String(item[pk])));
  const then = await Promise.all(
    items.map((item) =>
      client
        .items(collection)
        .readOne(item[pk] as ID, { fields, as_of: asOf })
        .then(
          (old) => (old ?? null) as Record<string, unknown> | null,
          () => null,
        ),
    ),
  );
  return then.filter((item): item is Record<string, unknown> => item !== null);
}
