import express, { type Express } from 'express';
import cookieParser from 'cookie-parser';
import type { Knex } from 'knex';
import type { PermissionStore } from '../access/permission-store.js';
import type { AuthServices } from '../auth/auth-context.js';
import type { CounterStore } from '../auth/counter-store.js';
import type { DataCache } from '../cache/data-cache.js';
import type { DataInvalidation } from '../cache/data-invalidation.js';
import type { Config } from '../config/index.js';
import type { Logger } from '../logger/index.js';
import type { SchemaCache } from '../cache/schema-cache.js';
import type { FileLibrary } from '../files/file-library.js';
import type { JobQueue } from '../jobs/job.js';
import type { Storage } from '../files/storage/create-storage.js';
import type { HookBus } from '../items/hooks.js';
import type { Metrics } from './metrics.js';
import type { RequestTraffic } from './traffic.js';
import type { Draining } from './draining.js';
import { resolveAccountability } from './request-pipeline.js';
import { proxyTrust } from './client-ip.js';
import { jsonBody } from './body.js';
import { rateLimiters } from './rate-limit.js';
import { cacheGraphql, cacheReads } from './response-cache.js';
import { refuseUndecodablePaths } from './url-path.js';
import { createErrorHandler } from './error-handler.js';
import { routeMethodAnswers } from './route-methods.js';
import { authRoutes } from './routes/auth.js';
import { ssoRoutes } from './routes/auth-sso.js';
import { usersTfaRoutes } from './routes/users-tfa.js';
import { usersMeRoutes } from './routes/users-me.js';
import { usersAccountRoutes } from './routes/users-accounts.js';
import { flowTriggerRoutes, type FlowDeps } from '../flows/index.js';
import { itemWriteRoutes, SYSTEM_WRITE_ROUTES, systemWriteRoutes } from './routes/item-writes.js';
import { activityCommentRoutes } from './routes/activity-comments.js';
import { serverRoutes } from './routes/server.js';
import { cacheRoutes } from './routes/cache.js';
import { collectionRoutes } from './routes/collections.js';
import { fieldRoutes } from './routes/fields.js';
import { relationRoutes } from './routes/relations.js';
import { schemaRoutes } from './routes/schema.js';
import { utilsWriteRoutes } from './routes/utils-writes.js';
import { itemsReadRoutes } from './routes/items-read.js';
import { historyRoutes } from './routes/history.js';
import { versionRoutes } from './routes/versions.js';
import { idempotencyStep } from './idempotency.js';
import { permissionsMeRoutes } from './routes/permissions-me.js';
import { permissionsPreviewRoutes } from './routes/permissions-preview.js';
import { assetRoutes } from './routes/assets.js';
import { fileWriteRoutes } from './routes/files.js';
import { utilsTransferRoutes } from './routes/utils-transfer.js';
import { utilsValueRoutes } from './routes/utils-values.js';
import { utilsMailRoutes } from './routes/utils-mail.js';
import { graphqlEndpoint, graphqlRoutes, graphqlSpecRoutes, openApiRoutes } from './routes/graphql.js';
import { SchemaStore } from '../graphql/index.js';
import { consoleRoutes } from './console.js';
import './request.js';

