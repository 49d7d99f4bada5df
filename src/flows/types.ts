import type { Knex } from 'knex';
import type { Accountability } from '../access/accountability.js';
import type { PermissionStore } from '../access/permission-store.js';
import type { DataInvalidation } from '../cache/data-invalidation.js';
import type { SchemaCache } from '../cache/schema-cache.js';
import type { Config } from '../config/index.js';
import type { HookBus } from '../items/hooks.js';
import type { JobQueue } from '../jobs/job.js';

/** A svc_flows row, as Directus 10 shapes directus_flows. */
export interface FlowRow {
  readonly id: string;
  readonly name: string;
  readonly status: 'active' | 'inactive';
  readonly trigger: FlowTrigger | null;
  readonly accountability: 'all' | 'activity' | null;
  readonly options: Readonly<Record<string, unknown>>;
  /** The first operation. */
  readonly operation: string | null;
}

export type FlowTrigger = 'event' | 'schedule' | 'operation' | 'webhook' | 'manual';

/** A svc_operations row: `resolve` and `reject` name the next operation of each outcome. */
export interface OperationRow {
  readonly id: string;
  readonly key: string;
  readonly type: string;
  readonly options: Readonly<Record<string, unknown>>;
  readonly resolve: string | null;
  readonly reject: string | null;
}

/** A flow with its operations by id. */
export interface LoadedFlow {
  readonly flow: FlowRow;
  readonly operations: ReadonlyMap<string, OperationRow>;
}

/** What a run passes between operations, as Directus names it: `$trigger`, `$last`, `$accountability`, `$env`, each key. */
export type RunData = Record<string, unknown>;

/** One operation's step in the run log (the revision's `data.steps`, as Directus writes it). */
export interface RunStep {
  readonly operation: string;
  readonly key: string;
  readonly status: 'resolve' | 'reject' | 'unknown';
  readonly options: unknown;
  readonly data: unknown;
  /** Ours: how long the operation took. */
  readonly duration_ms: number;
}

/** What the flows need of the service: the same collaborators the item routes are given. */
export interface FlowDeps {
  readonly config: Config;
  readonly db: Knex;
  readonly schema: SchemaCache;
  readonly permissions: PermissionStore;
  /** Told after writes (commands), and telling of writes to svc_flows (the schedule's list). */
  readonly invalidation: Pick<DataInvalidation, 'changed'> & Partial<Pick<DataInvalidation, 'onChange'>>;
  readonly jobs?: JobQueue;
  /**
   * The process's item events: an item operation with `emitEvents` writes through them (other
   * flows' event triggers, extensions' hooks), as Directus's do. None: its writes fire nothing.
   */
  readonly hooks?: HookBus;
  readonly logger: FlowLogger;
  /** Sends a mail (the service's mailer); none: the `mail` operation rejects. */
  readonly sendMail?: (mail: { to: string[]; subject: string; html?: string; text?: string }) => Promise<void>;
}

interface FlowLogger {
  debug(details: Record<string, unknown>, message: string): void;
  info(details: Record<string, unknown>, message: string): void;
  warn(details: Record<string, unknown>, message: string): void;
}

/** What an operation's handler is given besides its rendered options (Directus: `{ data, accountability, database, ... }`). */
export interface OperationContext {
  readonly data: RunData;
  /** Who the run acts for: the trigger's caller, or null for the service's own work (a schedule). */
  readonly accountability: Accountability | null;
  readonly deps: FlowDeps;
  readonly flow: FlowRow;
  /** How deep this run sits in `trigger` operations (0: started by its own trigger). */
  readonly depth: number;
  /** The run's event key when it was queued (the same on every retry); undefined for a run in a request. */
  readonly runKey: string | undefined;
  /** Runs another flow (the `trigger` operation). */
  readonly runFlow: (flowId: string, payload: unknown) => Promise<unknown>;
}

/** An operation: rendered options in, its data out; a throw takes the `reject` path. */
export type OperationHandler = (options: Record<string, unknown>, context: OperationContext) => unknown;
