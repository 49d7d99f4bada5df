import type { Knex } from 'knex';
import type { CollectionOverview, FieldType, SchemaOverview } from '../../catalog/overview/types.js';
import type { Accountability } from '../access/accountability.js';
import type { Config } from '../config/index.js';
import { canWrite, CollectionTypes, type SchemaAccess } from '../graphql/index.js';
import { SERVICE_VERSION } from '../version.js';
import { SYSTEM_WRITE_ROUTES } from './routes/item-writes.js';
import { SYSTEM_READ_ROUTES } from './routes/items-read.js';

/** An OpenAPI 3.0 object, built as plain JSON. */
type Json = Record<string, unknown>;

export interface OpenApiInput {
  readonly overview: SchemaOverview;
  /** What the caller's role may use: the same decisions as its GraphQL schema. */
  readonly access: SchemaAccess;
  readonly accountability: Accountability;
  readonly projectName: string;
  readonly publicUrl: string;
}

/** System collections whose own routes take writes (the journal's are read only). */
const WRITABLE_SYSTEM_COLLECTIONS: ReadonlySet<string> = new Set(SYSTEM_WRITE_ROUTES.map(([, collection]) => collection));

/** GET /server/specs/oas's document (and GraphQL's server_specs_oas) for the caller. */
export async function readOpenApi(
  deps: { readonly config: Config; readonly db: Knex },
  overview: SchemaOverview,
  access: SchemaAccess,
  accountability: Accountability,
): Promise<Json> {
  const row = await deps.db('svc_settings').first<{ project_name: string | null } | undefined>('project_name');
  const projectName = row?.project_name ?? 'Content data service';
  return buildOpenApi({ overview, access, accountability, projectName, publicUrl: deps.config.publicUrl });
}

/** A route outside the collections, and who may use it. */
interface FixedRoute {
  readonly path: string;
  readonly method: 'get' | 'post' | 'patch';
  readonly tag: string;
  readonly summary: string;
  readonly caller: 'any' | 'user' | 'admin' | 'inviter';
}

/** reference/routes.md: the routes beside the collections', by who may call them. */
const FIXED_ROUTES: readonly FixedRoute[] = [
  { path: '/server/ping', method: 'get', tag: 'Server', summary: 'Ping the server', caller: 'any' },
  { path: '/server/info', method: 'get', tag: 'Server', summary: 'Project information', caller: 'any' },
  { path: '/server/health', method: 'get', tag: 'Server', summary: 'Health of the service', caller: 'any' },
  { path: '/server/specs/oas', method: 'get', tag: 'Server', summary: 'This OpenAPI document', caller: 'any' },
  { path: '/server/specs/graphql/', method: 'get', tag: 'Server', summary: 'GraphQL SDL of the items scope', caller: 'any' },
  { path: '/server/specs/graphql/system', method: 'get', tag: 'Server', summary: 'GraphQL SDL of the system scope', caller: 'any' },
  { path: '/auth/login', method: 'post', tag: 'Authentication', summary: 'Log in', caller: 'any' },
  { path: '/auth/refresh', method: 'post', tag: 'Authentication', summary: 'Refresh the tokens', caller: 'any' },
  { path: '/auth/logout', method: 'post', tag: 'Authentication', summary: 'Log out', caller: 'any' },
  { path: '/auth/password/request', method: 'post', tag: 'Authentication', summary: 'Request a password reset', caller: 'any' },
  { path: '/auth/password/reset', method: 'post', tag: 'Authentication', summary: 'Reset a password', caller: 'any' },
  { path: '/users/invite', method: 'post', tag: 'Users', summary: 'Invite users', caller: 'inviter' },
  { path: '/users/invite/accept', method: 'post', tag: 'Users', summary: 'Accept an invitation', caller: 'any' },
  { path: '/users/register', method: 'post', tag: 'Users', summary: 'Register a user', caller: 'any' },
  { path: '/users/register/verify-email', method: 'get', tag: 'Users', summary: 'Verify a registered e-mail address', caller: 'any' },
  { path: '/users/me', method: 'get', tag: 'Users', summary: 'The current user', caller: 'user' },
  { path: '/users/me', method: 'patch', tag: 'Users', summary: 'Update the current user', caller: 'user' },
  { path: '/users/me/track/page', method: 'patch', tag: 'Users', summary: 'Track the current page', caller: 'user' },
  { path: '/users/me/tfa/generate', method: 'post', tag: 'Users', summary: 'Generate a TFA secret', caller: 'user' },
  { path: '/users/me/tfa/enable', method: 'post', tag: 'Users', summary: 'Enable TFA', caller: 'user' },
  { path: '/users/me/tfa/disable', method: 'post', tag: 'Users', summary: 'Disable TFA', caller: 'user' },
  { path: '/utils/random/string', method: 'get', tag: 'Utilities', summary: 'A random string', caller: 'any' },
  { path: '/utils/hash/generate', method: 'post', tag: 'Utilities', summary: 'Hash a string', caller: 'any' },
  { path: '/utils/hash/verify', method: 'post', tag: 'Utilities', summary: 'Verify a hash', caller: 'any' },
  { path: '/utils/cache/clear', method: 'post', tag: 'Utilities', summary: 'Clear the caches', caller: 'admin' },
  { path: '/graphql', method: 'post', tag: 'GraphQL', summary: 'GraphQL, items scope', caller: 'any' },
  { path: '/graphql/system', method: 'post', tag: 'GraphQL', summary: 'GraphQL, system scope', caller: 'any' },
];