export interface AppDeps {
  readonly config: Config;
  readonly db: Knex;
  readonly logger: Logger;
  /** The schema overview (getOverview) and its invalidation after schema changes. */
  readonly schema: SchemaCache;
  readonly auth: AuthServices;
  /** Told after writes which collections changed (caches of rows, on every instance). */
  readonly invalidation: DataInvalidation;
  /** Compiled permission rules per role (src/access/README.md: loadPermissions per request). */
  readonly permissions: PermissionStore;
  /** File contents per storage location (STORAGE_*). */
  readonly storage: Storage;
  /** svc_files rows and their contents, kept in step. */
  readonly files: FileLibrary;
  /** Background jobs (exports): bull with Redis, in-process without. */
  readonly jobs: JobQueue;
  /** The data cache of reads (CACHE_ENABLED), cleared after writes; undefined when off. */
  readonly dataCache: DataCache | undefined;
  /** Counters of the general rate limiters (RATE_LIMITER_STORE); unused when they are off. */
  readonly rateLimitCounters: CounterStore;
  /** Prometheus metrics (METRICS_ENABLED): counted by request-door.ts, read at /server/metrics. */
  readonly metrics?: Metrics | undefined;
  /** The requests in flight, counted by request-door.ts: long writes give way to them. */
  readonly traffic?: RequestTraffic;
  /** Flows' collaborators (src/flows): `/flows/trigger/:id` is served when given. */
  readonly flows?: FlowDeps;
  /**
   * The process's filter and action events (src/items/hooks.ts): the items service runs
   * `items.*` around every write, extensions register into it.
   */
  readonly hooks: HookBus;
  /** Set on SIGTERM: /server/health answers `draining`, answers close their connections (draining.ts). */
  readonly draining?: Draining;
}

/** Directus 10's init events, at their points of the app's composition (src/extensions runs them). */
type AppInitEvent =
  | 'app.before'
  | 'middlewares.before'
  | 'middlewares.after'
  | 'routes.before'
  | 'routes.custom.before'
  | 'routes.custom.after'
  | 'routes.after'
  | 'app.after';

/**
 * What extensions add to the app, composed by server.ts (http never imports src/extensions):
 * their init handlers, given `{ app }`, and their endpoints, after the service's own routes.
 */
export interface AppExtensions {
  init(event: AppInitEvent, meta: { readonly app: Express }): Promise<void>;
  mountEndpoints(app: Express): void;
}

/**
 * The Express app, behind request-door.ts: ping before anything else, the rate limiters, body parsing,
 * accountability, the routers (reads and GraphQL behind the data cache), OPTIONS and
 * METHOD_NOT_ALLOWED from the routes' methods, ROUTE_NOT_FOUND for the rest, and the one
 * error handler.
 */
