/**
 * GraphiQL for /graphql (items) or /graphql/system, through the client (the session's token):
 * queries and mutations over HTTP, subscriptions over graphql-ws on the same path with the
 * session's access token. graphiql.js is loaded only here.
 */
import { TransportError } from '../../client/index.js';
import { h } from '../dom.js';
import { onLeave, type Page } from '../navigation.js';
import { client } from '../session.js';

interface Endpoint {
  readonly post: (params: unknown) => Promise<unknown>;
  readonly subscriptionUrl: string;
  readonly connectionParams: () => Promise<Record<string, unknown>>;
}
type Mount = (element: HTMLElement, endpoint: Endpoint, storageKey: string) => () => void;

const ENDPOINTS = ['/graphql', '/graphql/system'] as const;

export const graphqlPage: Page = async (_params, query, t) => {
  const endpoint = query.get('endpoint') === '/graphql/system' ? '/graphql/system' : '/graphql';
  const bundle = '/admin/graphiql.js';
  const { mountGraphiql } = (await import(/* @vite-ignore */ bundle)) as { mountGraphiql: Mount };
  await loadStylesheet('/admin/graphiql.css');
  const post = async (params: unknown): Promise<unknown> => {
    try {
      return (await client.transport.post(endpoint, params)).raw;
    } catch (error) {
      // GraphQL errors (and refused requests) are shown in the result pane as the server sent them.
      if (error instanceof TransportError && error.response?.raw !== undefined) return error.response.raw;
      throw error;
    }
  };
  // Subscriptions: graphql-ws at WEBSOCKETS_GRAPHQL_PATH (/server/info; /graphql when it says
  // nothing), its /system for the system endpoint, with the session's token.
  const subscriptionUrl = `${location.origin.replace(/^http/, 'ws')}${await subscriptionPath(endpoint)}`;
  const connectionParams = async () => {
    await client.auth.refreshIfExpired();
    const token = await client.auth.token;
    return token === null ? {} : { access_token: token };
  };
  const host = h('div', { class: 'graphiql-host' });
  // GraphiQL's editors measure themselves: mount once the page is in the document.
  let unmount: (() => void) | undefined;
  const frame = requestAnimationFrame(
    () =>
      (unmount = mountGraphiql(host, { post, subscriptionUrl, connectionParams }, `svc_console_graphiql${endpoint}`)),
  );
  onLeave(() => {
    cancelAnimationFrame(frame);
    unmount?.();
  });
  return h(
    'section',
    { class: 'wide' },
    h('h1', { class: 'visually-hidden' }, t('svc.nav.graphql')),
    h(
      'nav',
      { class: 'tabs', 'aria-label': t('svc.graphql.endpoint') },
      ENDPOINTS.map((e) =>
        h(
          'a',
          {
            href: `/admin/graphql?endpoint=${encodeURIComponent(e)}`,
            'aria-current': e === endpoint ? 'page' : undefined,
            'data-reload': true,
          },
          e,
        ),
      ),
    ),
    host,
  );
};

/** Adds the stylesheet once and waits for it: GraphiQL's editors measure their styled size when they start. */
function loadStylesheet(href: string): Promise<void> {
  const existing = document.querySelector<HTMLLinkElement>(`link[href="${href}"]`);
  if (existing?.sheet !== null && existing?.sheet !== undefined) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const link = existing ?? h('link', { rel: 'stylesheet', href });
    link.addEventListener('load', () => resolve(), { once: true });
    link.addEventListener('error', () => reject(new Error(`${href} did not load`)), { once: true });
    if (existing === null) document.head.append(link);
  });
}

async function subscriptionPath(endpoint: (typeof ENDPOINTS)[number]): Promise<string> {
  const websocket = (await client.server.info().catch(() => undefined))?.websocket;
  const base =
    websocket !== undefined && websocket !== false && websocket.graphql !== false ? websocket.graphql.path : '/graphql';
  return endpoint === '/graphql/system' ? `${base}/system` : base;
}
