import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { InvalidPayloadError } from '../errors.js';

/** The documents kept, by their length: a few thousand dashboards' queries, never unbounded. */
const STORED_CHARACTERS = 8 * 1024 * 1024;
const SHA256_HEX = /^[0-9a-f]{64}$/;

/** What a GraphQL request's `extensions.persistedQuery` asks for. */
export type PersistedQueryAnswer =
  /** The document sent with its hash: checked and stored; the request runs as sent. */
  | { readonly kind: 'stored' }
  /** The hash alone, of a document stored before: the request runs `query`. */
  | { readonly kind: 'found'; readonly query: string }
  /** The hash alone, unknown here: the client sends the document with it next (Apollo's protocol). */
  | { readonly kind: 'not-found' };

/**
 * Automatic persisted queries (Apollo's protocol, version 1): a client sends the sha256 of its
 * document in `extensions.persistedQuery.sha256Hash`, without the document once the service
 * has seen it. Kept per process (each instance learns a document on its first miss, which the
 * client answers by sending it once), so a dashboard's repeated queries travel as 64 characters.
 */
export class PersistedQueries {
  readonly #documents = new LRUCache<string, string>({
    maxSize: STORED_CHARACTERS,
    sizeCalculation: (query) => Math.max(query.length, 1),
  });

  /**
   * The request's persisted query, from a POST body or GET's query string (`extensions` as
   * JSON text there); undefined when it names none. A malformed one, or a document that does
   * not match its hash, is 400 INVALID_PAYLOAD.
   */
  resolve(params: unknown): PersistedQueryAnswer | undefined {
    if (typeof params !== 'object' || params === null) return undefined;
    const { extensions, query } = params as { extensions?: unknown; query?: unknown };
    const persisted = (parseExtensions(extensions) as { persistedQuery?: unknown } | undefined)?.persistedQuery;
    if (persisted === undefined) return undefined;
    const hash = requireHash(persisted);
    if (typeof query === 'string' && query !== '') {
      if (createHash('sha256').update(query).digest('hex') !== hash) {
        throw new InvalidPayloadError('"extensions.persistedQuery.sha256Hash" is not the sha256 of "query"');
      }
      // Too long to keep (over the whole store): it still runs, and is sent again next time.
      if (query.length <= STORED_CHARACTERS) this.#documents.set(hash, query);
      return { kind: 'stored' };
    }
    if (query !== undefined && query !== null && query !== '') return undefined;
    const known = this.#documents.get(hash);
    return known === undefined ? { kind: 'not-found' } : { kind: 'found', query: known };
  }
}

/** The answer to an unknown hash, as Apollo's clients expect it: 200, this message and code. */
export const PERSISTED_QUERY_NOT_FOUND = JSON.stringify({
  errors: [{ message: 'PersistedQueryNotFound', extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } }],
});

function parseExtensions(extensions: unknown): unknown {
  if (typeof extensions !== 'string') return extensions;
  try {
    return JSON.parse(extensions) as unknown;
  } catch {
    throw new InvalidPayloadError('"extensions" must be a JSON object');
  }
}

function requireHash(persisted: unknown): string {
  const { version, sha256Hash } = (persisted ?? {}) as { version?: unknown; sha256Hash?: unknown };
  if (version !== 1) throw new InvalidPayloadError('"extensions.persistedQuery.version" must be 1');
  if (typeof sha256Hash !== 'string' || !SHA256_HEX.test(sha256Hash)) {
    throw new InvalidPayloadError('"extensions.persistedQuery.sha256Hash" must be 64 lower-case hex digits');
  }
  return sha256Hash;
}