export async function createApp(deps: AppDeps, extensions?: AppExtensions): Promise<Express> {
  const { config, logger } = deps;
  const app = express();
  app.disable('x-powered-by');
  // req.ip, req.protocol and req.hostname trust the proxies client-ip.ts trusts.
  app.set('trust proxy', proxyTrust(config));
  app.set('query parser', 'extended');
  await extensions?.init('app.before', { app });
  await extensions?.init('middlewares.before', { app });

  // Ping is answered before authentication and never fails.
  app.get('/server/ping', (_req, res) => {
    res.type('text/html; charset=utf-8').send('pong');
  });

  // The request's log line, metrics and envelope headers: request-door.ts, before this app.
  app.use(refuseUndecodablePaths);
  const limiters = rateLimiters(config, deps.rateLimitCounters);
  if (limiters.length > 0) app.use(limiters);
  // OPTIONS: `Allow` from the route table, before authentication (route-methods.ts).
  const methods = routeMethodAnswers(app);
  app.use(methods.options);
  app.use(cookieParser());
  // Auth routes are public and answered before the token is resolved (routes/auth.ts).
  app.use('/auth', ssoRoutes(deps));
  app.use('/auth', ...jsonBody(config.maxPayloadSize, config.db.client), authRoutes(deps.auth));
  app.use(resolveAccountability(deps));
  app.use(...jsonBody(config.maxPayloadSize, config.db.client));
  // A write's Idempotency-Key, once caller and body are known: a retry answered as the first time.
  app.use(idempotencyStep(deps.db));
  await extensions?.init('middlewares.after', { app });
  await extensions?.init('routes.before', { app });

  app.get('/robots.txt', (_req, res) => {
    res.type('text/plain').send(config.robotsTxt);
  });
  if (config.rootRedirect !== false) {
    const target = config.rootRedirect;
    app.get('/', (_req, res) => {
      res.redirect(target);
    });
  }

  // The Subscription root is described over HTTP too (SDL, introspection: GraphiQL finds the
  // `<collection>_mutated` roots) when graphql-ws serves it; running one over HTTP is refused.
  const graphqlSchemas = new SchemaStore({
    subscriptions: config.websockets.enabled && config.websockets.graphql.enabled,
  });
  // First of the routes: Express tries each route mounted before it on every request, which cost
  // a GraphQL query more CPU than its reads when it came last (bench/README.md).
  const graphql = graphqlEndpoint(app, config, graphqlSchemas);
  app.use('/graphql', graphqlRoutes(deps, graphql, cacheGraphql(deps)));
  app.use('/server', serverRoutes(deps));
  // Before the system collection routes: /users/me, /users/me/tfa/*, /users/:id/tfa/disable,
  // /users/invite* and /users/register* are not items.
  app.use('/users', usersTfaRoutes({ db: deps.db, changed: (collections) => deps.invalidation.changed(collections) }));
  app.use('/users', usersMeRoutes(deps));
  app.use('/users', usersAccountRoutes(deps));
  const schemaContext = { db: deps.db, schema: deps.schema, reporter: logger, permissions: deps.permissions };
  app.use('/collections', collectionRoutes(schemaContext));
  app.use('/fields', fieldRoutes(schemaContext));
  app.use('/relations', relationRoutes(schemaContext));
  app.use(
    '/schema',
    schemaRoutes({ ...schemaContext, excludeTables: config.db.excludeTables, maxPayloadSize: config.maxPayloadSize }),
  );
  app.use('/utils/cache', cacheRoutes(deps));
  app.use(
    '/utils/mail',
    utilsMailRoutes({
      mailer: deps.auth.mailer,
      projectName: async () => {
        const row = await deps.db('svc_settings').first<{ project_name?: unknown } | undefined>('project_name');
        return typeof row?.project_name === 'string' ? row.project_name : 'the content data service';
      },
    }),
  );
  // Before the svc_permissions item routes: /permissions/me* are not items.
  app.use('/permissions', permissionsMeRoutes(deps));
  app.use('/permissions', permissionsPreviewRoutes(deps));
  app.use(historyRoutes(deps));
  app.use('/versions', versionRoutes(deps));
  const { flows } = deps;
  if (flows !== undefined)
    app.use(
      '/flows',
      flowTriggerRoutes(() => flows),
    );
  app.use(itemsReadRoutes(deps, (collectionOf) => cacheReads(deps, collectionOf)));
  app.use('/assets', assetRoutes(deps));
  app.use('/files', fileWriteRoutes(deps, { withImport: true }));
  app.use(['/items/svc_files', '/items/directus_files'], fileWriteRoutes(deps, { withImport: false }));
  app.use('/items', itemWriteRoutes(deps));
  app.use('/utils', utilsValueRoutes());
  app.use('/utils', utilsWriteRoutes(deps));
  app.use('/utils', utilsTransferRoutes(deps));
  for (const [path, collection, options] of SYSTEM_WRITE_ROUTES)
    app.use(path, systemWriteRoutes(deps, collection, options));
  app.use('/activity/comment', activityCommentRoutes(deps));
  app.use('/server/specs/graphql', graphqlSpecRoutes(deps, graphql));
  app.use('/server/specs/oas', openApiRoutes(deps));
  app.use('/admin', consoleRoutes());
  await extensions?.init('routes.custom.before', { app });
  extensions?.mountEndpoints(app);
  await extensions?.init('routes.custom.after', { app });

  // No route answered: METHOD_NOT_ALLOWED where routes have other methods, else ROUTE_NOT_FOUND.
  app.use(methods.notFound);
  app.use(createErrorHandler({ logger, dialect: config.db.client, schema: deps.schema }));
  await extensions?.init('routes.after', { app });
  await extensions?.init('app.after', { app });
  return app;
}
