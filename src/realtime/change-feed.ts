import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import type { Knex } from 'knex';
import type { RedisBus } from '../cache/redis-bus.js';
import { RedisGuard, type GuardLogger } from '../cache/redis-guard.js';
import type { Change, SeenBy } from '../commands/change-set.js';
import type { PrimaryKey } from '../commands/types.js';

export type { Change } from '../commands/change-set.js';

/** A change as the feed delivers it: with Redis, `id` is its entry in the log (a position to resume after). */
export type FeedChange = Change & { readonly id?: string };

type ChangeListener = (change: FeedChange) => void;

/** Asked inside a delete's transaction, before the rows go: who could read which of them (live-reads.ts). */
type DeleteWitness = (
  trx: Knex.Transaction,
  collection: string,
  keys: readonly PrimaryKey[],
) => Promise<SeenBy | undefined>;

/**
 * The committed changes of every instance: `publish` (the write side's `afterCommit`, wired in
 * server.ts) hands them to this process's listeners at once or, with Redis, through a log
 * every instance reads in the same order ({@link RedisFeed}, with cache/'s RedisGuard).
 */
export interface ChangeFeed {
  /**
   * Hands on committed changes; settles (never rejects) once they are in the log, or delivered
   * here when the log failed. A write answers after that, so its author's next write, through
   * any instance, comes after it in the log (each writer's changes reach subscribers in order).
   */
  publish(changes: readonly Change[]): Promise<void>;
  /** Runs `listener` for every change, here or elsewhere; returns the unsubscribe. */
  subscribe(listener: ChangeListener): () => void;
  /** The write side asks it before a delete (the witness set by {@link setWitness}; none: undefined). */
  witnessDelete(trx: Knex.Transaction, collection: string, keys: readonly PrimaryKey[]): Promise<SeenBy | undefined>;
  /** True when other instances get these changes too (Redis): a delete's witness speaks for their subscribers as well. */
  readonly isShared: boolean;
  /** The subscriptions of this process (LiveReads) answer {@link witnessDelete}. */
  setWitness(witness: DeleteWitness | undefined): void;
  /** The id of the last change delivered here; undefined without a log (no Redis). */
  readonly position: string | undefined;
  /**
   * The changes logged after the one of id `after`, in order: what a subscriber whose
   * connection ended there missed. Undefined when the log cannot tell (no Redis, or the log
   * no longer reaches back that far); rejects while Redis fails.
   */
  since(after: string): Promise<FeedChange[] | undefined>;
  close(): Promise<void>;
}

export interface ChangeFeedOptions {
  /** The process's Redis bus: the log every instance reads. */
  readonly bus: RedisBus | undefined;
  readonly namespace: string;
  readonly logger: GuardLogger;
}

export async function createChangeFeed(options: ChangeFeedOptions): Promise<ChangeFeed> {
  if (options.bus === undefined) return new LocalFeed();
  const feed = new RedisFeed(options.bus, options);
  await feed.start();
  return feed;
}

class LocalFeed implements ChangeFeed {
  #listeners = new Set<ChangeListener>();
  #witness: DeleteWitness | undefined;

  get isShared(): boolean {
    return false;
  }

  get position(): string | undefined {
    return undefined;
  }

  since(_after: string): Promise<FeedChange[] | undefined> {
    return Promise.resolve(undefined);
  }

  witnessDelete(trx: Knex.Transaction, collection: string, keys: readonly PrimaryKey[]): Promise<SeenBy | undefined> {
    return this.#witness?.(trx, collection, keys) ?? Promise.resolve(undefined);
  }

  setWitness(witness: DeleteWitness | undefined): void {
    this.#witness = witness;
  }

  publish(changes: readonly Change[]): Promise<void> {
    this.deliver(changes);
    return Promise.resolve();
  }

  /** A listener that throws is its own problem: the others still run. */
  deliver(changes: readonly FeedChange[]): void {
    for (const change of changes)
      for (const listener of this.#listeners) {
        try {
          listener(change);
        } catch {
          // Listeners report their own failures.
        }
      }
  }

  subscribe(listener: ChangeListener): () => void {
    const own = (change: FeedChange) => {
      listener(change);
    };
    this.#listeners.add(own);
    return () => this.#listeners.delete(own);
  }

  close(): Promise<void> {
    this.#listeners.clear();
    return Promise.resolve();
  }
}

const ACTIONS: ReadonlySet<string> = new Set(['create', 'update', 'delete']);

/**
 * Keys per entry of the log (some 100 KB of JSON): every instance reads every entry, a read
 * takes {@link READ_COUNT} at once. (With pub/sub, Redis dropped a subscriber whose pending
 * output passed 32 MB: the keys of a 4-million-row import in one message, so every other
 * instance lost the change and its connection.)
 */
export const KEYS_PER_MESSAGE = 10_000;

/**
 * How long the log keeps a change: a subscriber that reconnects within it resumes where it
 * left off (a rolling restart's reconnect takes a second or two; a Redis failover some more).
 */
