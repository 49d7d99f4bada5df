import type { Server } from 'node:http';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import type { Redis } from 'ioredis';
import type { Knex } from 'knex';
import type { SchemaCache } from '../cache/schema-cache.js';
import type { Config } from '../config/index.js';
import { HookError, type HookBus } from '../items/hooks.js';
import type { Logger } from '../logger/index.js';
import { extensionContext, InitEvents, type ContextDeps, type InitEvent } from './context.js';
import { toDirectusSchema } from './directus-schema.js';
import { discoverExtensions, type ApiExtensionType, type ExtensionEntry } from './discover.js';
import { loadOperation } from './operations.js';
import { collectHook, endpointOf, importExtension, type EndpointRegistration } from './register.js';
import { Scheduler } from './schedule.js';
import { registerSdkShims } from './sdk-shim.js';
import { extensionServices, type ServicesDeps } from './services.js';

export { INIT_EVENTS, type InitEvent } from './context.js';

export interface ExtensionDeps {
  readonly config: Config;
  readonly db: Knex;
  readonly schema: Pick<SchemaCache, 'getOverview'>;
  readonly logger: Logger;
  /** The process's filter and action events: the items service and auth run what hooks register here. */
  readonly hooks: HookBus;
  /** false: `schedule()` registers nothing (the command line runs no schedules). */
  readonly schedules?: boolean;
  /** The process's Redis bus's command connection: schedules claim their ticks there (none: every tick runs here). */
  readonly redis?: Redis | undefined;
  /** Only extensions of these types are loaded (a worker: operations); all when unset. */
  readonly types?: readonly ApiExtensionType[];
  /** The items service per collection and caller, behind `context.services.ItemsService` and the others. */
  readonly items: ServicesDeps['items'];
  /** How `services.MailService` sends (the service's own mailer). */
  readonly sendMail?: ServicesDeps['sendMail'];
}

/**
 * The extensions loaded from EXTENSIONS_PATH: the app composition runs `init` at Directus 10's
 * points and mounts the endpoints; `started` emits `server.start`; `close` stops the schedules.
 */
export interface Extensions {
  /** The extensions that loaded, by name. */
  readonly names: readonly string[];
  /** Runs an init event's handlers (Directus 10's app events, `cli.before` / `cli.after`). */
  init(event: InitEvent | 'cli.before' | 'cli.after', meta: Readonly<Record<string, unknown>>): Promise<void>;
  /** Mounts each endpoint's router under `/<id or name>`. */
  mountEndpoints(app: Express): void;
  /**
   * Whether an init handler may put something in front of the service's routes (`app.before`,
   * `middlewares.*`, `routes.before`): then every request goes through Express, which runs it.
   */
  readonly precedesRoutes: boolean;
  started(server: Server): void;
  close(): Promise<void>;
}

/** The init events whose handlers run before the service's routes (http/app.ts). */
const ROUTE_PRECEDING_EVENTS: readonly InitEvent[] = [
  'app.before',
  'middlewares.before',
  'middlewares.after',
  'routes.before',
];

interface LoadedEndpoint extends EndpointRegistration {
  readonly name: string;
}

/**
 * Loads every extension of EXTENSIONS_PATH (src/extensions/README.md): hooks register their
 * filters and actions into `hooks`, their schedules and init handlers here; endpoints wait for
 * `mountEndpoints`. An extension that fails to load is one error line naming it, and the
 * service starts without it.
 */
