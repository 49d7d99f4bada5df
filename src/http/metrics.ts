import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Request, RequestHandler } from 'express';
import type { Knex } from 'knex';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { CacheLookup, DataCache } from '../cache/data-cache.js';
import type { Config } from '../config/index.js';
import { poolUsage } from '../db/health.js';
import { ForbiddenError } from '../errors.js';
import type { JobQueue } from '../jobs/job.js';

/** The label of a request no route took (ROUTE_NOT_FOUND, refused before routing): one series, not one per URL. */
const UNMATCHED_ROUTE = '(unmatched)';
/** Where a request answered before Express keeps its route pattern (request-door.ts sets it). */
const ROUTE = Symbol('metrics route');

type Routed = IncomingMessage & { [ROUTE]?: string };

/**
 * Prometheus metrics (METRICS_ENABLED) in a registry of this server's own, read by
 * GET /server/metrics:
 * - `svc_http_requests_total{method,route,status}` and `svc_http_request_duration_seconds`
 *   (histogram): every request of either door (request-door.ts observes them all), by route
 *   pattern (`/items/:collection`), never by URL;
 * - `svc_db_pool_connections{state}` (used, free, pending) and `svc_db_pool_max`;
 * - `svc_jobs_queue_depth{state}` (waiting, active, delayed);
 * - `svc_data_cache_lookups_total{result}` (hit, miss): the hit rate of the data cache;
 * - `svc_websocket_connections` and `svc_live_subscriptions` when WebSockets are enabled
 *   (websocket-upgrade.ts);
 * - Node's process metrics (`svc_process_*`, `svc_nodejs_*`).
 */
export class Metrics {
  readonly registry = new Registry();
  readonly #requests: Counter<'method' | 'route' | 'status'>;
  readonly #durations: Histogram<'method' | 'route' | 'status'>;
  readonly #cacheLookups: Counter<'result'>;

  constructor({ db, jobs }: { readonly db: Knex; readonly jobs: JobQueue }) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry, prefix: 'svc_' });
    this.#requests = new Counter({
      name: 'svc_http_requests_total',
      help: 'HTTP requests answered, by method, route pattern and status',
      labelNames: ['method', 'route', 'status'],
      registers,
    });
    this.#durations = new Histogram({
      name: 'svc_http_request_duration_seconds',
      help: 'Time from arrival to the last byte of the answer',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    this.#cacheLookups = new Counter({
      name: 'svc_data_cache_lookups_total',
      help: 'Data cache lookups of reads, by result (hit or miss)',
      labelNames: ['result'],
      registers,
    });
    new Gauge({
      name: 'svc_db_pool_connections',
      help: 'Database pool connections, by state (used, free, pending acquires)',
      labelNames: ['state'],
      registers,
      collect() {
        const pool = poolUsage(db);
        if (pool === undefined) return;
        this.set({ state: 'used' }, pool.used);
        this.set({ state: 'free' }, pool.free);
        this.set({ state: 'pending' }, pool.pending);
      },
    });
    new Gauge({
      name: 'svc_db_pool_max',
      help: 'The most connections the database pool opens',
      registers,
      collect() {
        const pool = poolUsage(db);
        if (pool !== undefined) this.set(pool.max);
      },
    });
    new Gauge({
      name: 'svc_jobs_queue_depth',
      help: 'Background jobs, by state (waiting, active, delayed); absent while Redis does not answer',
      labelNames: ['state'],
      registers,
      async collect() {
        this.reset();
        const depth = await jobs.depth().catch(() => undefined);
        if (depth === undefined) return;
        for (const state of ['waiting', 'active', 'delayed'] as const) this.set({ state }, depth[state]);
      },
    });
  }

  /**
   * `svc_websocket_connections` and `svc_live_subscriptions`: the open WebSockets (both
   * protocols) and the live-data subscriptions they hold, as the counts tell at each scrape.
   */
  countRealtime(count: { readonly sockets: () => number; readonly subscriptions: () => number }): void {
    const registers = [this.registry];
    new Gauge({
      name: 'svc_websocket_connections',
      help: 'Open WebSocket connections (the WebSocket protocol and GraphQL subscriptions)',
      registers,
      collect() {
        this.set(count.sockets());
      },
    });
    new Gauge({
      name: 'svc_live_subscriptions',
      help: 'Live-data subscriptions of the open WebSocket connections',
      registers,
      collect() {
        this.set(count.subscriptions());
      },
    });
  }

  /** Counts the request and its duration when its answer ends, whoever answered it. */
  observe(req: IncomingMessage, res: ServerResponse): void {
    const started = process.hrtime.bigint();
    res.once('finish', () => {
      const labels = { method: req.method ?? '', route: routeOf(req), status: String(res.statusCode) };
      this.#requests.inc(labels);
      this.#durations.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
    });
  }

  /** The data cache, its lookups counted as hits and misses. */
  countLookups(cache: DataCache): DataCache {
    const counter = this.#cacheLookups;
    return {
      ttlMs: cache.ttlMs,
      clear: () => cache.clear(),
      async lookup(key: string): Promise<CacheLookup> {
        const found = await cache.lookup(key);
        counter.inc({ result: found.hit === undefined ? 'miss' : 'hit' });
        return found;
      },
    };
  }
}

/** Names the route pattern of a request answered before Express. */
export function setRoute(req: IncomingMessage, route: string): void {
  (req as Routed)[ROUTE] = route;
}

/** The route pattern: set before Express, or Express's matched route under its router's mount path. */
function routeOf(req: IncomingMessage): string {
  const set = (req as Routed)[ROUTE];
  if (set !== undefined) return set;
  // Express types `route` any: what its router set, read as unknown.
  const { route, baseUrl } = req as Partial<Omit<Request, 'route'>> & { route?: unknown };
  const path: unknown = (route as { path?: unknown } | undefined)?.path;
  if (typeof path !== 'string') return UNMATCHED_ROUTE;
  // A router's own root (`router.post('/')` under `/collections`) is its mount path.
  const full = `${baseUrl ?? ''}${path}`;
  return full.length > 1 && full.endsWith('/') ? full.slice(0, -1) : full;
}

/** The metrics when METRICS_ENABLED, else undefined (nothing is observed). */
export function createMetrics(
  config: Config,
  deps: { readonly db: Knex; readonly jobs: JobQueue },
): Metrics | undefined {
  return config.metrics.enabled ? new Metrics(deps) : undefined;
}

/**
 * GET /server/metrics (Directus's route): the text format for an admin, or for
 * `Authorization: Metrics <token>` with a token of METRICS_TOKENS; anyone else FORBIDDEN.
 */
export function metricsRoute(metrics: Metrics, config: Config): RequestHandler {
  const tokens = config.metrics.tokens.map((token) => Buffer.from(token));
  return async (req, res) => {
    if (!req.accountability.admin && !hasMetricsToken(req.get('authorization'), tokens)) {
      throw new ForbiddenError();
    }
    res.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  };
}

function hasMetricsToken(authorization: string | undefined, tokens: readonly Buffer[]): boolean {
  const given = /^metrics\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
  if (given === undefined) return false;
  const bytes = Buffer.from(given);
  return tokens.some((token) => token.length === bytes.length && timingSafeEqual(token, bytes));
}
