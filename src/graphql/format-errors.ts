import { GraphQLError, type ExecutionResult } from 'graphql';
import type { ServiceError } from '../errors.js';

/** How a failure is reported to the caller: the codes of docs/errors.md (http decides). */
export type ErrorMapper = (error: unknown) => readonly ServiceError[];

/**
 * Resolver errors as Directus 10 shows them: `message`, `locations`, `path` and
 * `extensions` with the REST keys and `code`. A failure carrying several errors (one
 * FAILED_VALIDATION per field) is one GraphQL error each, at the same path.
 */
export function formatResult(result: ExecutionResult, mapError: ErrorMapper): ExecutionResult {
  if (result.errors === undefined) return result;
  return {
    ...result,
    errors: result.errors.flatMap((error) =>
      mapError(error.originalError ?? error).map((e) => toGraphqlError(e, error)),
    ),
  };
}

/** A service error as a GraphQL error, at the position of `at` when given. */
export function toGraphqlError(error: ServiceError, at?: GraphQLError): GraphQLError {
  return new GraphQLError(error.message, {
    nodes: at?.nodes ?? null,
    source: at?.source ?? null,
    positions: at?.positions ?? null,
    path: at?.path ?? null,
    extensions: { ...error.extensions, code: error.code },
  });
}
