import type { EnvReader } from './env-reader.js';

/** WEBSOCKETS_*: the live-data endpoints (src/realtime). */
export interface WebsocketsConfig {
  /** WEBSOCKETS_ENABLED: without it neither endpoint exists (upgrades are refused). */
  readonly enabled: boolean;
  readonly rest: {
    readonly enabled: boolean;
    readonly path: string;
    /** public: no auth needed; handshake: `auth` first (or a token on connect); strict: a token on connect. */
    readonly auth: 'public' | 'handshake' | 'strict';
    /** How long a handshake connection may stay unauthenticated. */
    readonly authTimeoutMs: number;
    /** Connections open at once (WEBSOCKETS_REST_CONN_LIMIT); Infinity: no limit. */
    readonly connLimit: number;
  };
  /** connLimit: WEBSOCKETS_GRAPHQL_CONN_LIMIT, for /graphql and /graphql/system together. */
  readonly graphql: { readonly enabled: boolean; readonly path: string; readonly connLimit: number };
  /** 0: no heartbeat. */
  readonly heartbeatMs: number;
  /** Subscriptions one connection may hold at once. */
  readonly subscriptionLimit: number;
  /** Subscriptions one user (the public role: one address) may hold at once over all its connections to this instance. */
  readonly subscriptionUserLimit: number;
  /** The largest frame accepted; bigger ones close the connection (1009). */
  readonly maxMessageSize: number;
  /** Bytes queued for a client that does not read before it is disconnected (1008). */
  readonly maxBufferedSize: number;
}

/** Seconds as Directus writes them (`30`), or a duration (`30s`, `500ms`). */
function seconds(env: EnvReader, name: string, fallback: number): number {
  const value = env.string(name);
  if (value === undefined) return fallback * 1000;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  return env.duration(name, fallback * 1000);
}

/** Directus 10's connection limits: `Infinity` (the default) or a count. */
function connLimit(env: EnvReader, name: string): number {
  return env.string(name) === 'Infinity' ? Infinity : env.int(name, Infinity, { min: 1 });
}

export function readWebsocketsConfig(env: EnvReader): WebsocketsConfig {
  const enabled = env.bool('WEBSOCKETS_ENABLED', false);
  return {
    enabled,
    rest: {
      enabled: env.bool('WEBSOCKETS_REST_ENABLED', true),
      path: env.string('WEBSOCKETS_REST_PATH', '/websocket'),
      auth: env.oneOf('WEBSOCKETS_REST_AUTH', ['public', 'handshake', 'strict'] as const, 'handshake'),
      authTimeoutMs: seconds(env, 'WEBSOCKETS_REST_AUTH_TIMEOUT', 10),
      connLimit: connLimit(env, 'WEBSOCKETS_REST_CONN_LIMIT'),
    },
    graphql: {
      enabled: env.bool('WEBSOCKETS_GRAPHQL_ENABLED', true),
      path: env.string('WEBSOCKETS_GRAPHQL_PATH', '/graphql'),
      connLimit: connLimit(env, 'WEBSOCKETS_GRAPHQL_CONN_LIMIT'),
    },
    heartbeatMs: env.bool('WEBSOCKETS_HEARTBEAT_ENABLED', true) ? seconds(env, 'WEBSOCKETS_HEARTBEAT_PERIOD', 30) : 0,
    subscriptionLimit: env.int('WEBSOCKETS_SUBSCRIPTION_LIMIT', 100, { min: 1 }),
    subscriptionUserLimit: env.int('WEBSOCKETS_SUBSCRIPTION_USER_LIMIT', 500, { min: 1 }),
    maxMessageSize: env.size('WEBSOCKETS_MAX_MESSAGE_SIZE', '1mb'),
    maxBufferedSize: env.size('WEBSOCKETS_MAX_BUFFERED_SIZE', '4mb'),
  };
}
