import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { GraphQLError, OperationTypeNode, type ExecutionArgs } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import type { Knex } from 'knex';
import { WebSocketServer, type WebSocket } from 'ws';
import type { SchemaOverview } from '../../catalog/overview/types.js';
import { loadPermissions } from '../access/load-permissions.js';
import type { PermissionStore } from '../access/permission-store.js';
import type { AuthServices } from '../auth/auth-context.js';
import type { DataInvalidation } from '../cache/data-invalidation.js';
import type { Config } from '../config/index.js';
import { isServiceError, RequestsExceededError, ServiceError } from '../errors.js';
import {
  configuredLimits,
  OperationPreparer,
  SchemaStore,
  schemaAccessOf,
  toGraphqlError,
  type SubscriptionContext,
} from '../graphql/index.js';
import type { Logger } from '../logger/index.js';
import { queryLimits } from '../query/index.js';
import type { ChangeFeed } from '../realtime/change-feed.js';
import { liveIterator } from '../realtime/live-iterator.js';
import type { LiveReads } from '../realtime/live-reads.js';
import { SocketCaller } from '../realtime/socket-caller.js';
import { closeTooSlow, laterFrames } from '../realtime/socket-send.js';
import { PresenceRooms } from '../realtime/presence.js';
import { WebsocketSession } from '../realtime/websocket-protocol.js';
import type { CounterStore } from '../auth/counter-store.js';
import { bearerToken, requestOrigin } from './accountability.js';
import type { FileLibrary } from '../files/file-library.js';
import type { HookBus } from '../items/hooks.js';
import type { Metrics } from './metrics.js';
import { rateLimitPoint } from './rate-limit.js';

export interface WebsocketDeps {
  readonly config: Config;
  readonly db: Knex;
  readonly logger: Logger;
  readonly schema: { getOverview(): Promise<SchemaOverview>; invalidate(): Promise<void> };
  readonly permissions: PermissionStore;
  readonly auth: AuthServices;
  readonly invalidation: DataInvalidation;
  readonly live: LiveReads;
  readonly changes: ChangeFeed;
  readonly rateLimitCounters: CounterStore;
  readonly metrics?: Metrics | undefined;
  /** The items filters and actions (src/items/hooks.ts), run by the `items` messages' writes. */
  readonly hooks?: HookBus | undefined;
  /** svc_files rows and their contents: a file's delete removes its contents too. */
  readonly files?: FileLibrary;
}

/** The close code of every socket when the instance stops (RFC 6455's registry: Service Restart). */
const SERVICE_RESTART = 1012;
/** How long a socket has to answer the close frame before it is cut. */
const CLOSE_HANDSHAKE_MS = 2000;

/** What a listener's `upgrade` event gets; `close` ends every socket (1012, clients reconnect). */
export interface UpgradeHandler {
  (req: IncomingMessage, socket: Duplex, head: Buffer): void;
  close(): void;
}

/**
 * The WebSocket endpoints on the API's own HTTP server (WEBSOCKETS_*): the WebSocket protocol
 * at WEBSOCKETS_REST_PATH (src/realtime/websocket-protocol.ts), GraphQL subscriptions over
 * graphql-ws at WEBSOCKETS_GRAPHQL_PATH (user collections) and its `/system`. A token may come
 * with the upgrade (`access_token` query parameter or `Authorization: Bearer`); a bad one is
 * refused with 401 before the socket opens. Frames over WEBSOCKETS_MAX_MESSAGE_SIZE close the
 * socket (1009).
 */
