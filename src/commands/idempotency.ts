import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import type { Accountability } from '../access/accountability.js';
import { databaseDialectOf } from '../db/dialects/index.js';
import {
  IdempotencyConflictError,
  InvalidPayloadError,
  RecordNotUniqueError,
  UnprocessableEntityError,
} from '../errors.js';

/**
 * `Idempotency-Key` (issue 36; the IETF httpapi draft's header): a client that lost a write's
 * answer (a timeout, a 503 after the commit) retries with the same key and gets the first
 * answer instead of a second write. The key is recorded in svc_idempotency per caller, in the
 * transaction of the request's first write (runWrite), so it exists exactly when the write
 * committed; the answer is stored beside it once sent (http/idempotency.ts). A key is kept a
 * day. One request's key travels to runWrite with the request's async context, whatever door
 * (REST, the direct item path, GraphQL) runs the write.
 */

const IDEMPOTENCY_TABLE = 'svc_idempotency';

/** How long a key is remembered. */
const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/** The request's key and what it was checked against; `state` follows the request's first write. */
export interface IdempotencyClaim {
  readonly key: string;
  /** Set once the request is checked (http/idempotency.ts): the caller and the request's hash. */
  checked?: { readonly caller: string; readonly fingerprint: string };
  /**
   * `recording`: a write's transaction is recording it; `recorded`: it committed with the
   * write, the answer is to be stored; `closed`: answered without a write, so a write the
   * request leaves running after its answer (a job) is not keyed.
   */
  state: 'open' | 'recording' | 'recorded' | 'closed';
}

/** An earlier request's record of the same key and caller. */
export interface IdempotencyRecord {
  readonly fingerprint: string;
  readonly status: number | null;
  readonly contentType: string | null;
  readonly body: string | null;
}

const scope = new AsyncLocalStorage<IdempotencyClaim>();

/** Runs a request's handling with its key (request-door.ts). */
export function withIdempotencyKey<T>(claim: IdempotencyClaim, run: () => T): T {
  return scope.run(claim, run);
}

/** The key of the request being handled, if it sent one. */
export function currentIdempotencyKey(): IdempotencyClaim | undefined {
  return scope.getStore();
}

/** Keys are the caller's own: a user's, else a role's (tokens without a user), else the public's. */
export function idempotencyCaller(accountability: Accountability): string {
  if (accountability.user !== null) return `user:${accountability.user}`;
  if (accountability.role !== null) return `role:${accountability.role}`;
  return 'public';
}

/** A header value usable as a key: 1 to 255 visible ASCII characters (quotes of a structured-field string dropped). */
export function parseIdempotencyKey(value: string | string[] | undefined): string | undefined {
  if (value === undefined) return undefined;
  const raw = Array.isArray(value) ? value.join(',') : value;
  const key = /^"(.*)"$/.exec(raw)?.[1] ?? raw;
  if (!/^[\x21-\x7e]{1,255}$/.test(key))
    throw new InvalidPayloadError('"Idempotency-Key" must be 1 to 255 visible ASCII characters');
  return key;
}

/** The hash a retry must match: method, path with query, and the parsed body. */
export function requestFingerprint(method: string, url: string, body: unknown): string {
  const text = body === undefined ? '' : ((JSON.stringify(body) as string | undefined) ?? '');
  return createHash('sha256').update(`${method} ${url}\n`).update(text).digest('hex');
}

/** The live record of `key` for `caller` (younger than a day), if any. */
export async function findIdempotencyRecord(
  db: Knex,
  key: string,
  caller: string,
  now: number,
): Promise<IdempotencyRecord | undefined> {
  const row = await db(IDEMPOTENCY_TABLE)
    .where({ key, caller })
    .andWhere('created', '>', now - IDEMPOTENCY_TTL_MS)
    .first<Record<string, unknown> | undefined>('key', 'fingerprint', 'status', 'content_type', 'body');
  // Compared here too: a collation must never match another key.
  if (row === undefined || row['key'] !== key) return undefined;
  return {
    fingerprint: String(row['fingerprint']),
    status: row['status'] === null ? null : Number(row['status']),
    contentType: typeof row['content_type'] === 'string' ? row['content_type'] : null,
    body: typeof row['body'] === 'string' ? row['body'] : null,
  };
}

/**
 * What a retry gets from an earlier record: the stored answer, or UNPROCESSABLE_ENTITY when
 * the key came with another request, or IDEMPOTENCY_CONFLICT when the write committed but its
 * answer is not stored (being sent now, or lost to a failure): the write is not repeated.
 */
export function replayOf(record: IdempotencyRecord, fingerprint: string): IdempotencyRecord & { status: number } {
  if (record.fingerprint !== fingerprint)
    throw new UnprocessableEntityError('This "Idempotency-Key" was used with another request');
  if (record.status === null) throw new IdempotencyConflictError();
  return { ...record, status: record.status };
}

/**
 * In the transaction of the request's first write (runWrite): the key recorded. A concurrent request with the same key waits on the row and then finds it taken
 * (IDEMPOTENCY_CONFLICT), or, if that write rolled back, records it itself.
 */
export async function recordIdempotencyKey(trx: Knex.Transaction, claim: IdempotencyClaim, now: Date): Promise<void> {
  const { checked } = claim;
  if (checked === undefined) return;
  const time = now.getTime();
  // This caller's expired record of the key, if any, makes way (others: purgeIdempotencyKeys).
  await trx(IDEMPOTENCY_TABLE)
    .where({ key: claim.key, caller: checked.caller })
    .andWhere('created', '<=', time - IDEMPOTENCY_TTL_MS)
    .delete();
  try {
    await trx(IDEMPOTENCY_TABLE).insert({
      key: claim.key,
      caller: checked.caller,
      fingerprint: checked.fingerprint,
      created: time,
    });
  } catch (error) {
    const refusal = databaseDialectOf(trx).constraintError(error as never, { collection: IDEMPOTENCY_TABLE });
    if (refusal instanceof RecordNotUniqueError) throw new IdempotencyConflictError();
    throw error;
  }
}

/** The answer given to the request that recorded `claim`, for its retries. */
export async function storeIdempotentAnswer(
  db: Knex,
  claim: IdempotencyClaim,
  answer: { readonly status: number; readonly contentType: string | null; readonly body: string },
): Promise<void> {
  if (claim.checked === undefined) return;
  await db(IDEMPOTENCY_TABLE)
    .where({ key: claim.key, caller: claim.checked.caller })
    .update({ status: answer.status, content_type: answer.contentType, body: answer.body });
}

/** Records older than a day forgotten (after a keyed write: outside its transaction, so no write waits on it). */
export async function purgeIdempotencyKeys(db: Knex, now: number): Promise<void> {
  await db(IDEMPOTENCY_TABLE)
    .where('created', '<=', now - IDEMPOTENCY_TTL_MS)
    .delete();
}
