import type { Knex } from 'knex';
import type { SchemaOverview } from '../../catalog/overview/types.js';
import type { Accountability } from '../access/accountability.js';
import { isServiceError, ServiceErrorList } from '../errors.js';

/**
 * What a hook handler is given besides its payload and meta, as Directus 10 passes it: the
 * database (the write's transaction inside a filter), the schema, and who is calling (null for
 * the service's own work).
 */
export interface HookContext {
  readonly database: Knex;
  readonly schema: SchemaOverview | null;
  readonly accountability: Accountability | null;
}

/** Meta of an event: `{collection}`, `{collection, keys}`, `{payload, key, collection}`... */
export type HookMeta = Readonly<Record<string, unknown>>;

/** Returns the payload to go on with; undefined keeps the one it was given. Throwing refuses the event. */
export type FilterHandler = (payload: unknown, meta: HookMeta, context: HookContext) => unknown;

/** Runs after the event happened (after the commit of a write); its outcome changes nothing. */
export type ActionHandler = (meta: HookMeta, context: HookContext) => unknown;

interface Registered<H> {
  readonly handler: H;
  /** The extension that registered it: named in logs when it throws. */
  readonly owner: string;
}

/** Where an action's failure is told: it has no caller to answer. */
export type HookFailureLog = (failure: {
  readonly owner: string;
  readonly event: string;
  readonly err: unknown;
}) => void;

/**
 * The filter and action events of one process (Directus 10's emitter): extensions register
 * handlers by event name (`items.create`, `articles.items.create`, `auth.login`, ...), the items
 * service and auth run them. Filters run in registration order, each on the payload the one
 * before it returned; actions run after the fact, each on its own, and never fail the event.
 */
export class HookBus {
  private readonly filters = new Map<string, Registered<FilterHandler>[]>();
  private readonly actions = new Map<string, Registered<ActionHandler>[]>();

  constructor(private readonly onActionFailure: HookFailureLog = () => undefined) {}

  filter(event: string, handler: FilterHandler, owner: string): void {
    listOf(this.filters, event).push({ handler, owner });
  }

  action(event: string, handler: ActionHandler, owner: string): void {
    listOf(this.actions, event).push({ handler, owner });
  }

  /** Whether any handler listens to one of `events`: callers skip building meta when none does. */
  listens(events: readonly string[]): boolean {
    return events.some((event) => this.filters.has(event) || this.actions.has(event));
  }

  /**
   * Runs the filters of each of `events` in turn (the generic name first, then the collection's:
   * `items.create`, `articles.items.create`) on the payload; returns what the last one returned.
   * A handler that throws refuses the event: the error reaches the caller, with its owner named.
   */
  async runFilter<T>(events: readonly string[], payload: T, meta: HookMeta, context: HookContext): Promise<T> {
    let current = payload;
    for (const event of events) {
      for (const { handler, owner } of this.filters.get(event) ?? []) {
        try {
          const next = (await handler(current, meta, context)) as T | undefined;
          if (next !== undefined) current = next;
        } catch (error) {
          throw new HookError(owner, event, error);
        }
      }
    }
    return current;
  }

  /**
   * Starts the actions of each of `events` once the current turn of the event loop is over
   * (the write that emits them goes on to its answer first); does not wait for them. A failure
   * is logged with its owner.
   */
  runAction(events: readonly string[], meta: HookMeta, context: HookContext): void {
    const handlers = events.flatMap((event) => (this.actions.get(event) ?? []).map((one) => ({ ...one, event })));
    if (handlers.length === 0) return;
    setImmediate(() => {
      for (const { handler, owner, event } of handlers) {
        void Promise.resolve()
          .then(() => handler(meta, context))
          .catch((err: unknown) => {
            this.onActionFailure({ owner, event, err });
          });
      }
    });
  }
}

/**
 * A filter handler's refusal, or another failure of an extension's code in a request (`kind`:
 * an endpoint's route): `cause` is what it threw (a service error, or an error shaped as
 * Directus's `createError` makes them, keeps its code and status at the HTTP edge; anything
 * else is a 500 logged with `owner`).
 */
export class HookError extends Error {
  constructor(
    readonly owner: string,
    readonly event: string,
    override readonly cause: unknown,
    readonly kind: 'filter' | 'endpoint' = 'filter',
  ) {
    super(
      `${owner}: the "${event}" ${kind === 'filter' ? 'filter refused' : 'endpoint failed'}: ${cause instanceof Error ? cause.message : String(cause)}`,
    );
    this.name = 'HookError';
  }
}

function listOf<H>(map: Map<string, Registered<H>[]>, event: string): Registered<H>[] {
  let list = map.get(event);
  if (list === undefined) {
    list = [];
    map.set(event, list);
  }
  return list;
}

/**
 * The error a caller is answered with: a filter's refusal whose cause is a service error (or
 * a list of them) is that error, with its own code and status; anything else as it is.
 */
export function refusalOf(error: unknown): unknown {
  if (error instanceof HookError && (isServiceError(error.cause) || error.cause instanceof ServiceErrorList))
    return error.cause;
  return error;
}