export function websocketUpgrade(deps: WebsocketDeps): UpgradeHandler {
  const { websockets } = deps.config;
  // Socket messages count against the general rate limiters like HTTP requests (rate-limit.ts).
  const limitMessage = rateLimitPoint(deps.config, deps.rateLimitCounters);
  const server = new WebSocketServer({ noServer: true, maxPayload: websockets.maxMessageSize });
  const graphqlPaths = new Map([
    [websockets.graphql.path, 'items' as const],
    [`${websockets.graphql.path}/system`, 'system' as const],
  ]);
  // Who has which item open: the rooms of this process (src/realtime/presence.ts).
  const presence = new PresenceRooms();
  const graphql = websockets.graphql.enabled ? graphqlServer(deps, limitMessage) : undefined;
  const heartbeat = websockets.heartbeatMs > 0 ? startHeartbeat(server, websockets.heartbeatMs) : undefined;
  // Every accepted socket, of either protocol, is one of `server.clients` (handleUpgrade below).
  deps.metrics?.countRealtime({ sockets: () => server.clients.size, subscriptions: () => deps.live.size });

  /** Whether the upgrade may go on: it counts against the rate limiters like any request (rate-limit.ts). */
  const admit = async (req: IncomingMessage, socket: Duplex): Promise<boolean> => {
    try {
      await limitMessage?.(requestOrigin(deps.config, req).ip);
      return true;
    } catch (error) {
      if (!(error instanceof RequestsExceededError)) throw error;
      refuse(socket, 429, 'Too Many Requests', `Retry-After: ${error.retryAfterSeconds}\r\n`);
      return false;
    }
  };

  // The open sockets of each endpoint, for WEBSOCKETS_REST_CONN_LIMIT / WEBSOCKETS_GRAPHQL_CONN_LIMIT.
  const openSockets = { rest: new Set<WebSocket>(), graphql: new Set<WebSocket>() };

  const upgrade = async (req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> => {
    if (!(await admit(req, socket))) return;
    const url = new URL(req.url ?? '/', 'http://localhost');
    const scope = graphqlPaths.get(url.pathname);
    const isRest = websockets.rest.enabled && url.pathname === websockets.rest.path;
    if (!isRest && (scope === undefined || graphql === undefined)) {
      refuse(socket, 404, 'Not Found');
      return;
    }
    const token = url.searchParams.get('access_token') || bearerToken(req.headers.authorization);
    if (isRest && websockets.rest.auth === 'strict' && token === undefined) {
      refuse(socket, 401, 'Unauthorized');
      return;
    }
    const origin = requestOrigin(deps.config, req);
    try {
      if (token !== undefined) await new SocketCaller(deps, origin, token, () => undefined).caller();
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error;
      refuse(socket, 401, 'Unauthorized');
      return;
    }
    // Counted right before the upgrade, which completes at once: no other can slip in between.
    const endpoint = isRest ? 'rest' : 'graphql';
    const sockets = openSockets[endpoint];
    if (sockets.size >= websockets[endpoint].connLimit) {
      refuse(socket, 403, 'Forbidden');
      return;
    }
    server.handleUpgrade(req, socket, head, (ws) => {
      sockets.add(ws);
      ws.once('close', () => sockets.delete(ws));
      server.emit('connection', ws, req);
      if (isRest) new WebsocketSession({ ...deps, limitMessage, presence }, ws, origin, token);
      else graphql?.open(ws, req, scope ?? 'items');
    });
  };
  const handler = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    upgrade(req, socket, head).catch((error: unknown) => {
      deps.logger.warn({ err: error }, 'websocket: upgrade failed');
      refuse(socket, 500, 'Internal Server Error');
    });
  };
  return Object.assign(handler, {
    close() {
      clearInterval(heartbeat);
      // 1012 Service Restart: the client library and graphql-ws clients reconnect, through the
      // load balancer to another instance; a socket that does not finish the closing handshake is cut.
      for (const ws of server.clients) ws.close(SERVICE_RESTART, 'service restart');
      setTimeout(() => {
        for (const ws of server.clients) ws.terminate();
      }, CLOSE_HANDSHAKE_MS).unref();
      server.close();
      graphql?.close();
    },
  });
}

function refuse(socket: Duplex, status: number, text: string, headers = ''): void {
  socket.end(`HTTP/1.1 ${status} ${text}\r\n${headers}Connection: close\r\nContent-Length: 0\r\n\r\n`);
}

/** Pings every socket each period; one that did not answer the last ping is cut. */
function startHeartbeat(server: WebSocketServer, periodMs: number): NodeJS.Timeout {
  const alive = new WeakSet<WebSocket>();
  server.on('connection', (ws) => {
    alive.add(ws);
    ws.on('pong', () => alive.add(ws));
  });
  const timer = setInterval(() => {
    for (const ws of server.clients) {
      if (!alive.has(ws)) {
        ws.terminate();
        continue;
      }
      alive.delete(ws);
      ws.ping();
    }
  }, periodMs);
  timer.unref();
  return timer;
}

