import type { FixedRoute } from './openapi-describe.js';
import { SERVER_OPENAPI } from './routes/server.openapi.js';
import { AUTH_OPENAPI } from './routes/auth.openapi.js';
import { USERS_OPENAPI } from './routes/users.openapi.js';
import { PERMISSIONS_ME_OPENAPI } from './routes/permissions-me.openapi.js';
import { ACTIVITY_COMMENTS_OPENAPI } from './routes/activity-comments.openapi.js';
import { FILES_OPENAPI } from './routes/files.openapi.js';
import { UTILS_OPENAPI } from './routes/utils.openapi.js';
import { SCHEMA_OPENAPI } from './routes/schema.openapi.js';
import { COLLECTIONS_OPENAPI } from './routes/collections.openapi.js';
import { FIELDS_OPENAPI } from './routes/fields.openapi.js';
import { RELATIONS_OPENAPI } from './routes/relations.openapi.js';
import { GRAPHQL_OPENAPI } from './routes/graphql.openapi.js';
import { VERSIONS_OPENAPI } from './routes/versions.openapi.js';
import { FLOWS_OPENAPI } from './routes/flows.openapi.js';

export type { Answer, FixedRoute, Json, OpenApiInput } from './openapi-describe.js';
export { parameterRef, pathParameter, queryParameter } from './openapi-describe.js';

/**
 * The routes beside the collections' item routes, by who may call them,
 * each described beside its router (routes/*.openapi.ts).
 */
export const FIXED_ROUTES: readonly FixedRoute[] = [
  ...SERVER_OPENAPI,
  ...AUTH_OPENAPI,
  ...USERS_OPENAPI,
  ...PERMISSIONS_ME_OPENAPI,
  ...ACTIVITY_COMMENTS_OPENAPI,
  ...FILES_OPENAPI,
  ...UTILS_OPENAPI,
  ...SCHEMA_OPENAPI,
  ...COLLECTIONS_OPENAPI,
  ...FIELDS_OPENAPI,
  ...RELATIONS_OPENAPI,
  ...GRAPHQL_OPENAPI,
  ...VERSIONS_OPENAPI,
  ...FLOWS_OPENAPI,
];