export async function loadExtensions(deps: ExtensionDeps): Promise<Extensions> {
  const { config, logger } = deps;
  const discovery = discoverExtensions(config.extensions.path);
  for (const { name, reason } of discovery.problems) logger.error(`extension "${name}" not loaded: ${reason}`);
  if (discovery.skipped.length > 0) {
    logger.info(`extensions without an API part here, skipped: ${discovery.skipped.join(', ')}`);
  }
  const init = new InitEvents(logger);
  const scheduler = new Scheduler({ redis: deps.redis, namespace: config.cache.namespace, logger });
  const contextDeps: ContextDeps = {
    db: deps.db,
    getSchema: async () => toDirectusSchema(await deps.schema.getOverview()),
    env: config.extensions.env,
    logger,
    hooks: deps.hooks,
    init,
    services: extensionServices({
      items: deps.items,
      getOverview: () => deps.schema.getOverview(),
      ...(deps.sendMail === undefined ? {} : { sendMail: deps.sendMail }),
    }),
  };
  if (discovery.entries.length > 0) registerSdkShims();

  const names: string[] = [];
  const endpoints: LoadedEndpoint[] = [];
  // Operations join the flows' registry of this process: removed again on close.
  const operationRemovals: (() => void)[] = [];
  const { types } = deps;
  for (const entry of discovery.entries) {
    if (types !== undefined && !types.includes(entry.type)) continue;
    try {
      const loaded = await loadOne(entry, contextDeps, scheduler);
      if (loaded !== undefined) endpoints.push(loaded);
      names.push(entry.name);
    } catch (error) {
      logger.error({ err: error, extension: entry.name }, `extension "${entry.name}" not loaded: ${describe(error)}`);
    }
  }
  if (names.length > 0) logger.info({ extensions: names }, `extensions loaded: ${names.join(', ')}`);

  return {
    names,
    init: (event, meta) => init.run(event, meta),
    precedesRoutes: ROUTE_PRECEDING_EVENTS.some((event) => init.listens(event)),
    mountEndpoints(app) {
      for (const endpoint of endpoints) mountEndpoint(app, endpoint, contextDeps);
    },
    started(server) {
      deps.hooks.runAction(['server.start'], { server }, { database: deps.db, schema: null, accountability: null });
    },
    close() {
      for (const remove of operationRemovals) remove();
      scheduler.close();
      return Promise.resolve();
    },
  };

  async function loadOne(
    entry: ExtensionEntry,
    context: ContextDeps,
    jobs: Scheduler,
  ): Promise<LoadedEndpoint | undefined> {
    if (entry.type === 'operation') {
      operationRemovals.push(await loadOperation(entry, context, deps.config.extensions));
      return undefined;
    }
    const config = await importExtension(entry);
    if (entry.type === 'endpoint') return { ...endpointOf(config, entry.name), name: entry.name };
    const registered = await collectHook(config, extensionContext(entry.name, context));
    // Schedules first: an invalid cron expression refuses the whole extension.
    if (deps.schedules !== false) {
      for (const { cron, handler } of registered.schedules) jobs.add(entry.name, cron, handler);
    }
    for (const { event, handler } of registered.filters) context.hooks.filter(event, handler, entry.name);
    for (const { event, handler } of registered.actions) context.hooks.action(event, handler, entry.name);
    for (const { event, handler } of registered.inits) context.init.on(event, handler, entry.name);
    return undefined;
  }
}

/**
 * One endpoint's router under `/<id>`: `req.schema` set for its handlers (as Directus sets it),
 * and what they throw told apart from the service's own failures (error-handler.ts names the
 * extension when it becomes a 500).
 */
function mountEndpoint(app: Express, endpoint: LoadedEndpoint, deps: ContextDeps): void {
  const router = express.Router();
  const failed = (error: unknown) => {
    deps.logger.error(
      { err: error, extension: endpoint.name },
      `extension "${endpoint.name}": its endpoint failed to register (${describe(error)})`,
    );
  };
  try {
    // An async register function (routes added after an await) is not waited for, as in Directus.
    const registering = endpoint.handler(router, extensionContext(endpoint.name, deps));
    if (registering instanceof Promise) registering.catch(failed);
  } catch (error) {
    deps.logger.error(
      { err: error, extension: endpoint.name },
      `extension "${endpoint.name}" not loaded: its endpoint failed to register (${describe(error)})`,
    );
    return;
  }
  const withSchema = async (req: Request, _res: Response, next: NextFunction) => {
    (req as Request & { schema?: unknown }).schema = await deps.getSchema();
    next();
  };
  const tagErrors = (err: unknown, req: Request, _res: Response, next: NextFunction) => {
    next(
      err instanceof HookError
        ? err
        : new HookError(endpoint.name, `${req.method} ${req.originalUrl}`, err, 'endpoint'),
    );
  };
  app.use(`/${endpoint.id}`, withSchema, router, tagErrors);
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
