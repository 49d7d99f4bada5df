/**
 * GraphQL: one schema per (role, schema version) generated from the
 * schema overview, two scopes of root fields over it, and resolvers that compile each root
 * field's selection into the read side's `Query` or run the write side's commands. The HTTP
 * layer (graphql-http) is http/'s: it asks for the schema and the prepared operation here.
 */

/** Both scopes' schemas of one role, and the scope names (`items`, `system`). */
export { buildSchemas, type ScopedSchemas, type Scope } from './build-schema.js';

/** `<collection>_mutated` subscriptions (live data over graphql-ws) and the context they run with. */
export type { SubscriptionContext } from './subscription-roots.js';

/** The schemas per (role, schema version): built on first use, rebuilt when the version moves. */
export { SchemaStore } from './schema-store.js';

/**
 * What a role may use in its schema (access/role-schema-access.ts), re-exported for the callers
 * that still import it from here (http/openapi-fixed-routes.ts).
 */
export {
  canWrite,
  canWriteField,
  fullSchemaAccess,
  readOnlySchemaAccess,
  schemaAccessOf,
  type SchemaAccess,
} from '../access/role-schema-access.js';

/**
 * Which collections a role reads as items, which of their fields, and their relations: the
 * decisions the GraphQL types are made of, for other descriptions of the API (OpenAPI).
 */
export { CollectionTypes } from './collection-types.js';

/** Parse (token limit) and validate (depth limit, introspection switch) a document; valid ones are remembered per schema. */
export { configuredLimits, OperationPreparer, plainError, rootFieldNames } from './prepare-operation.js';

/** The per-request context every resolver gets. */
export { createGraphqlContext, type GraphqlContext, type SystemServices } from './context.js';

/** Resolver errors with `extensions.code`, mapped by the caller's error mapping. */
export { formatResult, toGraphqlError } from './format-errors.js';

/** A query of item reads answered as JSON text the database writes, without graphql-js's execution. */
export { answerAsJson } from './json-answer.js';