const LOG_RETENTION_MS = 120_000;
/** Changes a resume replays at most: a subscriber further behind starts again from an `init`. */
const MAX_REPLAY = 10_000;
/** Entries one read of the log takes. */
const READ_COUNT = 100;
/** How long one read waits for a new entry before asking again. */
const BLOCK_MS = 1000;

/**
 * With Redis the changes go through a stream, `<CACHE_NAMESPACE>:realtime:log`: `publish`
 * appends them (one entry per change, an import's keys split by {@link messageParts}), and
 * every instance, this one included, reads the stream in order and hands each change to its
 * listeners with the entry's id. Every instance thus delivers every change in the one order of
 * the log, and a subscriber that lost its connection resumes after the last id it saw
 * ({@link ChangeFeed.since}). While Redis fails this instance's changes go to its own
 * listeners at once, without an id (RedisGuard: subscribers see this instance's changes only),
 * and the reader catches up from its last id once Redis answers again (after a failover too).
 */
class RedisFeed extends LocalFeed {
  /** The bus's command connection: appends (XADD) and replays (XRANGE). */
  readonly #writer: Redis;
  /** Its own connection (the bus's blockingClient): a blocking read holds it. */
  readonly #reader: Redis;
  readonly #key: string;
  readonly #guard: RedisGuard;
  readonly #unwatch: () => void;
  /** The changes of earlier publishes: appended one at a time and in order, whatever their number. */
  #publishing: Promise<void> = Promise.resolve();
  /** The id of the last entry read (and delivered). */
  #position = '0-0';
  #isClosed = false;
  #reading: Promise<void> = Promise.resolve();
  /**
   * Settles when `close` runs. A read waits for it too: ioredis never answers a command queued
   * while it waits to reconnect once it is disconnected (Redis down at shutdown).
   */
  readonly #closing: Promise<null>;
  #endReads = () => {};
  /** Marks this instance's entries (`o`), each numbered (`n`). */
  readonly #origin = randomUUID();
  #published = 0;
  /**
   * This instance's entries whose append failed (a timeout) and which it delivered itself: a
   * Redis that was only slow may log them all the same; the reader skips them.
   */
  readonly #deliveredHere = new Set<string>();

  override get isShared(): boolean {
    return true;
  }

  override get position(): string | undefined {
    return this.#position;
  }

  constructor(bus: RedisBus, options: ChangeFeedOptions) {
    super();
    this.#writer = bus.commands;
    this.#reader = bus.blockingClient();
    this.#guard = new RedisGuard('live data', 'subscribers see the changes of this instance only', options.logger);
    const unwatch = [bus.watch(this.#guard, { isSubscriber: false }), this.#guard.watch(this.#reader)];
    this.#unwatch = () => {
      for (const stop of unwatch) stop();
    };
    this.#key = `${options.namespace}:realtime:log`;
    this.#closing = new Promise((resolve) => {
      this.#endReads = () => {
        resolve(null);
      };
    });
  }

  async start(): Promise<void> {
    await this.#reader.connect();
    // From the end: what was logged before this instance started is not its subscribers' news.
    const [last] = await this.#writer.xrevrange(this.#key, '+', '-', 'COUNT', 1);
    this.#position = last?.[0] ?? '0-0';
    this.#reading = this.#read();
  }

  override publish(changes: readonly Change[]): Promise<void> {
    this.#publishing = this.#publishing.then(async () => {
      const entries = [...messageParts(changes)].flat();
      const minId = `${Date.now() - LOG_RETENTION_MS}-0`;
      const numbered = entries.map((change) => ({ change, n: String(++this.#published) }));
      let results: [Error | null, unknown][] | null = null;
      try {
        results = await this.#guard.run(() => {
          const pipeline = this.#writer.pipeline();
          for (const { change, n } of numbered)
            pipeline.xadd(this.#key, 'MINID', '~', minId, '*', 'c', JSON.stringify(change), 'o', this.#origin, 'n', n);
          return pipeline.exec();
        });
      } catch {
        // Logged by the guard.
      }
      // Not logged: this instance's listeners get them now, without an id (no resume across them).
      const unlogged = numbered.flatMap(({ change, n }, i) => {
        const result = results?.[i];
        if (result !== undefined && result[0] === null && typeof result[1] === 'string') return [];
        this.#deliveredHere.add(n);
        return [change];
      });
      if (unlogged.length > 0) this.deliver(unlogged);
      // Bounded: an entry that a slow Redis took late comes back within moments, or never.
      if (this.#deliveredHere.size > MAX_REPLAY) this.#deliveredHere.clear();
    });
    return this.#publishing;
  }

  override async since(after: string): Promise<FeedChange[] | undefined> {
    if (!isEntryId(after)) return undefined;
    return this.#guard.run(async () => {
      const [first] = await this.#writer.xrange(this.#key, '-', '+', 'COUNT', 1);
      // Trimmed past it (or a log that is not the one it came from): the gap cannot be told.
      if (first === undefined || compareEntryIds(first[0], after) > 0) return undefined;
      const entries = await this.#writer.xrange(this.#key, `(${after}`, '+', 'COUNT', MAX_REPLAY + 1);
      if (entries.length > MAX_REPLAY) return undefined;
      return entries.flatMap(([id, fields]) => changeOf(id, fields));
    });
  }

  override async close(): Promise<void> {
    await super.close();
    await this.#publishing;
    this.#isClosed = true;
    this.#endReads();
    // Ends the blocking read at once.
    this.#reader.disconnect();
    await this.#reading;
    // The writer is the bus's, closed with it.
    this.#unwatch();
  }

  /** Reads the log from the last id on, delivering each change in order, until closed. */
  async #read(): Promise<void> {
    while (!this.#isClosed) {
      let answer: [string, [string, string[]][]][] | null;
      try {
        answer = await Promise.race([
          this.#reader.xread('COUNT', READ_COUNT, 'BLOCK', BLOCK_MS, 'STREAMS', this.#key, this.#position),
          this.#closing,
        ]);
      } catch (error) {
        if (this.#hasClosed()) return;
        this.#guard.failed(error);
        await delay(100);
        continue;
      }
      for (const [, entries] of answer ?? []) {
        for (const [id, fields] of entries) {
          this.#position = id;
          if (this.#isDeliveredHere(fields)) continue;
          this.deliver(changeOf(id, fields));
        }
      }
    }
  }

  /** Asked again after an await: `close` may have run meanwhile. */
  #hasClosed(): boolean {
    return this.#isClosed;
  }

  #isDeliveredHere(fields: readonly string[]): boolean {
    if (this.#deliveredHere.size === 0 || fieldOf(fields, 'o') !== this.#origin) return false;
    return this.#deliveredHere.delete(fieldOf(fields, 'n') ?? '');
  }
}

