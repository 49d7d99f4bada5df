import type { Knex } from 'knex';
import { InvalidPayloadError } from '../../src/errors.js';
import type { SchemaContext } from '../ddl/context.js';
import { buildOverview } from '../overview/build.js';
import type { SchemaOverview } from '../overview/types.js';
import { destructiveSteps, describeStep, planSteps, runSteps, type SchemaStep } from './apply.js';
import { diffSnapshots, isEmptyDiff, parseApplyBody, parseSnapshot, type SchemaDiff } from './diff.js';
import { snapshotHash, takeSnapshot, type Snapshot } from './snapshot.js';

export type { Snapshot } from './snapshot.js';
/** What the schema promotion needs: the schema context of the DDL routes, and how to build an overview. */
export interface SchemaPromotionContext extends SchemaContext {
  /** The service's version, written into snapshots. */
  readonly service: string;
  /** Builds an overview from one connection (a transaction on PostgreSQL). */
  readonly buildOverview: (db: Knex) => Promise<SchemaOverview>;
}

/** The promotion context over a schema context: overviews built as the schema cache builds them. */
export function promotionContext(
  ctx: SchemaContext,
  options: { readonly service: string; readonly excludeTables: readonly string[] },
): SchemaPromotionContext {
  return {
    ...ctx,
    service: options.service,
    buildOverview: (db: Knex) => buildOverview(db, { excludeTables: options.excludeTables }),
  };
}

/** The diff as /schema/diff answers it, with the hash of the state it was computed against. */
export interface SchemaPlan {
  readonly hash: string;
  readonly diff: SchemaDiff & { readonly destructive: readonly string[] };
  /** The steps in words, in the order apply runs them (for the CLI's plan). */
  readonly steps: readonly string[];
}

/**
 * GET /schema/snapshot: the user collections, fields and relations in the Directus 10
 * snapshot format, with `hash`.
 */
export async function snapshotSchema(ctx: SchemaPromotionContext): Promise<Snapshot & { readonly hash: string }> {
  const snapshot = takeSnapshot(ctx.db, await ctx.schema.getOverview(), ctx.service);
  return { ...snapshot, hash: snapshotHash(snapshot) };
}

/**
 * POST /schema/diff: the plan from the current schema to `body` (a snapshot), or null when
 * there is nothing to do. A snapshot of another vendor needs `force` (types and defaults may
 * not carry over); the refusal names `forceFlag`, how the caller's door spells it (the route's
 * `?force=true`, the CLI's `--force`). Every target object is checked as its route would, before
 * any apply.
 */
export async function diffSchema(
  ctx: SchemaPromotionContext,
  body: unknown,
  options: { force: boolean; forceFlag: string },
): Promise<SchemaPlan | null> {
  const target = parseSnapshot(body);
  const current = takeSnapshot(ctx.db, await ctx.schema.getOverview(), ctx.service);
  if (target.vendor !== current.vendor && !options.force) {
    throw new InvalidPayloadError(
      `The snapshot's vendor "${target.vendor}" doesn't match this database's "${current.vendor}"; pass ${options.forceFlag} to diff across vendors`,
    );
  }
  const diff = diffSnapshots(current, target);
  if (isEmptyDiff(diff)) return null;
  const steps = planSteps(current, diff);
  const destructive = await destructiveSteps(ctx.db, steps);
  return {
    hash: snapshotHash(current),
    diff: { ...diff, destructive: destructive.map(describeStep) },
    steps: steps.map((s) => `${describeStep(s)}${destructive.includes(s) ? ` (destructive: ${destroys(s)})` : ''}`),
  };
}

/** What a destructive step does to the stored data. */
function destroys(step: SchemaStep): string {
  return step.kind === 'updateField' ? 'changes stored values' : 'drops stored data';
}

/**
 * POST /schema/apply: runs `{hash, diff}` when `hash` still is the current schema's (another
 * change since the diff → INVALID_PAYLOAD, nothing done). Steps that drop stored data or
 * change stored numbers (a new type, precision or scale) need `allowDestructive`.
 */
export async function applySchema(
  ctx: SchemaPromotionContext,
  body: unknown,
  options: { allowDestructive: boolean },
): Promise<readonly string[]> {
  const { hash, diff } = parseApplyBody(body);
  const current = takeSnapshot(ctx.db, await ctx.schema.getOverview(), ctx.service);
  if (hash !== snapshotHash(current)) {
    // Directus 10's words, which its clients (the CLI's schema push) recognise.
    throw new InvalidPayloadError(
      "Provided hash does not match the current instance's schema hash, indicating the schema has changed after this diff was generated. Please generate a new diff and try again",
    );
  }
  const steps: SchemaStep[] = planSteps(current, diff);
  const destructive = await destructiveSteps(ctx.db, steps);
  if (destructive.length > 0 && !options.allowDestructive) {
    throw new InvalidPayloadError(
      `The diff drops stored data or changes stored values (${destructive.map((s) => `${describeStep(s)}: ${destroys(s)}`).join('; ')}); allow destructive steps to apply it`,
    );
  }
  await runSteps(ctx, steps, { buildOverview: ctx.buildOverview, allowDestructive: options.allowDestructive });
  return steps.map(describeStep);
}
