/**
 * GraphiQL (the graphiql package, with React 18), built into its own graphiql.js so that
 * only /admin/graphql loads it. The console hands in the fetcher (the client's session).
 */
import { GraphiQL } from 'graphiql';
import { createRoot, type Root } from 'react-dom/client';
import 'graphiql/style.css';

export type GraphiqlFetcher = (params: {
  query: string;
  variables?: unknown;
  operationName?: string | null;
}) => Promise<unknown>;

/** Renders GraphiQL into `element`; the returned function unmounts it. */
export function mountGraphiql(element: HTMLElement, fetcher: GraphiqlFetcher, storageKey: string): () => void {
  const root: Root = createRoot(element);
  root.render(
    <GraphiQL
      fetcher={fetcher as never}
      storage={namespacedStorage(storageKey)}
      defaultQuery={'# Write a query, then run it with the play button (Ctrl-Enter).\n{\n  __typename\n}\n'}
    />,
  );
  return () => root.unmount();
}

/** GraphiQL keeps its tabs per endpoint: /graphql and /graphql/system do not mix. */
function namespacedStorage(prefix: string): Storage {
  const store = window.localStorage;
  return {
    get length() {
      return store.length;
    },
    clear: () => store.clear(),
    key: (index) => store.key(index),
    getItem: (key) => store.getItem(`${prefix}:${key}`),
    setItem: (key, value) => store.setItem(`${prefix}:${key}`, value),
    removeItem: (key) => store.removeItem(`${prefix}:${key}`),
  };
}
