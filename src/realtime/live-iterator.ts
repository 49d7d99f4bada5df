import type { Item } from '../query/index.js';
import type { PrimaryKey } from '../commands/types.js';
import { ServiceError } from '../errors.js';
import type { LiveEvent } from './live-batch.js';
import type { LiveConnection, LiveReads, LiveSubscription } from './live-reads.js';
import type { Query } from '../query/index.js';

/** One changed item as a GraphQL subscription yields it: `data` null when deleted. */
export interface LivePayload {
  readonly key: PrimaryKey;
  readonly event: LiveEvent;
  readonly data: Item | null;
}

export interface LiveIteratorOptions {
  readonly connection: LiveConnection;
  readonly collection: string;
  readonly event: LiveEvent | undefined;
  readonly query: Query;
  /** Payloads waiting for the consumer; more: `onOverflow` (the socket is cut) and the iterator ends. */
  readonly maxQueued: number;
  /** True when the socket holds more unsent bytes than allowed: cut like an overflow. */
  readonly isBackedUp: () => boolean;
  readonly onOverflow: () => void;
}

/**
 * `live.add`, its refusal (LIMIT_EXCEEDED) carrying its code in `extensions` as the GraphQL
 * error made of it shows them (graphql-js copies an error's own `extensions`).
 */
function addOrRefuse(live: LiveReads, subscription: LiveSubscription): () => void {
  try {
    return live.add(subscription);
  } catch (error) {
    if (error instanceof ServiceError) {
      const { message, code, extensions } = error as ServiceError;
      throw Object.assign(new Error(message), { extensions: { ...extensions, code } });
    }
    throw error;
  }
}

/**
 * A subscription of `live` as an async iterator (graphql-js `subscribe`), one payload per
 * changed item. Ends when returned (the client's `complete`, the socket closing).
 */
export function liveIterator(live: LiveReads, options: LiveIteratorOptions): AsyncIterableIterator<LivePayload> {
  const queue: LivePayload[] = [];
  let wake: ((result: IteratorResult<LivePayload>) => void) | undefined;
  let isDone = false;
  const finish = (): IteratorResult<LivePayload> => {
    isDone = true;
    stop();
    queue.length = 0;
    const waiting = wake;
    wake = undefined;
    waiting?.({ value: undefined, done: true });
    return { value: undefined, done: true };
  };
  const stop = addOrRefuse(live, {
    connection: options.connection,
    collection: options.collection,
    event: options.event,
    query: options.query,
    deliver({ event, items }) {
      if (isDone) return;
      for (const item of items) {
        const payload = { key: item.key, event, data: item.data ?? null };
        if (wake !== undefined) {
          const waiting = wake;
          wake = undefined;
          waiting({ value: payload, done: false });
        } else queue.push(payload);
      }
      if (queue.length > options.maxQueued || options.isBackedUp()) {
        finish();
        options.onOverflow();
      }
    },
  });
  return {
    next() {
      const value = queue.shift();
      if (value !== undefined) return Promise.resolve({ value, done: false });
      if (isDone) return Promise.resolve({ value: undefined, done: true });
      return new Promise((resolve) => (wake = resolve));
    },
    return() {
      return Promise.resolve(finish());
    },
    throw(error: unknown) {
      finish();
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}
