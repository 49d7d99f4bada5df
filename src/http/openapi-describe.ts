/**
 * The vocabulary of the OpenAPI descriptions of the fixed routes (routes/*.openapi.ts, one
 * beside each router): what a description is, who may call a route (decided on the caller's
 * permissions), and the schemas and parameters several routes share.
 */
import { CREATABLE_TYPES, REFERENTIAL_ACTIONS } from '../../catalog/ddl/payloads.js';
import type { CollectionOverview, SchemaOverview } from '../../catalog/overview/types.js';
import type { Accountability } from '../access/accountability.js';
import { canReadCollection } from '../access/read-access.js';
import { schemaReadAccess } from '../access/schema-access.js';
import { AUTH_MODES } from '../auth/token-grant.js';
import { canWrite, canWriteField, type SchemaAccess } from '../graphql/index.js';
import { isWritableAsItems } from '../items/writable.js';

/** An OpenAPI 3.0 object, built as plain JSON. */
export type Json = Record<string, unknown>;

/** What the document is built from: the schema, and what the caller may use of it. */
export interface OpenApiInput {
  readonly overview: SchemaOverview;
  /** What the caller's role may use: the same decisions as its GraphQL schema. */
  readonly access: SchemaAccess;
  readonly accountability: Accountability;
  readonly projectName: string;
  readonly publicUrl: string;
  /** AUTH_DISABLE_DEFAULT takes POST /auth/login away. */
  readonly hasDefaultLogin: boolean;
}

/** Whether the caller may use a route: its checks, decided on the caller's permissions. */
export type Caller = (input: OpenApiInput) => boolean;

/** For a path with `{collection}`: whether the caller may use it on this collection. */
export type CollectionFilter = (input: OpenApiInput, collection: CollectionOverview) => boolean;

/** What a route answers when it succeeds; the error responses are added to every operation. */
export type Answer =
  /** 200 `{data}` with this schema. */
  | { readonly kind: 'data'; readonly schema: Json }
  /** 200 `{data}`: the written item re-read as the caller reads `collection`; 204 when they cannot. */
  | { readonly kind: 'item'; readonly collection: string }
  /** 200 with an empty body (import, sort, cache clear). */
  | { readonly kind: 'empty' }
  /** 204. */
  | { readonly kind: 'none' }
  /** Not enveloped: the responses as given. */
  | { readonly kind: 'raw'; readonly responses: Json };

/** A route outside the collections' item routes, and who may call it. */
export interface FixedRoute {
  /** OpenAPI form: `{name}` where the router has `:name`, the same name. */
  readonly path: string;
  readonly method: 'get' | 'post' | 'patch' | 'delete';
  readonly tag: string;
  readonly summary: string;
  readonly caller: Caller;
  /**
   * Paths with `{collection}` where permissions decide per collection: the route is there when
   * the caller may use it on some collection, and `collection` lists those. Without it a
   * `{collection}` parameter is any name.
   */
  readonly collections?: CollectionFilter;
  /** Path parameters other than a filtered `{collection}`, and query parameters. */
  readonly parameters?: readonly Json[];
  /** The request body's `content` (media type → `{schema}`); required unless `isBodyOptional`. */
  readonly body?: Json;
  /** An absent body is fine: refresh and logout can take the token from a cookie. */
  readonly isBodyOptional?: boolean;
  readonly answer: Answer;
}

export const ACTIVITY = 'svc_activity';
export const COMMENTS = 'svc_comments';
export const FILES = 'svc_files';
export const REVISIONS = 'svc_revisions';
export const USERS = 'svc_users';

// Callers, as each route checks them.
export const anyone: Caller = () => true;
export const user: Caller = (input) => input.accountability.user !== null;
export const admin: Caller = (input) => input.access.isAdmin;
export const mayCreate =
  (...collections: string[]): Caller =>
  (input) =>
    collections.every((c) => canWrite(input.access, 'create', c));
export const mayUpdate =
  (collection: string): Caller =>
  (input) =>
    canWrite(input.access, 'update', collection);
export const mayDelete =
  (collection: string): Caller =>
  (input) =>
    input.access.canDelete(collection);
export const mayRead =
  (collection: string): Caller =>
  (input) =>
    canReadCollection(input.access.read, collection);

/** Revert: the revision read with the caller's access, then an update of its item. */
export const reverter: Caller = (input) =>
  mayRead(REVISIONS)(input) && Object.keys(input.overview.collections).some((c) => canWrite(input.access, 'update', c));

/** Issue 18, Restore: the item read with the caller's access, then updated; no svc_revisions permission needed. */
export const restorer: Caller = (input) =>
  Object.keys(input.overview.collections).some((c) => canWrite(input.access, 'update', c));

