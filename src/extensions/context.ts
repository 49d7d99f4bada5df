import type { Knex } from 'knex';
import type { ActionHandler, FilterHandler, HookBus, HookContext, HookMeta } from '../items/hooks.js';
import type { Logger } from '../logger/index.js';
import type { DirectusSchemaOverview } from './directus-schema.js';
import { EXCEPTIONS } from './exceptions.js';
import type { ExtensionServices } from './services.js';

/** Directus 10's init events, in the order a start passes them (http/app.ts names the points). */
export const INIT_EVENTS = [
  'app.before',
  'middlewares.before',
  'middlewares.after',
  'routes.before',
  'routes.custom.before',
  'routes.custom.after',
  'routes.after',
  'app.after',
] as const;
export type InitEvent = (typeof INIT_EVENTS)[number];

export type InitHandler = (meta: Readonly<Record<string, unknown>>) => unknown;

interface Owned<H> {
  readonly owner: string;
  readonly handler: H;
}

/**
 * The init handlers of every extension, run at their point of the start, each awaited in
 * registration order; one that throws is one error line naming its extension, and the start
 * goes on.
 */
export class InitEvents {
  private readonly handlers = new Map<string, Owned<InitHandler>[]>();

  constructor(private readonly logger: Logger) {}

  /** Whether any extension has a handler for the event. */
  listens(event: string): boolean {
    return (this.handlers.get(event)?.length ?? 0) > 0;
  }

  on(event: string, handler: InitHandler, owner: string): void {
    const list = this.handlers.get(event) ?? [];
    list.push({ owner, handler });
    this.handlers.set(event, list);
  }

  async run(event: string, meta: Readonly<Record<string, unknown>>): Promise<void> {
    for (const { owner, handler } of this.handlers.get(event) ?? []) {
      try {
        await handler(meta);
      } catch (error) {
        this.logger.error({ err: error, extension: owner, event }, `extension "${owner}": the "${event}" init failed`);
      }
    }
  }
}

/**
 * Directus 10's `emitter` of the extension context: other extensions' events and custom ones,
 * over the same HookBus the items service and auth run.
 */
export interface ExtensionEmitter {
  onFilter(event: string, handler: FilterHandler): void;
  onAction(event: string, handler: ActionHandler): void;
  onInit(event: string, handler: InitHandler): void;
  emitFilter<T>(event: string, payload: T, meta?: HookMeta, context?: Partial<HookContext>): Promise<T>;
  emitAction(event: string, meta?: HookMeta, context?: Partial<HookContext>): void;
  emitInit(event: string, meta?: Readonly<Record<string, unknown>>): Promise<void>;
}

/** The second argument of a hook's or an endpoint's register function, as Directus 10 documents it. */
export interface ExtensionContext {
  readonly services: ExtensionServices;
  readonly exceptions: typeof EXCEPTIONS;
  readonly database: Knex;
  readonly getSchema: () => Promise<DirectusSchemaOverview>;
  readonly env: Readonly<Record<string, string>>;
  readonly logger: Logger;
  readonly emitter: ExtensionEmitter;
}

export interface ContextDeps {
  readonly db: Knex;
  readonly getSchema: () => Promise<DirectusSchemaOverview>;
  readonly env: Readonly<Record<string, string>>;
  readonly logger: Logger;
  readonly hooks: HookBus;
  readonly init: InitEvents;
  readonly services: ExtensionServices;
}

/** The context of extension `owner`: its logger names it, and what it registers through `emitter` is its own. */
export function extensionContext(owner: string, deps: ContextDeps): ExtensionContext {
  const { db, hooks, init } = deps;
  const fullContext = (context: Partial<HookContext> = {}): HookContext => ({
    database: context.database ?? db,
    schema: context.schema ?? null,
    accountability: context.accountability ?? null,
  });
  return {
    services: deps.services,
    exceptions: EXCEPTIONS,
    database: db,
    getSchema: deps.getSchema,
    env: deps.env,
    logger: deps.logger.child({ extension: owner }),
    emitter: {
      onFilter: (event, handler) => {
        hooks.filter(event, handler, owner);
      },
      onAction: (event, handler) => {
        hooks.action(event, handler, owner);
      },
      onInit: (event, handler) => {
        init.on(event, handler, owner);
      },
      emitFilter: (event, payload, meta = {}, context) => hooks.runFilter([event], payload, meta, fullContext(context)),
      emitAction: (event, meta = {}, context) => {
        hooks.runAction([event], meta, fullContext(context));
      },
      emitInit: (event, meta = {}) => init.run(event, meta),
    },
  };
}
