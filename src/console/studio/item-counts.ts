/**
 * How many items each collection holds, as its list shows them (archived items left out): for
 * the navigation and the collections page, one query per collection that both share. Counting a
 * large table costs the database a scan, so the counts wait until the page's own requests are
 * out (the browser's first idle moment), stay fresh for a minute, and are read again when the
 * Studio creates or deletes items of that collection (or anything refreshes every query).
 */
import { useEffect, useState } from 'react';
import { useQueries, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { client } from '../session.js';
import { archiveFilter, collectionOf, type CollectionInfo } from './catalogue.js';
import { collectionName, sessionCatalogue } from './providers.js';

const countKey = (collection: string) => ['studio.count', collection] as const;

/** react-admin's mutations that change how many items a collection holds. */
const COUNTING = new Set(['create', 'delete', 'deleteMany']);

let idle: Promise<void> | undefined;
/** Resolves at the browser's first idle moment after the page loaded (at most 2 s later). */
function whenIdle(): Promise<void> {
  idle ??= new Promise((resolve) => {
    const wait = () =>
      'requestIdleCallback' in window
        ? window.requestIdleCallback(() => resolve(), { timeout: 2000 })
        : setTimeout(resolve, 200);
    if (document.readyState === 'complete') wait();
    else window.addEventListener('load', wait, { once: true });
  });
  return idle;
}

/** Invalidates a collection's count when one of react-admin's mutations on it succeeds. */
function followMutations(queryClient: QueryClient): () => void {
  return queryClient.getMutationCache().subscribe((event) => {
    if (event.type !== 'updated' || event.action.type !== 'success') return;
    const [resource, kind] = event.mutation.options.mutationKey ?? [];
    if (typeof resource !== 'string' || typeof kind !== 'string' || !COUNTING.has(kind)) return;
    void queryClient.invalidateQueries({ queryKey: countKey(collectionName(resource)) });
  });
}

/** Each collection's item count once read (undefined before, or when the read was refused). */
export function useItemCounts(collections: readonly CollectionInfo[]): ReadonlyMap<string, number> {
  const queryClient = useQueryClient();
  const [isIdle, setIsIdle] = useState(false);
  useEffect(() => {
    let isCurrent = true;
    void whenIdle().then(() => isCurrent && setIsIdle(true));
    return () => {
      isCurrent = false;
    };
  }, []);
  useEffect(() => followMutations(queryClient), [queryClient]);
  const counted = collections.filter((c) => !c.isFolder && !c.singleton && c.can.read);
  const results = useQueries({
    queries: counted.map((c) => ({
      queryKey: countKey(c.name),
      enabled: isIdle,
      staleTime: 60_000,
      retry: false,
      queryFn: async ({ signal }: { signal: AbortSignal }): Promise<number | null> => {
        // After a schema change the navigation shows the old catalogue until the new one is read:
        // a collection gone (or no longer readable) is not asked for.
        const current = collectionOf(await sessionCatalogue(), c.name);
        if (current === undefined || !current.can.read) return null;
        const filter = archiveFilter(current);
        const answer = await client
          .items(c.name)
          .readByQuery(
            { aggregate: { count: '*' }, ...(filter === undefined ? {} : { filter }) },
            { requestOptions: { signal } },
          );
        const row = (answer.data ?? [])[0] as { count?: unknown } | undefined;
        return Number(row?.count ?? 0);
      },
    })),
  });
  const counts = new Map<string, number>();
  counted.forEach((c, i) => {
    const data = results[i]?.data;
    if (typeof data === 'number') counts.set(c.name, data);
  });
  return counts;
}
