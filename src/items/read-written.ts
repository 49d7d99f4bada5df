import type { CollectionOverview } from '../../catalog/overview/types.js';
import type { PrimaryKey } from '../commands/types.js';
import { ForbiddenError, ServiceError } from '../errors.js';
import type { Item } from '../query/index.js';

/** Where the failure of a re-read is told (the app's logger). */
export interface ReReadLog {
  warn(details: object, message: string): void;
}

/** One item (`one`) or the items in key order (`many`). */
export type Shape = 'one' | 'many';

/** The answer of a write: what the caller may read of what it wrote. */
export type WrittenAnswer = Item | Item[];

/**
 * The rule of every re-read after a commit, whoever asked: `read` gives the written items as
 * the caller may read them now. Null when the re-read is forbidden (the write stays: REST
 * answers 204, GraphQL null, the WebSocket null or []). A service error (the caller's input,
 * such as a bad `fields`) is the caller's to see. Any other failure (the database dropped the
 * connection right after the commit) answers the written keys only: a committed write is
 * never answered with an error, which a client would retry into a duplicate.
 */
export async function readCommitted(
  read: () => Promise<WrittenAnswer>,
  collection: CollectionOverview,
  keys: readonly PrimaryKey[],
  shape: Shape,
  log: ReReadLog | undefined,
): Promise<WrittenAnswer | null> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof ForbiddenError) return null;
    if (error instanceof ServiceError) throw error;
    log?.warn(
      { err: error, collection: collection.collection, keys },
      'write committed; its re-read failed: answered with the keys only',
    );
    const written = keys.map((key) => ({ [collection.primary]: key }));
    return shape === 'many' ? written : (written[0] ?? null);
  }
}