/** reference/query.md: the read parameters, shared by every list and item route. */
const QUERY_PARAMETERS: Readonly<Record<string, Json>> = {
  Fields: queryParameter('fields', 'Fields to return; `*` for all, dot paths for relations.', { type: 'array', items: { type: 'string' } }),
  Filter: queryParameter('filter', 'Only items matching this filter.', { type: 'object' }),
  Sort: queryParameter('sort', 'Fields to sort on; `-` first for descending.', { type: 'array', items: { type: 'string' } }),
  Limit: queryParameter('limit', 'How many items; -1 for all.', { type: 'integer' }),
  Offset: queryParameter('offset', 'How many items to skip.', { type: 'integer' }),
  Page: queryParameter('page', 'The page of `limit` items.', { type: 'integer' }),
  Search: queryParameter('search', 'Only items with this text in a string field.', { type: 'string' }),
  Meta: queryParameter('meta', '`total_count`, `filter_count` or `*`.', { type: 'string' }),
};

const LIST_PARAMETERS = ['Fields', 'Filter', 'Sort', 'Limit', 'Offset', 'Page', 'Search', 'Meta'].map(parameterRef);
const ITEM_PARAMETERS = ['Fields'].map(parameterRef);
const ID_PARAMETER: Json = { name: 'id', in: 'path', required: true, description: 'The primary key', schema: { oneOf: [{ type: 'string' }, { type: 'integer' }] } };

const ERROR_SCHEMA: Json = {
  type: 'object',
  properties: {
    errors: {
      type: 'array',
      items: {
        type: 'object',
        properties: { message: { type: 'string' }, extensions: { type: 'object', properties: { code: { type: 'string' } } } },
      },
    },
  },
};

const ERROR_RESPONSES: Json = {
  '400': responseRef('BadRequestError'),
  '401': responseRef('UnauthorizedError'),
  '403': responseRef('ForbiddenError'),
};

/**
 * GET /server/specs/oas (reference/routes.md): an OpenAPI 3.0.1 document of what the caller
 * may use. Collections, fields and relations are those of the caller's GraphQL schema
 * (`CollectionTypes` over the same `SchemaAccess`); the write operations of a collection are
 * there when the role may create, update or delete in it; fixed routes by who may call them.
 */