type GraphqlExtra = {
  readonly socket: WebSocket;
  readonly request: IncomingMessage;
};

/**
 * graphql-ws over one `ws` server per scope: `connection_init` may carry `{access_token}`
 * (else the upgrade's token, else the public role); only subscription operations run here
 * (queries and mutations go over HTTP). Each subscription's changes are read and checked
 * as the caller of now by LiveReads; a token that expires meanwhile closes the socket 4401
 * `TOKEN_EXPIRED`.
 */
function graphqlServer(deps: WebsocketDeps, limitMessage: ((ip: string | null) => Promise<void>) | undefined) {
  const { config } = deps;
  const store = new SchemaStore({ subscriptions: true });
  const preparer = new OperationPreparer(configuredLimits(config, 2));
  const callers = new WeakMap<WebSocket, SocketCaller>();
  const servers = (['items', 'system'] as const).map((scope) => {
    const wss = new WebSocketServer({ noServer: true });
    const server = useServer<Record<string, unknown> | undefined, GraphqlExtra>(
      {
        onConnect: async (ctx) => {
          const { socket, request } = ctx.extra;
          const given = ctx.connectionParams?.['access_token'];
          const url = new URL(request.url ?? '/', 'http://localhost');
          const token =
            (typeof given === 'string' && given !== '' ? given : undefined) ??
            (url.searchParams.get('access_token') || bearerToken(request.headers.authorization));
          const caller = new SocketCaller(
            deps,
            requestOrigin(config, request),
            token ?? undefined,
            (error) => {
              socket.close(4401, error.code);
            },
            laterFrames(socket),
          );
          try {
            await caller.caller();
          } catch {
            return false;
          }
          callers.set(socket, caller);
          return true;
        },
        onSubscribe: async (ctx, _id, payload): Promise<ExecutionArgs | readonly GraphQLError[]> => {
          const { socket } = ctx.extra;
          const caller = callers.get(socket);
          if (caller === undefined) return [new GraphQLError('Not connected')];
          try {
            await limitMessage?.(caller.origin.ip);
            // WEBSOCKETS_SUBSCRIPTION_LIMIT and _USER_LIMIT are counted by LiveReads when the
            // subscription starts (graphql-ws lists a burst's ids before this hook runs).
            const overview = await deps.schema.getOverview();
            const accountability = await caller.caller();
            const permissions = await loadPermissions(
              { db: deps.db, store: deps.permissions, overview },
              accountability,
            );
            const schema = store.get(overview, schemaAccessOf(accountability, permissions))[scope];
            const operationName = payload.operationName ?? undefined;
            const variables = payload.variables ?? undefined;
            const { document, operation } = preparer.prepare(schema, payload.query, operationName, variables);
            if (operation !== OperationTypeNode.SUBSCRIPTION)
              return [new GraphQLError('Only subscriptions run over WebSocket: send queries and mutations over HTTP')];
            const contextValue: SubscriptionContext = {
              read: { db: deps.db, overview, limits: queryLimits(config) },
              live: (collection, event, query) =>
                liveIterator(deps.live, {
                  connection: caller,
                  collection,
                  event,
                  query,
                  maxQueued: 10_000,
                  isBackedUp: () => socket.bufferedAmount > config.websockets.maxBufferedSize,
                  onOverflow: () => {
                    closeTooSlow(socket);
                  },
                }),
            };
            return {
              schema,
              document,
              operationName,
              variableValues: variables,
              contextValue,
            };
          } catch (error) {
            if (isServiceError(error)) {
              if (error.code === 'TOKEN_EXPIRED') socket.close(4401, error.code);
              return [toGraphqlError(error)];
            }
            throw error;
          }
        },
      },
      wss,
    );
    return { wss, server };
  });
  return {
    open(ws: WebSocket, req: IncomingMessage, scope: 'items' | 'system') {
      const { wss } = servers[scope === 'items' ? 0 : 1] ?? {};
      wss?.emit('connection', ws, req);
    },
    close() {
      for (const { wss, server } of servers) {
        void server.dispose();
        wss.close();
      }
    },
  };
}
