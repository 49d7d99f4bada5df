import { Router } from 'express';
import type { Knex } from 'knex';
import type { Config } from '../../config/index.js';
import type { HealthCheck } from '../../db/health.js';
import type { Storage } from '../../files/storage/create-storage.js';
import { metricsRoute, type Metrics } from '../metrics.js';
import { checkHealth } from '../server-health.js';
import { SERVICE_VERSION } from '../../version.js';
import { PUBLIC_PROJECT_SETTINGS } from '../../../catalog/system/definitions.js';
import type { Accountability } from '../../access/accountability.js';
import type { WebsocketsConfig } from '../../config/websockets.js';
import type { Draining } from '../draining.js';

const PUBLIC_PROJECT_FIELDS = [...PUBLIC_PROJECT_SETTINGS.text, ...PUBLIC_PROJECT_SETTINGS.boolean];
const BOOLEAN_SETTINGS: ReadonlySet<string> = new Set(PUBLIC_PROJECT_SETTINGS.boolean);

export interface ServerRouteDeps {
  readonly config: Config;
  readonly db: Knex;
  /** The storage locations, each checked writable by /server/health. */
  readonly storage?: Storage;
  /** Prometheus metrics (METRICS_ENABLED); /server/metrics is served only with them. */
  readonly metrics?: Metrics | undefined;
  /** The mail transport's state (`email:connection`), once verified or used. */
  readonly auth?: { readonly mailer: { health(): HealthCheck | undefined } };
  /** Told to stop: /server/health answers 503 `draining` without checking anything (draining.ts). */
  readonly draining?: Draining | undefined;
}

/**
 * GET /server/info's data: the public project settings; any
 * authenticated caller also gets the limits and versions; administrators also the defaults of
 * the settings they edit (`exports.retention`: EXPORT_RETENTION as written, null when it keeps
 * exports). GraphQL's `server_info` too.
 */
export async function readServerInfo(
  { config, db }: Pick<ServerRouteDeps, 'config' | 'db'>,
  accountability: Accountability,
): Promise<Record<string, unknown>> {
  const row = await db('svc_settings').first<Readonly<Record<string, unknown>> | undefined>(PUBLIC_PROJECT_FIELDS);
  const project = Object.fromEntries(
    PUBLIC_PROJECT_FIELDS.map((f) => {
      const value: unknown = row?.[f] ?? null;
      // SQLite and MySQL hand booleans back as 0/1.
      return [f, BOOLEAN_SETTINGS.has(f) && value !== null ? Boolean(value) : value];
    }),
  );
  const data: Record<string, unknown> = { project };
  if (accountability.user !== null) {
    data['rateLimit'] = config.rateLimiter.enabled
      ? { points: config.rateLimiter.points, duration: config.rateLimiter.durationSeconds }
      : false;
    data['rateLimitGlobal'] = false;
    data['queryLimit'] = {
      default: config.queryLimitDefault,
      max: Number.isFinite(config.queryLimitMax) ? config.queryLimitMax : -1,
    };
    data['websocket'] = websocketInfo(config.websockets);
    data['version'] = SERVICE_VERSION;
  }
  if (accountability.admin) data['exports'] = { retention: config.retention.exportText };
  return data;
}

/**
 * `websocket` of /server/info as Directus 10 gives it: false when WEBSOCKETS_ENABLED is off,
 * else where each endpoint is and how it authenticates (false for one turned off), and the
 * heartbeat period in seconds (false without one). graphql-ws connections authenticate in
 * `connection_init` (Directus's `handshake`).
 */
function websocketInfo(ws: WebsocketsConfig): false | Record<string, unknown> {
  if (!ws.enabled) return false;
  return {
    rest: ws.rest.enabled ? { authentication: ws.rest.auth, path: ws.rest.path } : false,
    graphql: ws.graphql.enabled ? { authentication: 'handshake', path: ws.graphql.path } : false,
    heartbeat: ws.heartbeatMs > 0 ? ws.heartbeatMs / 1000 : false,
  };
}

/**
 * GET /server/health's body: status for everyone, the checks for admins. GraphQL's `server_health` too.
 * An instance told to stop is `draining` (answered 503, so a load balancer takes it out), checks or not.
 */
export async function readHealth(
  deps: ServerRouteDeps,
  accountability: Accountability,
): Promise<{ status: string } & Record<string, unknown>> {
  if (deps.draining?.isDraining === true) return { status: 'draining' };
  const { status, checks } = await checkHealth(deps);
  return accountability.admin ? { status, releaseId: SERVICE_VERSION, serviceId: deps.config.key, checks } : { status };
}

/** /server/info, /server/health, /server/metrics (ping is app.ts's). */
export function serverRoutes(deps: ServerRouteDeps): Router {
  const { config, db } = deps;
  const router = Router();

  router.get('/info', async (req, res) => {
    res.json({ data: await readServerInfo({ config, db }, req.accountability) });
  });

  router.get('/health', async (req, res) => {
    const body = await readHealth(deps, req.accountability);
    res
      .status(body.status === 'ok' || body.status === 'warn' ? 200 : 503)
      .type('application/health+json')
      .send(JSON.stringify(body));
  });

  if (deps.metrics !== undefined) router.get('/metrics', metricsRoute(deps.metrics, config));

  return router;
}