/** A field of a log entry (`[name, value, name, value...]`). */
function fieldOf(fields: readonly string[], name: string): string | undefined {
  for (let at = 0; at + 1 < fields.length; at += 2) if (fields[at] === name) return fields[at + 1];
  return undefined;
}

/** The change of a log entry (none when it is not one), with the entry's id. */
function changeOf(id: string, fields: readonly string[]): FeedChange[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(fieldOf(fields, 'c') ?? '');
  } catch {
    return [];
  }
  return isChange(parsed) ? [{ ...parsed, id }] : [];
}

const isEntryId = (id: string) => /^\d{1,20}-\d{1,20}$/.test(id);

/** The order of two stream entry ids (`<ms>-<seq>`). */
export function compareEntryIds(a: string, b: string): number {
  const [aMs = 0n, aSeq = 0n] = a.split('-').map((part) => BigInt(part));
  const [bMs = 0n, bSeq = 0n] = b.split('-').map((part) => BigInt(part));
  if (aMs !== bMs) return aMs < bMs ? -1 : 1;
  return aSeq === bSeq ? 0 : aSeq < bSeq ? -1 : 1;
}

/** The changes in messages of at most {@link KEYS_PER_MESSAGE} keys, a big change split across several. */
export function* messageParts(changes: readonly Change[]): Generator<Change[]> {
  let part: Change[] = [];
  let count = 0;
  for (const change of changes) {
    for (let at = 0; at < change.keys.length; at += KEYS_PER_MESSAGE) {
      const keys = change.keys.slice(at, at + KEYS_PER_MESSAGE);
      const slice = {
        ...change,
        keys,
        ...(change.seenBy === undefined ? {} : { seenBy: seenWithin(change.seenBy, keys) }),
      };
      if (count + slice.keys.length > KEYS_PER_MESSAGE && part.length > 0) {
        yield part;
        [part, count] = [[], 0];
      }
      part.push(slice);
      count += slice.keys.length;
    }
  }
  if (part.length > 0) yield part;
}

/** A delete's witness cut to the keys of one message. */
function seenWithin(seenBy: SeenBy, keys: readonly PrimaryKey[]): SeenBy {
  const inPart = new Set(keys.map(String));
  const cut: Record<string, PrimaryKey[]> = {};
  for (const [viewer, seen] of Object.entries(seenBy)) cut[viewer] = seen.filter((key) => inPart.has(String(key)));
  return cut;
}

const isKey = (k: unknown) => typeof k === 'string' || typeof k === 'number';

function isChange(value: unknown): value is Change {
  const v = value as Partial<Change> | null;
  const seenBy: unknown = v?.seenBy;
  return (
    typeof v?.collection === 'string' &&
    typeof v.action === 'string' &&
    ACTIONS.has(v.action) &&
    Array.isArray(v.keys) &&
    v.keys.every(isKey) &&
    (seenBy === undefined ||
      (typeof seenBy === 'object' &&
        seenBy !== null &&
        Object.values(seenBy).every((seen) => Array.isArray(seen) && seen.every(isKey))))
  );
}
