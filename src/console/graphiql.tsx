/**
 * GraphiQL (the graphiql package, with React 18), built into its own graphiql.js so that
 * only /admin/graphql loads it. The console hands in the HTTP side (the client's session) and
 * the WebSocket side of the endpoint: subscriptions run over graphql-ws, connected at the
 * first one (the service refuses the socket when WEBSOCKETS_ENABLED is off: the error shows).
 */
import { GraphiQL } from 'graphiql';
import { parse, type DocumentNode } from 'graphql';
import { createClient, type Client } from 'graphql-ws';
import { createRoot, type Root } from 'react-dom/client';
import 'graphiql/style.css';

export interface GraphiqlParams {
  query: string;
  variables?: Record<string, unknown> | null;
  operationName?: string | null;
}

export interface GraphiqlEndpoint {
  /** Runs a query or mutation over HTTP; answers the result body (errors included). */
  readonly post: (params: GraphiqlParams) => Promise<unknown>;
  /** The graphql-ws address of the endpoint's subscriptions (ws:// or wss://). */
  readonly subscriptionUrl: string;
  /** The `connection_init` payload (the session's current access token), asked at each connect. */
  readonly connectionParams: () => Promise<Record<string, unknown>>;
}

/** Renders GraphiQL into `element`; the returned function unmounts it (and closes its socket). */
export function mountGraphiql(element: HTMLElement, endpoint: GraphiqlEndpoint, storageKey: string): () => void {
  const sockets = createClient({
    url: endpoint.subscriptionUrl,
    lazy: true,
    connectionParams: endpoint.connectionParams,
    // A refused or closed socket ends the subscription with its reason instead of retrying unseen.
    retryAttempts: 0,
  });
  const fetcher = (params: GraphiqlParams) =>
    isSubscription(params) ? subscribe(sockets, params) : endpoint.post(params);
  const root: Root = createRoot(element);
  const fixes = fixAccessibility(element);
  root.render(
    <GraphiQL
      fetcher={fetcher as never}
      storage={namespacedStorage(storageKey)}
      defaultQuery={'# Write a query, then run it with the play button (Ctrl-Enter).\n{\n  __typename\n}\n'}
    />,
  );
  return () => {
    fixes.disconnect();
    root.unmount();
    void sockets.dispose();
  };
}

/**
 * What axe finds in GraphiQL 4, put right as its DOM appears: CodeMirror's textareas have no
 * name (each gets its editor's), and each tab (role="tab") holds the tab's own buttons, title
 * and close (nested-interactive): the tabs become the plain list they are drawn as, whose
 * active title says so (aria-current).
 */
function fixAccessibility(host: HTMLElement): MutationObserver {
  const fix = () => {
    for (const area of host.querySelectorAll<HTMLTextAreaElement>('.CodeMirror textarea:not([aria-label])')) {
      area.setAttribute('aria-label', editorName(area));
    }
    for (const list of host.querySelectorAll('.graphiql-tabs[role]')) list.removeAttribute('role');
    for (const tab of host.querySelectorAll('.graphiql-tab[role], .graphiql-tab[aria-selected]')) {
      const isActive = tab.getAttribute('aria-selected') === 'true';
      tab.removeAttribute('role');
      tab.removeAttribute('aria-selected');
      const title = tab.querySelector('.graphiql-tab-button');
      if (isActive) title?.setAttribute('aria-current', 'true');
      else title?.removeAttribute('aria-current');
    }
  };
  const observer = new MutationObserver(fix);
  observer.observe(host, {
    subtree: true,
    childList: true,
    attributes: true,
    attributeFilter: ['role', 'aria-selected'],
  });
  fix();
  return observer;
}

/** The name of a CodeMirror textarea: the editor it types into. */
function editorName(area: HTMLElement): string {
  if (area.closest('.graphiql-query-editor') !== null) return 'Query';
  if (area.closest('.graphiql-response') !== null) return 'Response';
  const tool = area.closest('.graphiql-editor-tool');
  if (tool === null) return 'Editor';
  // The tool pane holds the variables editor, then the headers one.
  const editors = [...tool.querySelectorAll('.graphiql-editor')];
  return editors.findIndex((editor) => editor.contains(area)) === 1 ? 'Headers' : 'Variables';
}

/** Whether the operation to run (the named one, else the only one) is a subscription (a text that does not parse: no). */
function isSubscription({ query, operationName }: GraphiqlParams): boolean {
  let document: DocumentNode;
  try {
    document = parse(query);
  } catch {
    return false;
  }
  const operations = document.definitions.filter((d) => d.kind === 'OperationDefinition');
  const chosen = operationName ? operations.find((o) => o.name?.value === operationName) : operations[0];
  return chosen?.operation === 'subscription';
}

/** The subscription's results as GraphiQL shows them; a closed socket becomes an error with its code and reason. */
async function* subscribe(sockets: Client, params: GraphiqlParams): AsyncGenerator<unknown> {
  try {
    yield* sockets.iterate({
      query: params.query,
      variables: params.variables ?? undefined,
      operationName: params.operationName ?? undefined,
    });
  } catch (error) {
    if (error instanceof Error) throw error;
    const closed = error as { code?: number; reason?: string };
    throw new Error(
      closed.code === undefined
        ? 'The subscription failed'
        : `The WebSocket closed (${closed.code}${closed.reason ? ` ${closed.reason}` : ''}); is WEBSOCKETS_ENABLED on?`,
    );
  }
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