// Collection filters of the `{collection}` routes.
export const readable: CollectionFilter = (input, c) => canReadCollection(input.access.read, c.collection);
/**
 * The schema routes' `{collection}` (/collections, /fields, /relations): the collections the
 * schema-object service (access/schema-objects.ts) answers for, by its own read decision.
 */
export const schemaReadable: CollectionFilter = (input, c) =>
  schemaReadAccess(input.access.read).collection(c.collection);
/** Manual sort: a sort field, and update permission with the sort field among the fields. */
export const sortable: CollectionFilter = (input, c) =>
  c.sortField !== null &&
  isWritableAsItems(c.collection) &&
  canWriteField(input.access, 'update', c.collection, c.sortField);
/** Import: admin for system collections, otherwise create and update permission. */
export const importable: CollectionFilter = (input, c) =>
  isWritableAsItems(c.collection) &&
  (!c.isSystem || input.access.isAdmin) &&
  canWrite(input.access, 'create', c.collection) &&
  canWrite(input.access, 'update', c.collection);

// Body schemas, as precise as the routes' checks (http/payload.ts: a required string is non-empty).
export const TEXT: Json = { type: 'string' };
export const REQUIRED_TEXT: Json = { type: 'string', minLength: 1 };
export const EMAIL: Json = { type: 'string', format: 'email' };
export const KEY: Json = { oneOf: [{ type: 'string', minLength: 1 }, { type: 'integer' }] };
export const OBJECT: Json = { type: 'object' };
export const ARRAY: Json = { type: 'array', items: OBJECT };
export const NULLABLE_OBJECT: Json = { type: 'object', nullable: true };
export const NULLABLE_TEXT: Json = { type: 'string', nullable: true };
export const BINARY: Json = { type: 'string', format: 'binary' };
export const AUTH_MODE: Json = { type: 'string', enum: [...AUTH_MODES] };

export function object(properties: Json, required: readonly string[] = []): Json {
  return { type: 'object', properties, ...(required.length > 0 ? { required: [...required] } : {}) };
}

export function json(schema: Json): Json {
  return { 'application/json': { schema } };
}

export function pathParameter(name: string, description: string, schema: Json): Json {
  return { name, in: 'path', required: true, description, schema };
}

export function queryParameter(name: string, description: string, schema: Json, required = false): Json {
  return { name, in: 'query', required, description, schema };
}

/** A query parameter that counts by being there (`?download`). */
export function flagParameter(name: string, description: string): Json {
  return { ...queryParameter(name, description, TEXT), allowEmptyValue: true };
}

/** GET /server/health's answer for these statuses. */
export function healthResponse(description: string, statuses: readonly string[]): Json {
  return {
    description,
    content: { 'application/health+json': { schema: object({ status: { type: 'string', enum: [...statuses] } }) } },
  };
}

/** `#/components/parameters/<name>` (openapi.ts declares them). */
export function parameterRef(name: string): Json {
  return { $ref: `#/components/parameters/${name}` };
}

export const FIELDS = parameterRef('Fields');
export const UUID: Json = { type: 'string', format: 'uuid' };
export const USER_ID = pathParameter('id', 'The user', UUID);
export const COMMENT_ID = pathParameter('id', "The comment's svc_activity row", { type: 'integer' });
export const FILE_ID = pathParameter('id', 'The svc_files row', UUID);
export const ANY_COLLECTION = pathParameter('collection', 'The collection', TEXT);
export const FIELD = pathParameter('field', 'The field', TEXT);
const ACCESS: Json = object({ access: { type: 'boolean' } }, ['access']);
/** GET /permissions/me/{collection}/{id}: update (with presets and fields for singletons), delete, share. */
export const ITEM_PERMISSIONS: Json = object(
  {
    update: object({ access: { type: 'boolean' }, presets: OBJECT, fields: { type: 'array', items: TEXT } }, [
      'access',
    ]),
    delete: ACCESS,
    share: ACCESS,
  },
  ['update', 'delete', 'share'],
);
const ACTION_ACCESS: Json = object(
  {
    access: { type: 'string', enum: ['none', 'partial', 'full'] },
    fields: { type: 'array', items: TEXT },
    presets: OBJECT,
  },
  ['access'],
);
/** GET /permissions/me: one collection's actions. */
export const COLLECTION_ACCESS: Json = object(
  { create: ACTION_ACCESS, read: ACTION_ACCESS, update: ACTION_ACCESS, delete: ACTION_ACCESS, share: ACTION_ACCESS },
  ['create', 'read', 'update', 'delete', 'share'],
);
export const SSO_PROVIDER = pathParameter('provider', 'A name of AUTH_PROVIDERS', TEXT);

