import { TransportError } from '../errors.js';
import type { ITransport, TransportResponse } from '../transport.js';

export interface GraphQLOptions {
  /**
   * Send the document's sha256 instead of the document (automatic persisted queries): the
   * document travels once per server instance, on the first miss, then only its hash.
   */
  readonly persisted?: boolean;
}

/** GraphQL queries against /graphql (items) and /graphql/system. */
export class GraphQLHandler {
  constructor(private readonly transport: ITransport) {}

  items<T = unknown>(
    query: string,
    variables: Readonly<Record<string, unknown>> = {},
    options: GraphQLOptions = {},
  ): Promise<TransportResponse<T>> {
    return this.send<T>('/graphql', query, variables, options);
  }

  system<T = unknown>(
    query: string,
    variables: Readonly<Record<string, unknown>> = {},
    options: GraphQLOptions = {},
  ): Promise<TransportResponse<T>> {
    return this.send<T>('/graphql/system', query, variables, options);
  }

  private async send<T>(
    path: string,
    query: string,
    variables: Readonly<Record<string, unknown>>,
    options: GraphQLOptions,
  ): Promise<TransportResponse<T>> {
    if (options.persisted !== true) return this.transport.post<T>(path, { query, variables });
    const extensions = { persistedQuery: { version: 1, sha256Hash: await sha256Hex(query) } };
    try {
      return await this.transport.post<T>(path, { variables, extensions });
    } catch (error) {
      const missed = error instanceof TransportError && error.errors[0]?.message === 'PersistedQueryNotFound';
      if (!missed) throw error;
      return this.transport.post<T>(path, { query, variables, extensions });
    }
  }
}

/** The hex sha256 of `text`'s UTF-8 bytes, by the Web Crypto API (browsers and Node alike). */
async function sha256Hex(text: string): Promise<string> {
  const digest = await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, '0')).join('');
}
