import { CREATABLE_TYPES, REFERENTIAL_ACTIONS } from '../../catalog/ddl/payloads.js';
import type { CollectionOverview, SchemaOverview } from '../../catalog/overview/types.js';
import type { Accountability } from '../access/accountability.js';
import { canReadCollection } from '../access/read-access.js';
import { LAST_PAGE_MAX_LENGTH } from '../auth/auth-user.js';
import { AUTH_MODES } from '../auth/token-grant.js';
import { EXPORT_QUERY_FORMATS } from '../files/export/export-formats.js';
import { canWrite, canWriteField, type SchemaAccess } from '../graphql/index.js';
import { isWritableAsItems } from './routes/item-writes.js';
import { IMPORT_FORMATS } from './routes/utils-transfer.js';

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
  /** AUTH_DISABLE_DEFAULT (reference/config.md) takes POST /auth/login away. */
  readonly hasDefaultLogin: boolean;
}

/** Whether the caller may use a route: its checks, decided on the caller's permissions. */
type Caller = (input: OpenApiInput) => boolean;

/** For a path with `{collection}`: whether the caller may use it on this collection. */
type CollectionFilter = (input: OpenApiInput, collection: CollectionOverview) => boolean;

/** What a route answers when it succeeds; the error responses are added to every operation. */
export type Answer =
  /** 200 `{data}` with this schema. */
  | { readonly kind: 'data'; readonly schema: Json }
  /** 200 `{data}`: the written item re-read as the caller reads `collection`; 204 when they cannot. */
  | { readonly kind: 'item'; readonly collection: string }
  /** 200 with an empty body (reference/routes.md: import, sort, cache clear). */
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

const ACTIVITY = 'svc_activity';
const COMMENTS = 'svc_comments';
const FILES = 'svc_files';
const REVISIONS = 'svc_revisions';
const USERS = 'svc_users';

// Callers, as each route checks them (reference/routes.md, Auth column).
const anyone: Caller = () => true;
const user: Caller = (input) => input.accountability.user !== null;
const admin: Caller = (input) => input.access.isAdmin;
const mayCreate =
  (...collections: string[]): Caller =>
  (input) =>
    collections.every((c) => canWrite(input.access, 'create', c));
const mayUpdate =
  (collection: string): Caller =>
  (input) =>
    canWrite(input.access, 'update', collection);
const mayDelete =
  (collection: string): Caller =>
  (input) =>
    input.access.canDelete(collection);
const mayRead =
  (collection: string): Caller =>
  (input) =>
    canReadCollection(input.access.read, collection);

/** reference/audit-and-utils.md, Revert: the revision read with the caller's access, then an update of its item. */
const reverter: Caller = (input) =>
  mayRead(REVISIONS)(input) && Object.keys(input.overview.collections).some((c) => canWrite(input.access, 'update', c));

/** Issue 18, Restore: the item read with the caller's access, then updated; no svc_revisions permission needed. */
const restorer: Caller = (input) =>
  Object.keys(input.overview.collections).some((c) => canWrite(input.access, 'update', c));

// Collection filters of the `{collection}` routes (reference/audit-and-utils.md).
const readable: CollectionFilter = (input, c) => canReadCollection(input.access.read, c.collection);
/** Manual sort: a sort field, and update permission with the sort field among the fields. */
const sortable: CollectionFilter = (input, c) =>
  c.sortField !== null &&
  isWritableAsItems(c.collection) &&
  canWriteField(input.access, 'update', c.collection, c.sortField);
/** Import: admin for system collections, otherwise create and update permission. */
const importable: CollectionFilter = (input, c) =>
  isWritableAsItems(c.collection) &&
  (!c.isSystem || input.access.isAdmin) &&
  canWrite(input.access, 'create', c.collection) &&
  canWrite(input.access, 'update', c.collection);

// Body schemas, as precise as the routes' checks (http/payload.ts: a required string is non-empty).
const TEXT: Json = { type: 'string' };
const REQUIRED_TEXT: Json = { type: 'string', minLength: 1 };
const EMAIL: Json = { type: 'string', format: 'email' };
const KEY: Json = { oneOf: [{ type: 'string', minLength: 1 }, { type: 'integer' }] };
const OBJECT: Json = { type: 'object' };
const ARRAY: Json = { type: 'array', items: OBJECT };
const NULLABLE_OBJECT: Json = { type: 'object', nullable: true };
const NULLABLE_TEXT: Json = { type: 'string', nullable: true };
const BINARY: Json = { type: 'string', format: 'binary' };
const AUTH_MODE: Json = { type: 'string', enum: [...AUTH_MODES] };

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
function flagParameter(name: string, description: string): Json {
  return { ...queryParameter(name, description, TEXT), allowEmptyValue: true };
}