export const AUTH_PROVIDER: Json = object({ name: TEXT, driver: TEXT, icon: TEXT, label: TEXT }, ['name', 'driver']);
export const TOKEN_GRANT: Json = object({ access_token: TEXT, expires: { type: 'integer' }, refresh_token: TEXT });
export const REFRESH_BODY = json(object({ refresh_token: TEXT, mode: AUTH_MODE }));

// The objects the schema routes answer and take.
export const COLLECTION_OBJECT: Json = object({ collection: TEXT, meta: NULLABLE_OBJECT, schema: NULLABLE_OBJECT });
export const FIELD_OBJECT: Json = object({
  collection: TEXT,
  field: TEXT,
  type: TEXT,
  meta: NULLABLE_OBJECT,
  schema: NULLABLE_OBJECT,
});
export const RELATION_OBJECT: Json = object({
  collection: TEXT,
  field: TEXT,
  related_collection: NULLABLE_TEXT,
  meta: NULLABLE_OBJECT,
  schema: NULLABLE_OBJECT,
});
const FIELD_TYPE: Json = { type: 'string', enum: [...CREATABLE_TYPES] };
export const FIELD_PAYLOAD = object(
  { field: REQUIRED_TEXT, type: FIELD_TYPE, meta: NULLABLE_OBJECT, schema: NULLABLE_OBJECT },
  ['field', 'type'],
);
export const FIELD_PATCH_PROPERTIES: Json = { type: FIELD_TYPE, meta: NULLABLE_OBJECT, schema: OBJECT };
export const FIELD_PATCH = object(FIELD_PATCH_PROPERTIES);
export const COLLECTION_PAYLOAD = object(
  {
    collection: REQUIRED_TEXT,
    meta: NULLABLE_OBJECT,
    schema: NULLABLE_OBJECT,
    fields: { type: 'array', items: FIELD_PAYLOAD },
  },
  ['collection'],
);
export const RELATION_SCHEMA: Json = {
  type: 'object',
  nullable: true,
  properties: { on_delete: { type: 'string', enum: [...REFERENTIAL_ACTIONS] } },
};

export const ASSET_PARAMETERS: readonly Json[] = [
  flagParameter('download', 'Present: `Content-Disposition: attachment`.'),
  queryParameter('key', 'A transformation preset.', TEXT),
  queryParameter('width', 'Image width.', { type: 'integer', minimum: 1 }),
  queryParameter('height', 'Image height.', { type: 'integer', minimum: 1 }),
  queryParameter('fit', 'How the image fits.', { type: 'string', enum: ['cover', 'contain', 'inside', 'outside'] }),
  queryParameter('quality', 'Image quality.', { type: 'integer', minimum: 1, maximum: 100 }),
  queryParameter('format', 'Image format.', {
    type: 'string',
    enum: ['auto', 'jpg', 'jpeg', 'png', 'webp', 'tiff', 'avif'],
  }),
  queryParameter('withoutEnlargement', 'Never enlarge the image.', { type: 'boolean' }),
  queryParameter('transforms', 'A JSON array of transformations.', TEXT),
];
export const ASSET_ANSWER: Answer = {
  kind: 'raw',
  responses: {
    '200': { description: 'The file content', content: { '*/*': { schema: BINARY } } },
    '206': { description: 'The requested range (`Range: bytes=a-b`)', content: { '*/*': { schema: BINARY } } },
    '416': { description: 'The range cannot be satisfied (RANGE_NOT_SATISFIABLE)' },
  },
};

export const GRAPHQL_ANSWER: Answer = {
  kind: 'raw',
  responses: {
    '200': {
      description: 'The GraphQL result',
      content: json(object({ data: NULLABLE_OBJECT, errors: { type: 'array', items: OBJECT } })),
    },
  },
};
export const GRAPHQL_BODY: Json = {
  ...json(object({ query: REQUIRED_TEXT, variables: NULLABLE_OBJECT, operationName: NULLABLE_TEXT }, ['query'])),
  'application/graphql': { schema: TEXT },
};
export const GRAPHQL_PARAMETERS: readonly Json[] = [
  queryParameter('query', 'The GraphQL document (queries only).', REQUIRED_TEXT, true),
  queryParameter('variables', 'The variables, as JSON.', TEXT),
  queryParameter('operationName', 'The operation to run.', TEXT),
];
export const SDL_ANSWER: Answer = {
  kind: 'raw',
  responses: { '200': { description: 'GraphQL SDL', content: { 'text/plain': { schema: TEXT } } } },
};
