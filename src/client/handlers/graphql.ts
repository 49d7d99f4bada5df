import type { ITransport, TransportResponse } from '../transport.js';

/** GraphQL queries against /graphql (items) and /graphql/system. */
export class GraphQLHandler {
  constructor(private readonly transport: ITransport) {}

  items<T = unknown>(query: string, variables: Readonly<Record<string, unknown>> = {}): Promise<TransportResponse<T>> {
    return this.transport.post<T>('/graphql', { query, variables });
  }

  system<T = unknown>(query: string, variables: Readonly<Record<string, unknown>> = {}): Promise<TransportResponse<T>> {
    return this.transport.post<T>('/graphql/system', { query, variables });
  }
}
