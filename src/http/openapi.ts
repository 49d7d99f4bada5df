import type { Knex } from 'knex';
import type { CollectionOverview, SchemaOverview } from '../../catalog/overview/types.js';
import type { Accountability } from '../access/accountability.js';
import type { Config } from '../config/index.js';
import { canWrite, type SchemaAccess } from '../access/role-schema-access.js';
import { CollectionTypes } from '../graphql/index.js';
import { FILES_COLLECTION } from '../files/file-library.js';
import { SERVICE_VERSION } from '../version.js';
import {
  FIXED_ROUTES,
  parameterRef,
  pathParameter,
  queryParameter,
  type Answer,
  type FixedRoute,
  type Json,
  type OpenApiInput,
} from './openapi-fixed-routes.js';
import { collectionSchema, pascal, schemaNames, schemaRef } from './openapi-collection-schema.js';
import { SYSTEM_WRITE_ROUTES } from './routes/item-writes.js';
import { SYSTEM_READ_ROUTES } from './routes/items-read.js';

/** System collections whose own routes take writes (the journal's are read only). */
const WRITABLE_SYSTEM_COLLECTIONS: ReadonlySet<string> = new Set(
  SYSTEM_WRITE_ROUTES.map(([, collection]) => collection),
);

/** GET /server/specs/oas's document (and GraphQL's server_specs_oas) for the caller. */
export async function readOpenApi(
  deps: { readonly config: Config; readonly db: Knex },
  overview: SchemaOverview,
  access: SchemaAccess,
  accountability: Accountability,
): Promise<Json> {
  const row = await deps.db('svc_settings').first<{ project_name: string | null } | undefined>('project_name');
  const projectName = row?.project_name ?? 'Content data service';
  const hasDefaultLogin = !deps.config.auth.disableDefault;
  return buildOpenApi({
    overview,
    access,
    accountability,
    projectName,
    publicUrl: deps.config.publicUrl,
    hasDefaultLogin,
  });
}

/** The read parameters, shared by every list and item route. */
const QUERY_PARAMETERS: Readonly<Record<string, Json>> = {
  Fields: queryParameter('fields', 'Fields to return; `*` for all, dot paths for relations.', {
    type: 'array',
    items: { type: 'string' },
  }),
  Filter: queryParameter('filter', 'Only items matching this filter.', { type: 'object' }),
  Sort: queryParameter('sort', 'Fields to sort on; `-` first for descending.', {
    type: 'array',
    items: { type: 'string' },
  }),
  Limit: queryParameter('limit', 'How many items; -1 for all.', { type: 'integer' }),
  Offset: queryParameter('offset', 'How many items to skip.', { type: 'integer' }),
  Page: queryParameter('page', 'The page of `limit` items.', { type: 'integer' }),
  Search: queryParameter('search', 'Only items with this text in a string field.', { type: 'string' }),
  Meta: queryParameter('meta', '`total_count`, `filter_count` or `*`.', { type: 'string' }),
};

const LIST_PARAMETERS = ['Fields', 'Filter', 'Sort', 'Limit', 'Offset', 'Page', 'Search', 'Meta'].map(parameterRef);
const ITEM_PARAMETERS = ['Fields'].map(parameterRef);
const ID_PARAMETER: Json = {
  name: 'id',
  in: 'path',
  required: true,
  description: 'The primary key',
  schema: { oneOf: [{ type: 'string' }, { type: 'integer' }] },
};