/** GET /server/health's answer for these statuses. */
function healthResponse(description: string, statuses: readonly string[]): Json {
  return {
    description,
    content: { 'application/health+json': { schema: object({ status: { type: 'string', enum: [...statuses] } }) } },
  };
}

/** `#/components/parameters/<name>` (openapi.ts declares them). */
export function parameterRef(name: string): Json {
  return { $ref: `#/components/parameters/${name}` };
}

const FIELDS = parameterRef('Fields');
const UUID: Json = { type: 'string', format: 'uuid' };
const USER_ID = pathParameter('id', 'The user', UUID);
const COMMENT_ID = pathParameter('id', "The comment's svc_activity row", { type: 'integer' });
const FILE_ID = pathParameter('id', 'The svc_files row', UUID);
const ANY_COLLECTION = pathParameter('collection', 'The collection', TEXT);
const FIELD = pathParameter('field', 'The field', TEXT);
const ACCESS: Json = object({ access: { type: 'boolean' } }, ['access']);
/** GET /permissions/me/{collection}/{id}: update (with presets and fields for singletons), delete, share. */
const ITEM_PERMISSIONS: Json = object(
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
const COLLECTION_ACCESS: Json = object(
  { create: ACTION_ACCESS, read: ACTION_ACCESS, update: ACTION_ACCESS, delete: ACTION_ACCESS, share: ACTION_ACCESS },
  ['create', 'read', 'update', 'delete', 'share'],
);
const SSO_PROVIDER = pathParameter('provider', 'A name of AUTH_PROVIDERS', TEXT);

const AUTH_PROVIDER: Json = object({ name: TEXT, driver: TEXT, icon: TEXT, label: TEXT }, ['name', 'driver']);
const TOKEN_GRANT: Json = object({ access_token: TEXT, expires: { type: 'integer' }, refresh_token: TEXT });
const REFRESH_BODY = json(object({ refresh_token: TEXT, mode: AUTH_MODE }));

// reference/routes.md, Schema routes: the objects the schema routes answer and take.
const COLLECTION_OBJECT: Json = object({ collection: TEXT, meta: NULLABLE_OBJECT, schema: NULLABLE_OBJECT });
const FIELD_OBJECT: Json = object({
  collection: TEXT,
  field: TEXT,
  type: TEXT,
  meta: NULLABLE_OBJECT,
  schema: NULLABLE_OBJECT,
});
const RELATION_OBJECT: Json = object({
  collection: TEXT,
  field: TEXT,
  related_collection: NULLABLE_TEXT,
  meta: NULLABLE_OBJECT,
  schema: NULLABLE_OBJECT,
});
const FIELD_TYPE: Json = { type: 'string', enum: [...CREATABLE_TYPES] };
const FIELD_PAYLOAD = object(
  { field: REQUIRED_TEXT, type: FIELD_TYPE, meta: NULLABLE_OBJECT, schema: NULLABLE_OBJECT },
  ['field', 'type'],
);
const FIELD_PATCH_PROPERTIES: Json = { type: FIELD_TYPE, meta: NULLABLE_OBJECT, schema: OBJECT };
const FIELD_PATCH = object(FIELD_PATCH_PROPERTIES);
const COLLECTION_PAYLOAD = object(
  {
    collection: REQUIRED_TEXT,
    meta: NULLABLE_OBJECT,
    schema: NULLABLE_OBJECT,
    fields: { type: 'array', items: FIELD_PAYLOAD },
  },
  ['collection'],
);
const RELATION_SCHEMA: Json = {
  type: 'object',
  nullable: true,
  properties: { on_delete: { type: 'string', enum: [...REFERENTIAL_ACTIONS] } },
};

const ASSET_PARAMETERS: readonly Json[] = [
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
const ASSET_ANSWER: Answer = {
  kind: 'raw',
  responses: {
    '200': { description: 'The file content', content: { '*/*': { schema: BINARY } } },
    '206': { description: 'The requested range (`Range: bytes=a-b`)', content: { '*/*': { schema: BINARY } } },
    '416': { description: 'The range cannot be satisfied (RANGE_NOT_SATISFIABLE)' },
  },
};

const GRAPHQL_ANSWER: Answer = {
  kind: 'raw',
  responses: {
    '200': {
      description: 'The GraphQL result',
      content: json(object({ data: NULLABLE_OBJECT, errors: { type: 'array', items: OBJECT } })),
    },
  },
};
const GRAPHQL_BODY: Json = {
  ...json(object({ query: REQUIRED_TEXT, variables: NULLABLE_OBJECT, operationName: NULLABLE_TEXT }, ['query'])),
  'application/graphql': { schema: TEXT },
};
const GRAPHQL_PARAMETERS: readonly Json[] = [
  queryParameter('query', 'The GraphQL document (queries only).', REQUIRED_TEXT, true),
  queryParameter('variables', 'The variables, as JSON.', TEXT),
  queryParameter('operationName', 'The operation to run.', TEXT),
];
const SDL_ANSWER: Answer = {
  kind: 'raw',
  responses: { '200': { description: 'GraphQL SDL', content: { 'text/plain': { schema: TEXT } } } },
};

/** reference/routes.md: the routes beside the collections' item routes, by who may call them. */
export const FIXED_ROUTES: readonly FixedRoute[] = [
  {
    path: '/server/ping',
    method: 'get',
    tag: 'Server',
    summary: 'Ping the server',
    caller: anyone,
    answer: {
      kind: 'raw',
      responses: {
        '200': { description: '`pong`', content: { 'text/html': { schema: { type: 'string', enum: ['pong'] } } } },
      },
    },
  },
  {
    path: '/server/info',
    method: 'get',
    tag: 'Server',
    summary: 'Project information',
    caller: anyone,
    answer: { kind: 'data', schema: object({ project: OBJECT }) },
  },
  {
    path: '/server/health',
    method: 'get',
    tag: 'Server',
    summary: 'Health of the service',
    caller: anyone,
    answer: {
      kind: 'raw',
      responses: {
        '200': healthResponse('Status `ok` or `warn`', ['ok', 'warn']),
        '503': healthResponse('Status `error`', ['error']),
      },
    },
  },
  {
    path: '/server/specs/oas',
    method: 'get',
    tag: 'Server',
    summary: 'This OpenAPI document',
    caller: anyone,
    answer: {
      kind: 'raw',
      responses: { '200': { description: 'OpenAPI 3.0.1, not enveloped', content: json(OBJECT) } },
    },
  },
  {
    path: '/server/specs/graphql/',
    method: 'get',
    tag: 'Server',
    summary: 'GraphQL SDL of the items scope',
    caller: anyone,
    answer: SDL_ANSWER,
  },
  {
    path: '/server/specs/graphql/system',
    method: 'get',
    tag: 'Server',
    summary: 'GraphQL SDL of the system scope',
    caller: anyone,
    answer: SDL_ANSWER,
  },

  {
    path: '/auth',
    method: 'get',
    tag: 'Authentication',
    summary: 'The login providers',
    caller: anyone,
    answer: {
      kind: 'raw',
      responses: {
        '200': {
          description: 'Successful request',
          content: json(object({ data: { type: 'array', items: AUTH_PROVIDER }, disableDefault: { type: 'boolean' } })),
        },
      },
    },
  },
  {
    path: '/auth/login',
    method: 'post',
    tag: 'Authentication',
    summary: 'Log in',
    caller: (input) => input.hasDefaultLogin,
    body: json(object({ email: EMAIL, password: REQUIRED_TEXT, otp: TEXT, mode: AUTH_MODE }, ['email', 'password'])),
    answer: { kind: 'data', schema: TOKEN_GRANT },
  },
  {
    path: '/auth/login/{provider}',
    method: 'get',
    tag: 'Authentication',
    summary: 'Log in with a single sign-on provider',
    caller: anyone,
    parameters: [
      SSO_PROVIDER,
      queryParameter('redirect', "Where to go after the login (on the provider's REDIRECT_ALLOW_LIST).", TEXT),
    ],
    answer: { kind: 'raw', responses: { '302': { description: "To the provider's login" } } },
  },
  {
    path: '/auth/login/{provider}/callback',
    method: 'get',
    tag: 'Authentication',
    summary: 'Where the single sign-on provider sends the browser back',
    caller: anyone,
    parameters: [
      SSO_PROVIDER,
      queryParameter('code', 'The authorization code.', TEXT),
      queryParameter('state', 'The state of the login.', TEXT),
    ],
    answer: {
      kind: 'raw',
      responses: {
        '200': { description: 'Logged in without redirect: the tokens', content: json(object({ data: TOKEN_GRANT })) },
        '302': {
          description:
            'To the redirect of the login, with the refresh (or session) cookie, or ?reason=<code> on failure',
        },
      },
    },
  },
  {
    path: '/auth/refresh',
    method: 'post',
    tag: 'Authentication',
    summary: 'Refresh the tokens',
    caller: anyone,
    body: REFRESH_BODY,
    isBodyOptional: true,
    answer: { kind: 'data', schema: TOKEN_GRANT },
  },
  {
    path: '/auth/logout',
    method: 'post',
    tag: 'Authentication',
    summary: 'Log out',
    caller: anyone,
    body: REFRESH_BODY,
    isBodyOptional: true,
    answer: { kind: 'none' },
  },
  {
    path: '/auth/password/request',
    method: 'post',
    tag: 'Authentication',
    summary: 'Request a password reset',
    caller: anyone,
    body: json(object({ email: EMAIL, reset_url: TEXT }, ['email'])),
    answer: { kind: 'none' },
  },
  {
    path: '/auth/password/reset',
    method: 'post',
    tag: 'Authentication',
    summary: 'Reset a password',
    caller: anyone,
    body: json(object({ token: REQUIRED_TEXT, password: REQUIRED_TEXT }, ['token', 'password'])),
    answer: { kind: 'none' },
  },

  {
    path: '/users/invite',
    method: 'post',
    tag: 'Users',
    summary: 'Invite users',
    caller: mayCreate(USERS),
    body: json(
      object(
        { email: { oneOf: [EMAIL, { type: 'array', items: EMAIL, minItems: 1 }] }, role: UUID, invite_url: TEXT },
        ['email', 'role'],
      ),
    ),
    answer: { kind: 'none' },
  },
  {
    path: '/users/invite/accept',
    method: 'post',
    tag: 'Users',
    summary: 'Accept an invitation',
    caller: anyone,
    body: json(object({ token: REQUIRED_TEXT, password: REQUIRED_TEXT }, ['token', 'password'])),
    answer: { kind: 'none' },
  },
  {
    path: '/users/register',
    method: 'post',
    tag: 'Users',
    summary: 'Register a user',
    caller: anyone,
    body: json(
      object({ email: EMAIL, password: REQUIRED_TEXT, verification_url: TEXT, first_name: TEXT, last_name: TEXT }, [
        'email',
        'password',
      ]),
    ),
    answer: { kind: 'none' },
  },
  {
    path: '/users/register/verify-email',
    method: 'get',
    tag: 'Users',
    summary: 'Verify a registered e-mail address',
    caller: anyone,
    parameters: [queryParameter('token', 'The verification token of the e-mail.', REQUIRED_TEXT, true)],
    answer: {
      kind: 'raw',
      responses: {
        '204': { description: 'Verified' },
        '302': { description: "Verified: to the registration's verification_url" },
      },
    },
  },
  {
    path: '/users/me',
    method: 'get',
    tag: 'Users',
    summary: 'The current user',
    caller: user,
    parameters: [FIELDS],
    answer: { kind: 'item', collection: USERS },
  },
  {
    path: '/users/me',
    method: 'patch',
    tag: 'Users',
    summary: 'Update the current user',
    caller: user,
    parameters: [FIELDS],
    body: json(OBJECT),
    answer: { kind: 'item', collection: USERS },
  },
  {
    path: '/permissions/me',
    method: 'get',
    tag: 'Permissions',
    summary: "The caller's access per collection and action",
    caller: user,
    answer: { kind: 'data', schema: { type: 'object', additionalProperties: COLLECTION_ACCESS } },
  },
  {
    path: '/permissions/me/{collection}',
    method: 'get',
    tag: 'Permissions',
    summary: 'Whether the caller may update, delete and share items of a collection',
    caller: user,
    collections: readable,
    answer: { kind: 'data', schema: ITEM_PERMISSIONS },
  },
  {
    path: '/permissions/me/{collection}/{id}',
    method: 'get',
    tag: 'Permissions',
    summary: 'Whether the caller may update, delete and share one item',
    caller: user,
    collections: readable,
    parameters: [pathParameter('id', 'The primary key of the item', KEY)],
    answer: { kind: 'data', schema: ITEM_PERMISSIONS },
  },
  {
    path: '/users/me/track/page',
    method: 'patch',
    tag: 'Users',
    summary: 'Track the current page',
    caller: user,
    body: json(object({ last_page: { type: 'string', minLength: 1, maxLength: LAST_PAGE_MAX_LENGTH } }, ['last_page'])),
    answer: { kind: 'none' },
  },
  {
    path: '/users/me/tfa/generate',
    method: 'post',
    tag: 'Users',
    summary: 'Generate a TFA secret',
    caller: user,
    body: json(object({ password: REQUIRED_TEXT }, ['password'])),
    answer: { kind: 'data', schema: object({ secret: TEXT, otpauth_url: TEXT }) },
  },
  {
    path: '/users/me/tfa/enable',
    method: 'post',
    tag: 'Users',
    summary: 'Enable TFA',
    caller: user,
    body: json(object({ secret: REQUIRED_TEXT, otp: REQUIRED_TEXT }, ['secret', 'otp'])),
    answer: { kind: 'none' },
  },
  {
    path: '/users/me/tfa/disable',
    method: 'post',
    tag: 'Users',
    summary: 'Disable TFA',
    caller: user,
    body: json(object({ otp: REQUIRED_TEXT }, ['otp'])),
    answer: { kind: 'none' },
  },
  {
    path: '/users/{id}/tfa/disable',
    method: 'post',
    tag: 'Users',
    summary: "Disable a user's TFA",
    caller: admin,
    parameters: [USER_ID],
    answer: { kind: 'none' },
  },

  {
    path: '/activity/comment',
    method: 'post',
    tag: 'Activity',
    summary: 'Comment on an item',
    caller: mayCreate(ACTIVITY, COMMENTS),
    parameters: [FIELDS],
    body: json(
      object({ collection: REQUIRED_TEXT, item: KEY, comment: REQUIRED_TEXT }, ['collection', 'item', 'comment']),
    ),
    answer: { kind: 'item', collection: ACTIVITY },
  },
  {
    path: '/activity/comment/{id}',
    method: 'patch',
    tag: 'Activity',
    summary: 'Update a comment (its author or an admin)',
    caller: mayUpdate(COMMENTS),
    parameters: [COMMENT_ID, FIELDS],
    body: json(object({ comment: REQUIRED_TEXT }, ['comment'])),
    answer: { kind: 'item', collection: ACTIVITY },
  },
  {
    path: '/activity/comment/{id}',
    method: 'delete',
    tag: 'Activity',
    summary: 'Delete a comment (its author or an admin)',
    caller: mayDelete(COMMENTS),
    parameters: [COMMENT_ID],
    answer: { kind: 'none' },
  },

  {
    path: '/files/import',
    method: 'post',
    tag: 'Files',
    summary: 'Import a file from a URL',
    caller: mayCreate(FILES),
    parameters: [FIELDS],
    body: json(object({ url: REQUIRED_TEXT, data: NULLABLE_OBJECT }, ['url'])),
    answer: { kind: 'item', collection: FILES },
  },
  {
    path: '/assets/{id}',
    method: 'get',
    tag: 'Assets',
    summary: "A file's content",
    caller: mayRead(FILES),
    parameters: [FILE_ID, ...ASSET_PARAMETERS],
    answer: ASSET_ANSWER,
  },
  {
    path: '/assets/{id}/{filename}',
    method: 'get',
    tag: 'Assets',
    summary: "A file's content (the filename is cosmetic)",
    caller: mayRead(FILES),
    parameters: [FILE_ID, pathParameter('filename', 'Any name', TEXT), ...ASSET_PARAMETERS],
    answer: ASSET_ANSWER,
  },

  {
    path: '/utils/random/string',
    method: 'get',
    tag: 'Utilities',
    summary: 'A random string',
    caller: anyone,
    parameters: [
      queryParameter('length', 'How many characters.', { type: 'integer', minimum: 1, maximum: 500, default: 32 }),
    ],
    answer: { kind: 'data', schema: TEXT },
  },
  {
    path: '/utils/hash/generate',
    method: 'post',
    tag: 'Utilities',
    summary: 'Hash a string',
    caller: anyone,
    body: json(object({ string: REQUIRED_TEXT }, ['string'])),
    answer: { kind: 'data', schema: TEXT },
  },
  {
    path: '/utils/hash/verify',
    method: 'post',
    tag: 'Utilities',
    summary: 'Verify a hash',
    caller: anyone,
    body: json(object({ string: REQUIRED_TEXT, hash: REQUIRED_TEXT }, ['string', 'hash'])),
    answer: { kind: 'data', schema: { type: 'boolean' } },
  },
  {
    path: '/utils/sort/{collection}',
    method: 'post',
    tag: 'Utilities',
    summary: 'Move an item to the place of another (manual sort)',
    caller: anyone,
    collections: sortable,
    body: json(object({ item: KEY, to: KEY }, ['item', 'to'])),
    answer: { kind: 'empty' },
  },
  {
    path: '/revisions/{id}/diff',
    method: 'get',
    tag: 'Revisions',
    summary: 'What changed, per field, between a revision and the previous one (or `to`)',
    caller: mayRead(REVISIONS),
    parameters: [
      pathParameter('id', 'The svc_revisions row', { type: 'integer' }),
      queryParameter('to', 'A later revision of the same item (default: compare with the previous one)', {
        type: 'integer',
      }),
    ],
    answer: { kind: 'data', schema: OBJECT },
  },
  {
    path: '/items/{collection}/{id}/history',
    method: 'get',
    tag: 'Revisions',
    summary: "An item's revisions, newest first (with `field`: one field's)",
    caller: mayRead(REVISIONS),
    collections: readable,
    parameters: [
      pathParameter('id', 'The primary key of the item', KEY),
      queryParameter('limit', 'Revisions per page', { type: 'integer', minimum: 1 }),
      queryParameter('page', 'The page, from 1', { type: 'integer', minimum: 1 }),
      queryParameter('field', 'Only the revisions that set this field, with its value', TEXT),
    ],
    answer: { kind: 'data', schema: { type: 'array', items: OBJECT } },
  },
  {
    path: '/utils/revert',
    method: 'post',
    tag: 'Utilities',
    summary: 'Restore an item to how it was at a moment (an audited update)',
    caller: restorer,
    body: json(object({ collection: REQUIRED_TEXT, item: KEY, as_of: REQUIRED_TEXT }, ['collection', 'item', 'as_of'])),
    answer: { kind: 'none' },
  },
  {
    path: '/utils/undo',
    method: 'post',
    tag: 'Utilities',
    summary: 'Undo the writes of the activity rows a filter selects (or answer the plan: dry_run)',
    caller: mayRead(ACTIVITY),
    body: json(object({ filter: OBJECT, dry_run: { type: 'boolean' }, force: { type: 'boolean' } }, ['filter'])),
    answer: { kind: 'data', schema: { type: 'array', items: OBJECT } },
  },
  {
    path: '/utils/revert/{revision}',
    method: 'post',
    tag: 'Utilities',
    summary: 'Revert an item to a revision',
    caller: reverter,
    parameters: [pathParameter('revision', 'The svc_revisions row', { type: 'integer' })],
    answer: { kind: 'none' },
  },
  {
    path: '/utils/import/{collection}',
    method: 'post',
    tag: 'Utilities',
    summary: 'Import items from a CSV or JSON file (upserts)',
    caller: anyone,
    collections: importable,
    body: {
      'multipart/form-data': {
        schema: object({ file: BINARY }, ['file']),
        encoding: { file: { contentType: Object.keys(IMPORT_FORMATS).join(', ') } },
      },
    },
    answer: { kind: 'empty' },
  },
  {
    path: '/utils/export/{collection}',
    method: 'post',
    tag: 'Utilities',
    summary: 'Export items to a file in the file library, in the background',
    caller: anyone,
    collections: readable,
    body: json(
      object({ format: { type: 'string', enum: [...EXPORT_QUERY_FORMATS] }, query: OBJECT, file: NULLABLE_OBJECT }, [
        'format',
        'query',
      ]),
    ),
    answer: { kind: 'none' },
  },
  {
    path: '/utils/cache/clear',
    method: 'post',
    tag: 'Utilities',
    summary: 'Clear the caches',
    caller: admin,
    parameters: [flagParameter('system', 'Accepted; changes nothing.')],
    answer: { kind: 'empty' },
  },

  {
    path: '/schema/snapshot',
    method: 'get',
    tag: 'Schema',
    summary: 'Snapshot of the user schema (collections, fields, relations)',
    caller: admin,
    parameters: [
      queryParameter('export', 'Download the snapshot as a file.', { type: 'string', enum: ['json', 'yaml'] }),
    ],
    answer: {
      kind: 'data',
      schema: object({
        version: { type: 'integer' },
        vendor: TEXT,
        hash: TEXT,
        collections: ARRAY,
        fields: ARRAY,
        relations: ARRAY,
      }),
    },
  },
  {
    path: '/schema/diff',
    method: 'post',
    tag: 'Schema',
    summary: 'Difference from the current schema to a snapshot; 204 when none',
    caller: admin,
    parameters: [flagParameter('force', 'Diff a snapshot of another database vendor.')],
    body: json(
      object(
        { version: { type: 'integer' }, vendor: REQUIRED_TEXT, collections: ARRAY, fields: ARRAY, relations: ARRAY },
        ['version', 'vendor', 'collections', 'fields', 'relations'],
      ),
    ),
    answer: { kind: 'data', schema: object({ hash: TEXT, diff: OBJECT }) },
  },
  {
    path: '/schema/apply',
    method: 'post',
    tag: 'Schema',
    summary: 'Apply a diff made against the current schema',
    caller: admin,
    parameters: [flagParameter('allow_destructive', 'Allow steps that drop stored data.')],
    body: json(object({ hash: REQUIRED_TEXT, diff: OBJECT }, ['hash', 'diff'])),
    answer: { kind: 'none' },
  },

  {
    path: '/collections',
    method: 'get',
    tag: 'Collections',
    summary: 'The collections the caller reads',
    caller: anyone,
    answer: { kind: 'data', schema: { type: 'array', items: COLLECTION_OBJECT } },
  },
  {
    path: '/collections/{collection}',
    method: 'get',
    tag: 'Collections',
    summary: 'One collection',
    caller: anyone,
    collections: readable,
    answer: { kind: 'data', schema: COLLECTION_OBJECT },
  },
  {
    path: '/collections',
    method: 'post',
    tag: 'Collections',
    summary: 'Create collections',
    caller: admin,
    body: json({ oneOf: [COLLECTION_PAYLOAD, { type: 'array', items: COLLECTION_PAYLOAD }] }),
    answer: { kind: 'data', schema: { oneOf: [COLLECTION_OBJECT, { type: 'array', items: COLLECTION_OBJECT }] } },
  },
  {
    path: '/collections',
    method: 'patch',
    tag: 'Collections',
    summary: "Update collections' meta",
    caller: admin,
    body: json({ type: 'array', items: object({ collection: REQUIRED_TEXT, meta: OBJECT }, ['collection', 'meta']) }),
    answer: { kind: 'data', schema: { type: 'array', items: COLLECTION_OBJECT } },
  },
  {
    path: '/collections/{collection}',
    method: 'patch',
    tag: 'Collections',
    summary: "Update a collection's meta",
    caller: admin,
    parameters: [ANY_COLLECTION],
    body: json(object({ meta: OBJECT }, ['meta'])),
    answer: { kind: 'data', schema: COLLECTION_OBJECT },
  },
  {
    path: '/collections/{collection}',
    method: 'delete',
    tag: 'Collections',
    summary: 'Delete a collection and its table',
    caller: admin,
    parameters: [ANY_COLLECTION],
    answer: { kind: 'none' },
  },

  {
    path: '/fields',
    method: 'get',
    tag: 'Fields',
    summary: 'The fields the caller reads',
    caller: anyone,
    answer: { kind: 'data', schema: { type: 'array', items: FIELD_OBJECT } },
  },
  {
    path: '/fields/{collection}',
    method: 'get',
    tag: 'Fields',
    summary: "A collection's fields",
    caller: anyone,
    collections: readable,
    answer: { kind: 'data', schema: { type: 'array', items: FIELD_OBJECT } },
  },
  {
    path: '/fields/{collection}/{field}',
    method: 'get',
    tag: 'Fields',
    summary: 'One field',
    caller: anyone,
    collections: readable,
    parameters: [FIELD],
    answer: { kind: 'data', schema: FIELD_OBJECT },
  },
  {
    path: '/fields/{collection}',
    method: 'post',
    tag: 'Fields',
    summary: 'Create a field',
    caller: admin,
    parameters: [ANY_COLLECTION],
    body: json(FIELD_PAYLOAD),
    answer: { kind: 'data', schema: FIELD_OBJECT },
  },
  {
    path: '/fields/{collection}',
    method: 'patch',
    tag: 'Fields',
    summary: 'Update fields',
    caller: admin,
    parameters: [ANY_COLLECTION],
    body: json({ type: 'array', items: object({ field: REQUIRED_TEXT, ...FIELD_PATCH_PROPERTIES }, ['field']) }),
    answer: { kind: 'data', schema: { type: 'array', items: FIELD_OBJECT } },
  },
  {
    path: '/fields/{collection}/{field}',
    method: 'patch',
    tag: 'Fields',
    summary: 'Update a field',
    caller: admin,
    parameters: [ANY_COLLECTION, FIELD],
    body: json(FIELD_PATCH),
    answer: { kind: 'data', schema: FIELD_OBJECT },
  },
  {
    path: '/fields/{collection}/{field}',
    method: 'delete',
    tag: 'Fields',
    summary: 'Delete a field',
    caller: admin,
    parameters: [ANY_COLLECTION, FIELD],
    answer: { kind: 'none' },
  },

  {
    path: '/relations',
    method: 'get',
    tag: 'Relations',
    summary: 'The relations the caller reads',
    caller: anyone,
    answer: { kind: 'data', schema: { type: 'array', items: RELATION_OBJECT } },
  },
  {
    path: '/relations/{collection}',
    method: 'get',
    tag: 'Relations',
    summary: "A collection's relations",
    caller: anyone,
    collections: readable,
    answer: { kind: 'data', schema: { type: 'array', items: RELATION_OBJECT } },
  },
  {
    path: '/relations/{collection}/{field}',
    method: 'get',
    tag: 'Relations',
    summary: 'One relation',
    caller: anyone,
    collections: readable,
    parameters: [FIELD],
    answer: { kind: 'data', schema: RELATION_OBJECT },
  },
  {
    path: '/relations',
    method: 'post',
    tag: 'Relations',
    summary: 'Create a relation',
    caller: admin,
    body: json(
      object(
        {
          collection: REQUIRED_TEXT,
          field: REQUIRED_TEXT,
          related_collection: NULLABLE_TEXT,
          meta: NULLABLE_OBJECT,
          schema: RELATION_SCHEMA,
        },
        ['collection', 'field'],
      ),
    ),
    answer: { kind: 'data', schema: RELATION_OBJECT },
  },
  {
    path: '/relations/{collection}/{field}',
    method: 'patch',
    tag: 'Relations',
    summary: 'Update a relation',
    caller: admin,
    parameters: [ANY_COLLECTION, FIELD],
    body: json(object({ meta: NULLABLE_OBJECT, schema: RELATION_SCHEMA })),
    answer: { kind: 'data', schema: RELATION_OBJECT },
  },
  {
    path: '/relations/{collection}/{field}',
    method: 'delete',
    tag: 'Relations',
    summary: 'Delete a relation',
    caller: admin,
    parameters: [ANY_COLLECTION, FIELD],
    answer: { kind: 'none' },
  },

  {
    path: '/graphql',
    method: 'get',
    tag: 'GraphQL',
    summary: 'GraphQL queries, items scope',
    caller: anyone,
    parameters: GRAPHQL_PARAMETERS,
    answer: GRAPHQL_ANSWER,
  },
  {
    path: '/graphql',
    method: 'post',
    tag: 'GraphQL',
    summary: 'GraphQL, items scope',
    caller: anyone,
    body: GRAPHQL_BODY,
    answer: GRAPHQL_ANSWER,
  },
  {
    path: '/graphql/system',
    method: 'get',
    tag: 'GraphQL',
    summary: 'GraphQL queries, system scope',
    caller: anyone,
    parameters: GRAPHQL_PARAMETERS,
    answer: GRAPHQL_ANSWER,
  },
  {
    path: '/graphql/system',
    method: 'post',
    tag: 'GraphQL',
    summary: 'GraphQL, system scope',
    caller: anyone,
    body: GRAPHQL_BODY,
    answer: GRAPHQL_ANSWER,
  },
];