export function buildOpenApi(input: OpenApiInput): Json {
  const types = new CollectionTypes(input.overview, input.access);
  const collections = Object.values(input.overview.collections).filter((c) => types.isItemCollection(c.collection));
  const names = schemaNames(collections);
  const paths: Json = {};
  const tags = new Map<string, string>();

  for (const collection of collections) {
    const name = names.get(collection.collection) ?? collection.collection;
    const base = collection.isSystem ? systemPath(collection.collection) : `/items/${collection.collection}`;
    if (base === undefined) continue;
    const writable = !collection.isSystem || WRITABLE_SYSTEM_COLLECTIONS.has(collection.collection);
    tags.set(name, collection.isSystem ? `The ${collection.collection} system collection` : `Items of ${collection.collection}`);
    Object.assign(paths, collectionPaths(collection, base, name, writable ? input.access : undefined));
  }

  for (const route of FIXED_ROUTES) {
    if (!mayCall(route.caller, input)) continue;
    tags.set(route.tag, tags.get(route.tag) ?? route.tag);
    const operations = (paths[route.path] ??= {}) as Json;
    operations[route.method] = {
      tags: [route.tag],
      summary: route.summary,
      operationId: operationId(route.method, route.path),
      responses: { '200': { description: 'Successful request' }, '204': { description: 'Done, nothing to return' }, ...ERROR_RESPONSES },
    };
  }

  return {
    openapi: '3.0.1',
    info: { title: input.projectName, version: SERVICE_VERSION, description: 'The REST API of the content data service, as the caller may use it.' },
    servers: [{ url: input.publicUrl, description: 'This server' }],
    paths,
    tags: [...tags].map(([name, description]) => ({ name, description })),
    components: {
      schemas: {
        ...Object.fromEntries(collections.map((c) => [names.get(c.collection), collectionSchema(types, c, names)])),
        Error: ERROR_SCHEMA,
      },
      parameters: QUERY_PARAMETERS,
      responses: {
        BadRequestError: errorResponse('Invalid request: payload or query (INVALID_PAYLOAD, INVALID_QUERY, FAILED_VALIDATION).'),
        UnauthorizedError: errorResponse('Invalid or expired credentials (INVALID_CREDENTIALS, TOKEN_EXPIRED).'),
        ForbiddenError: errorResponse('Not allowed, or does not exist (FORBIDDEN).'),
      },
      securitySchemes: {
        Auth: { type: 'http', scheme: 'bearer' },
        KeyAuth: { type: 'apiKey', in: 'query', name: 'access_token' },
      },
    },
    security: [{ Auth: [] }, { KeyAuth: [] }],
  };
}

function mayCall(caller: FixedRoute['caller'], input: OpenApiInput): boolean {
  switch (caller) {
    case 'any':
      return true;
    case 'user':
      return input.accountability.user !== null;
    case 'admin':
      return input.access.isAdmin;
    case 'inviter':
      return canWrite(input.access, 'create', 'svc_users');
  }
}

/** The list and item paths of one collection; writes only where `access` (when given) allows them. */
function collectionPaths(collection: CollectionOverview, base: string, name: string, access: SchemaAccess | undefined): Json {
  const ref = schemaRef(name);
  const one = { type: 'object', properties: { data: ref } };
  const many = { type: 'object', properties: { data: { type: 'array', items: ref }, meta: { type: 'object' } } };
  // `schema` undefined: the operation answers 204 without a body.
  const operation = (verb: string, summary: string, parameters: readonly Json[], schema: Json | undefined, body?: Json) => ({
    tags: [name],
    summary,
    operationId: `${verb}${name}`,
    parameters,
    ...(body === undefined ? {} : { requestBody: { content: { 'application/json': { schema: body } } } }),
    responses: {
      ...(schema === undefined
        ? { '204': { description: 'Done, nothing to return' } }
        : { '200': { description: 'Successful request', content: { 'application/json': { schema } } } }),
      ...ERROR_RESPONSES,
    },
  });
  const canCreate = access !== undefined && canWrite(access, 'create', collection.collection);
  const canUpdate = access !== undefined && canWrite(access, 'update', collection.collection);
  const canDelete = access?.canDelete(collection.collection) ?? false;

  if (collection.singleton) {
    const singleton: Json = { get: operation('read', `Read the ${collection.collection} singleton`, ITEM_PARAMETERS, one) };
    if (canUpdate) singleton['patch'] = operation('update', `Update the ${collection.collection} singleton`, ITEM_PARAMETERS, one, ref);
    return { [base]: singleton };
  }
  const list: Json = { get: operation('read', `List ${collection.collection} items`, LIST_PARAMETERS, many) };
  const item: Json = { get: operation('readOne', `Read one ${collection.collection} item`, [ID_PARAMETER, ...ITEM_PARAMETERS], one) };
  if (canCreate) list['post'] = operation('create', `Create ${collection.collection} items`, ITEM_PARAMETERS, one, { oneOf: [ref, { type: 'array', items: ref }] });
  if (canUpdate) {
    list['patch'] = operation('update', `Update ${collection.collection} items`, ITEM_PARAMETERS, many, { type: 'object', properties: { keys: { type: 'array', items: {} }, query: { type: 'object' }, data: ref } });
    item['patch'] = operation('updateOne', `Update one ${collection.collection} item`, [ID_PARAMETER, ...ITEM_PARAMETERS], one, ref);
  }
  if (canDelete) {
    list['delete'] = operation('delete', `Delete ${collection.collection} items`, [], undefined, { type: 'array', items: {} });
    item['delete'] = operation('deleteOne', `Delete one ${collection.collection} item`, [ID_PARAMETER], undefined);
  }
  return { [base]: list, [`${base}/{id}`]: item };
}