const ERROR_SCHEMA: Json = {
  type: 'object',
  properties: {
    errors: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          message: { type: 'string' },
          extensions: { type: 'object', properties: { code: { type: 'string' } } },
        },
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
 * GET /server/specs/oas: an OpenAPI 3.0.1 document of what the caller
 * may use. Collections, fields and relations are those of the caller's GraphQL schema
 * (`CollectionTypes` over the same `SchemaAccess`); the write operations of a collection are
 * there when the role may create, update or delete in it; fixed routes by who may call them.
 */
function buildOpenApi(input: OpenApiInput): Json {
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
    tags.set(
      name,
      collection.isSystem ? `The ${collection.collection} system collection` : `Items of ${collection.collection}`,
    );
    Object.assign(paths, collectionPaths(collection, base, name, writable ? input.access : undefined));
  }

  for (const route of FIXED_ROUTES) {
    const operation = fixedOperation(route, input, names);
    if (operation === undefined) continue;
    tags.set(route.tag, tags.get(route.tag) ?? route.tag);
    const operations = (paths[route.path] ??= {}) as Json;
    operations[route.method] = operation;
  }

  return {
    openapi: '3.0.1',
    info: {
      title: input.projectName,
      version: SERVICE_VERSION,
      description: 'The REST API of the content data service, as the caller may use it.',
    },
    servers: [{ url: input.publicUrl, description: 'This server' }],
    paths,
    tags: [...tags].map(([name, description]) => ({ name, description })),
    components: {
      schemas: {
        ...Object.fromEntries(
          collections.map((c): [string, Json] => [
            names.get(c.collection) ?? c.collection,
            collectionSchema(types, c, names),
          ]),
        ),
        Error: ERROR_SCHEMA,
      },
      parameters: QUERY_PARAMETERS,
      responses: {
        BadRequestError: errorResponse(
          'Invalid request: payload or query (INVALID_PAYLOAD, INVALID_QUERY, FAILED_VALIDATION).',
        ),
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

/**
 * A fixed route's operation, or undefined when the caller may not use it: not among its
 * callers, or, for a `{collection}` route, allowed on no collection.
 */
function fixedOperation(route: FixedRoute, input: OpenApiInput, names: ReadonlyMap<string, string>): Json | undefined {
  if (!route.caller(input)) return undefined;
  const parameters = [...(route.parameters ?? [])];
  if (route.collections !== undefined) {
    const filter = route.collections;
    const allowed = Object.values(input.overview.collections)
      .filter((c) => filter(input, c))
      .map((c) => c.collection);
    if (allowed.length === 0) return undefined;
    parameters.unshift(
      pathParameter('collection', 'A collection the caller may use this on', { type: 'string', enum: allowed.sort() }),
    );
  }
  return {
    tags: [route.tag],
    summary: route.summary,
    operationId: operationId(route.method, route.path),
    ...(parameters.length === 0 ? {} : { parameters }),
    ...(route.body === undefined
      ? {}
      : { requestBody: { required: route.isBodyOptional !== true, content: route.body } }),
    responses: { ...answerResponses(route.answer, names), ...ERROR_RESPONSES },
  };
}

/** The success responses of an answer; an item is its collection's schema where the caller reads it. */
function answerResponses(answer: Answer, names: ReadonlyMap<string, string>): Json {
  switch (answer.kind) {
    case 'data':
      return { '200': dataResponse(answer.schema) };
    case 'item': {
      const name = names.get(answer.collection);
      return {
        '200': dataResponse(name === undefined ? { type: 'object' } : schemaRef(name)),
        '204': { description: 'Done; the caller cannot read the result' },
      };
    }
    case 'empty':
      return { '200': { description: 'Done, empty body' } };
    case 'none':
      return { '204': { description: 'Done, nothing to return' } };
    case 'raw':
      return answer.responses;
  }
}

function dataResponse(schema: Json): Json {
  const envelope = { type: 'object', properties: { data: schema } };
  return { description: 'Successful request', content: { 'application/json': { schema: envelope } } };
}

/** The list and item paths of one collection; writes only where `access` (when given) allows them. */
function collectionPaths(
  collection: CollectionOverview,
  base: string,
  name: string,
  access: SchemaAccess | undefined,
): Json {
  const ref = schemaRef(name);
  const one = { type: 'object', properties: { data: ref } };
  const many = { type: 'object', properties: { data: { type: 'array', items: ref }, meta: { type: 'object' } } };
  // `schema` undefined: the operation answers 204 without a body. `uploads`: multipart content too.
  const operation = (
    verb: string,
    summary: string,
    parameters: readonly Json[],
    schema: Json | undefined,
    body?: Json,
    uploads?: Json,
  ) => ({
    tags: [name],
    summary,
    operationId: `${verb}${name}`,
    parameters,
    ...(body === undefined ? {} : { requestBody: { content: { 'application/json': { schema: body }, ...uploads } } }),
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
  const isFiles = collection.collection === FILES_COLLECTION;

  const item: Json = {
    get: operation('readOne', `Read one ${collection.collection} item`, [ID_PARAMETER, ...ITEM_PARAMETERS], one),
  };
  if (collection.singleton) {
    // Singletons: GET by key still works; no POST, PATCH or DELETE by key.
    const singleton: Json = {
      get: operation('read', `Read the ${collection.collection} singleton`, ITEM_PARAMETERS, one),
    };
    if (canUpdate)
      singleton['patch'] = operation(
        'update',
        `Update the ${collection.collection} singleton`,
        ITEM_PARAMETERS,
        one,
        ref,
      );
    return { [base]: singleton, [`${base}/{id}`]: item };
  }
  const list: Json = { get: operation('read', `List ${collection.collection} items`, LIST_PARAMETERS, many) };
  if (canCreate) {
    const body = { oneOf: [ref, { type: 'array', items: ref }] };
    list['post'] = operation(
      'create',
      `Create ${collection.collection} items`,
      ITEM_PARAMETERS,
      one,
      body,
      isFiles ? upload(true) : undefined,
    );
  }
  if (canUpdate) {
    list['patch'] = operation('update', `Update ${collection.collection} items`, ITEM_PARAMETERS, many, {
      type: 'object',
      properties: { keys: { type: 'array', items: {} }, query: { type: 'object' }, data: ref },
    });
    const parameters = [ID_PARAMETER, ...ITEM_PARAMETERS];
    item['patch'] = operation(
      'updateOne',
      `Update one ${collection.collection} item`,
      parameters,
      one,
      ref,
      isFiles ? upload(false) : undefined,
    );
  }
  if (canDelete) {
    list['delete'] = operation('delete', `Delete ${collection.collection} items`, [], undefined, {
      type: 'array',
      items: {},
    });
    item['delete'] = operation('deleteOne', `Delete one ${collection.collection} item`, [ID_PARAMETER], undefined);
  }
  return { [base]: list, [`${base}/{id}`]: item };
}

/**
 * Files: POST /files uploads (each `file` part one file, the text parts
 * before it its fields); PATCH /files/{id} replaces the content when it has a `file` part.
 */
function upload(isFileRequired: boolean): Json {
  const schema = {
    type: 'object',
    properties: { file: { type: 'string', format: 'binary' } },
    additionalProperties: { type: 'string' },
    ...(isFileRequired ? { required: ['file'] } : {}),
  };
  return { 'multipart/form-data': { schema } };
}

function systemPath(collection: string): string | undefined {
  return Object.entries(SYSTEM_READ_ROUTES).find(([, c]) => c === collection)?.[0];
}

function operationId(method: string, path: string): string {
  return `${method}${pascal(path)}`;
}

function responseRef(name: string): Json {
  return { $ref: `#/components/responses/${name}` };
}

function errorResponse(description: string): Json {
  return { description, content: { 'application/json': { schema: schemaRef('Error') } } };
}