/**
 * An item's schema: the readable fields with their OpenAPI types; a relation to a collection
 * the role reads is its key or the related item, one to a collection it does not is the key
 * (many-to-one) or absent (one-to-many), as in the GraphQL types.
 */
function collectionSchema(types: CollectionTypes, collection: CollectionOverview, names: ReadonlyMap<string, string>): Json {
  const properties: Json = {};
  const keyOf = (name: string) => {
    const target = types.overview.collections[name];
    const key = target?.fields[target.primary];
    return key === undefined ? {} : fieldType(key.type);
  };
  const refOf = (name: string) => schemaRef(names.get(name) ?? name);
  for (const field of types.readableFields(collection.collection)) {
    const relation = types.relationOf(collection.collection, field.field);
    if (relation?.kind === 'm2o' && types.isItemCollection(relation.related)) {
      properties[field.field] = { nullable: field.nullable, oneOf: [keyOf(relation.related), refOf(relation.related)] };
      continue;
    }
    if (relation?.kind === 'o2m') {
      if (types.isItemCollection(relation.related)) {
        properties[field.field] = { type: 'array', nullable: true, items: { oneOf: [keyOf(relation.related), refOf(relation.related)] } };
      }
      continue;
    }
    if (relation?.kind === 'a2o') {
      const members = relation.allowed.filter((c) => types.isItemCollection(c));
      properties[field.field] = { nullable: field.nullable, oneOf: [{ type: 'string' }, ...members.map(refOf)] };
      continue;
    }
    if (field.isAlias) continue;
    properties[field.field] = { ...fieldType(field.type), ...(field.nullable && !field.isPrimaryKey ? { nullable: true } : {}) };
  }
  return { type: 'object', 'x-collection': collection.collection, properties };
}

/** reference/graphql.md's field type mapping, in OpenAPI words. */
export function fieldType(type: FieldType): Json {
  switch (type) {
    case 'integer':
      return { type: 'integer' };
    case 'bigInteger':
      return { type: 'integer', format: 'int64' };
    case 'float':
      return { type: 'number', format: 'float' };
    case 'decimal':
      return { type: 'number' };
    case 'boolean':
      return { type: 'boolean' };
    case 'date':
      return { type: 'string', format: 'date' };
    case 'dateTime':
    case 'timestamp':
      return { type: 'string', format: 'date-time' };
    case 'time':
      return { type: 'string', format: 'time' };
    case 'uuid':
      return { type: 'string', format: 'uuid' };
    case 'csv':
      return { type: 'array', items: { type: 'string' } };
    case 'json':
    case 'unknown':
      return {};
    case 'string':
    case 'text':
    case 'hash':
    case 'binary':
    case 'geometry':
    case 'alias':
      return { type: 'string' };
  }
}

/** Component names: `Items<Name>` for user collections, `<Name>` for system ones (svc_users → Users); unique. */
function schemaNames(collections: readonly CollectionOverview[]): Map<string, string> {
  const names = new Map<string, string>();
  const taken = new Set<string>(['Error']);
  for (const collection of collections) {
    const base = collection.isSystem ? pascal(collection.collection.replace(/^svc_/, '')) : `Items${pascal(collection.collection)}`;
    let name = base;
    for (let n = 2; taken.has(name); n++) name = `${base}${n}`;
    taken.add(name);
    names.set(collection.collection, name);
  }
  return names;
}

function pascal(text: string): string {
  const words = text.split(/[^A-Za-z0-9]+/).filter((w) => w !== '');
  return words.map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('') || 'Collection';
}

function systemPath(collection: string): string | undefined {
  return Object.entries(SYSTEM_READ_ROUTES).find(([, c]) => c === collection)?.[0];
}

function operationId(method: string, path: string): string {
  return `${method}${pascal(path)}`;
}

function queryParameter(name: string, description: string, schema: Json): Json {
  return { name, in: 'query', required: false, description, schema };
}

function parameterRef(name: string): Json {
  return { $ref: `#/components/parameters/${name}` };
}

function responseRef(name: string): Json {
  return { $ref: `#/components/responses/${name}` };
}

function schemaRef(name: string): Json {
  return { $ref: `#/components/schemas/${name}` };
}

function errorResponse(description: string): Json {
  return { description, content: { 'application/json': { schema: schemaRef('Error') } } };
}
