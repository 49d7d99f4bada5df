import { Router, type Express, type Request, type RequestHandler, type Response } from 'express';
import {
  execute,
  GraphQLError,
  OperationTypeNode,
  printSchema,
  type ExecutionArgs,
  type ExecutionResult,
} from 'graphql';
import {
  createHandler,
  parseRequestParams,
  type Request as GraphqlHttpRequest,
  type RequestParams,
  type Response as GraphqlHttpResponse,
} from 'graphql-http';
import type { Knex } from 'knex';
import type { IncomingMessage } from 'node:http';
import type { Accountability } from '../../access/accountability.js';
import { loadPermissions } from '../../access/load-permissions.js';
import type { PermissionStore } from '../../access/permission-store.js';
import type { DataInvalidation } from '../../cache/data-invalidation.js';
import type { SchemaCache } from '../../cache/schema-cache.js';
import type { Config } from '../../config/index.js';
import type { AuthContext } from '../../auth/auth-context.js';
import type { FileLibrary } from '../../files/file-library.js';
import {
  GraphqlExecutionError,
  GraphqlValidationError,
  InvalidPayloadError,
  MethodNotAllowedError,
  RouteNotFoundError,
  UnsupportedMediaTypeError,
  type ServiceError,
} from '../../errors.js';
import {
  answerAsJson,
  configuredLimits,
  createGraphqlContext,
  formatResult,
  OperationPreparer,
  plainError,
  rootFieldNames,
  SchemaStore,
  toGraphqlError,
  type GraphqlContext,
  type Scope,
  type ScopedSchemas,
  type SystemServices,
} from '../../graphql/index.js';
import { schemaAccessOf, type SchemaAccess } from '../../access/role-schema-access.js';
import type { Logger } from '../../logger/index.js';
import type { SchemaOverview } from '../../../catalog/overview/types.js';
import type { HookBus } from '../../items/hooks.js';
import { itemServices } from '../../items/items-service.js';
import { readDatabase, replicaCaller } from '../../db/replicas.js';
import { queryLimits } from '../../query/index.js';
import { toServiceErrors } from '../error-handler.js';
import { readOpenApi } from '../openapi.js';
import { PERSISTED_QUERY_NOT_FOUND, PersistedQueries } from '../persisted-queries.js';
import { requestOverview } from '../request-overview.js';
import { skipResponseCache, UNCACHED_COLLECTIONS } from '../response-cache.js';
import { rootName } from '../../graphql/names.js';
import { clearCaches } from './cache.js';
import { loginFrom, logoutFrom, passwordRequestFrom, passwordResetFrom, refreshFrom } from './auth.js';
import { readHealth, readServerInfo } from './server.js';
import { acceptInviteFrom, inviteFrom, registerFrom, verifyRegistrationFrom } from './users-accounts.js';

export interface GraphqlRouteDeps {
  readonly config: Config;
  readonly db: Knex;
  readonly logger: Logger;
  readonly schema: SchemaCache;
  readonly permissions: PermissionStore;
  readonly auth: AuthContext;
  readonly files: FileLibrary;
  readonly invalidation: DataInvalidation;
  /** The items filters and actions (src/items/hooks.ts). */
  readonly hooks?: HookBus | undefined;
}

/** The methods /graphql and /graphql/system take (graphql-http's). */
const GRAPHQL_METHODS: readonly string[] = ['GET', 'POST'];

/** graphql-http's view of a request; its context carries the response auth cookies go on. */
type HttpRequest = GraphqlHttpRequest<Request, { readonly res: Response }>;

/**
 * POST|GET /graphql (items scope) and /graphql/system,
 * served by graphql-http. The document is parsed and validated here against the caller's
 * schema; failures before execution (invalid document, nothing to run, a mutation over GET)
 * go to the one error handler as REST error bodies, resolver errors stay in `{data, errors}`.
 */
export function graphqlRoutes(
  deps: GraphqlRouteDeps,
  endpoint: GraphqlEndpoint,
  cache: readonly RequestHandler[] = [],
): Router {
  const router = Router();
  const { store, preparer, persisted } = endpoint;
  const handlerFor = (scope: Scope) =>
    createHandler<Request, { readonly res: Response }, GraphqlContext>({
      parseRequestParams: (req) => readGraphqlBody(req, persisted),
      onSubscribe: async (req, params) => {
        const { accountability } = req.raw;
        const { overview, access, schemas } = await callerSchemas(deps, store, req.raw);
        const schema = schemas[scope];
        const operationName = params.operationName ?? undefined;
        const { document, operation } = preparer.prepare(
          schema,
          params.query,
          operationName,
          params.variables ?? undefined,
        );
        // Mutations over GET → 405 METHOD_NOT_ALLOWED.
        if (operation === OperationTypeNode.MUTATION && req.method === 'GET')
          throw new MethodNotAllowedError('GET', ['POST']);
        // The HTTP schema describes the Subscription root (app.ts); it runs over graphql-ws only.
        if (operation === OperationTypeNode.SUBSCRIPTION) throw subscriptionOverHttp(deps.config, scope);
        if (
          operation !== OperationTypeNode.QUERY ||
          (scope === 'system' && readsJournal(rootFieldNames(document, operationName)))
        )
          skipResponseCache(req.context.res);
        const { read, reader, items } = await operationReads(deps, accountability, { overview, access }, operation);
        const contextValue = createGraphqlContext({
          read,
          reader,
          commands: items.commands,
          items: items.of,
          system: systemServices(deps, req.raw, req.context.res, { overview, access }),
          schemas,
        });
        return { schema, document, operationName, variableValues: params.variables ?? undefined, contextValue };
      },
      execute: answerOrExecute,
      onOperation: (req, _args, result: ExecutionResult) => {
        const type = `${responseMediaType(req.raw)}; charset=utf-8`;
        const headers = { 'content-type': type };
        if (result instanceof JsonAnswer) return [result.text, { status: 200, statusText: 'OK', headers }];
        // No `data` at all: the operation could not run (variables that do not coerce).
        if (!('data' in result)) throw new GraphqlExecutionError((result.errors ?? []).map(plainError));
        const formatted = formatResult(result, (error) =>
          toServiceErrors(error, { logger: deps.logger, dialect: deps.config.db.client, schema: deps.schema }),
        );
        if (result.errors !== undefined) skipResponseCache(req.context.res);
        // Serialised here: graphql-http's own serialiser calls a replacer for every value.
        return [JSON.stringify(formatted), { status: 200, statusText: 'OK', headers }];
      },
      formatError: (error) =>
        error instanceof GraphQLError
          ? error
          : toGraphqlError(new InvalidPayloadError(error.message.replace(/\.$/, ''))),
    });

  const serve = (scope: Scope) => {
    const handle = handlerFor(scope);
    return async (req: Request, res: Response) => {
      // OPTIONS: the methods, as route-methods.ts answers it for the other routes.
      if (req.method === 'OPTIONS') {
        res.setHeader('Allow', GRAPHQL_METHODS.join(', '));
        res.status(204).end();
        return;
      }
      if (req.method !== 'GET' && req.method !== 'POST') throw new MethodNotAllowedError(req.method, GRAPHQL_METHODS);
      const [body, init] = await handle(toHttpRequest(req, res));
      // graphql-http refuses some requests with a bare status (a body type it does not read): the error body instead.
      if (init.status >= 400 && (body === null || body === '')) throw bareRefusal(req, init.status, init.statusText);
      res.status(init.status);
      for (const [name, value] of Object.entries(init.headers ?? {})) res.setHeader(name, value);
      res.end(body ?? undefined);
    };
  };
  // Every method: serve() answers OPTIONS and refuses the methods graphql-http does not take.
  router.all('/', ...cache, serve('items'));
  router.all('/system', ...cache, serve('system'));
  return router;
}

/** What the two doors of POST /graphql share (the Express route and fast-path.ts): the schemas, the documents. */
export interface GraphqlEndpoint {
  readonly store: SchemaStore;
  readonly preparer: OperationPreparer;
  readonly persisted: PersistedQueries;
}

const endpoints = new WeakMap<Express, GraphqlEndpoint>();

/** The endpoint of an app's /graphql routes ({@link graphqlEndpoint}), for the answers given before Express. */
export function graphqlEndpointOf(app: Express): GraphqlEndpoint | undefined {
  return endpoints.get(app);
}

/** The app's endpoint: its documents remembered once for both doors. */
export function graphqlEndpoint(app: Express, config: Config, store: SchemaStore): GraphqlEndpoint {
  // A REST `fields` path may be MAX_RELATIONAL_DEPTH long; GraphQL adds the function and
  // aggregate objects as one more level.
  const preparer = new OperationPreparer(configuredLimits(config, 1));
  const endpoint = { store, preparer, persisted: new PersistedQueries() };
  endpoints.set(app, endpoint);
  return endpoint;
}

/**
 * The read side and the items services of one operation for the caller: a query reads where
 * the caller's reads go (replicas), anything else on the primary.
 */
async function operationReads(
  deps: GraphqlRouteDeps,
  accountability: Accountability,
  caller: { readonly overview: SchemaOverview; readonly access: SchemaAccess },
  operation: OperationTypeNode,
) {
  const { overview, access } = caller;
  const read = {
    db: operation === OperationTypeNode.QUERY ? readDatabase(deps.db, replicaCaller(accountability)) : deps.db,
    overview,
    limits: queryLimits(deps.config),
  };
  const reader = { accountability, access: access.read };
  // Every item read of the operation goes through the items services, on this read side.
  const items = await itemServices(deps, accountability, overview, { reads: read.db, reader });
  return { read, reader, items };
}

/**
 * fast-path.ts's GET and POST /graphql: the answer to plain parameters (a JSON body, or GET's
 * query string: `query`, `variables`, `operationName`, `extensions` with a persisted query's
 * hash, nothing else) whose operation is a query of the items scope that json-answer.ts answers
 * with the database's text; null for anything else, or on any failure, and the Express route
 * answers the request from the start (a query changes nothing; a persisted query stored here
 * is stored again).
 */
export async function plainQueryText(
  deps: GraphqlRouteDeps,
  endpoint: GraphqlEndpoint,
  req: IncomingMessage & { readonly body?: unknown },
  accountability: Accountability,
): Promise<string | null> {
  const params = plainParams(req.method === 'GET' ? searchParams(req.url ?? '') : req.body, endpoint.persisted);
  if (params === undefined) return null;
  const caller = await callerAccess(deps, req, accountability);
  const schemas = endpoint.store.get(caller.overview, caller.access);
  const { query, variables, operationName } = params;
  const { document, operation } = endpoint.preparer.prepare(schemas.items, query, operationName, variables);
  if (operation !== OperationTypeNode.QUERY) return null;
  const { read, items } = await operationReads(deps, accountability, caller, operation);
  const contextValue = { read, items: items.of };
  return answerAsJson({ schema: schemas.items, document, operationName, variableValues: variables, contextValue });
}

/**
 * The document (given, or stored under its persisted hash), the variables (an object) and the
 * operation's name of plain parameters; undefined for others (graphql-http reads those).
 */
function plainParams(
  params: unknown,
  persisted: PersistedQueries,
): { query: string; variables: Record<string, unknown> | undefined; operationName: string | undefined } | undefined {
  if (!isPlainObject(params)) return undefined;
  const { query, variables, operationName, extensions, ...rest } = params;
  if (Object.keys(rest).length > 0) return undefined;
  if (variables != null && !isPlainObject(variables)) return undefined;
  if (operationName != null && typeof operationName !== 'string') return undefined;
  if (extensions != null && !isPlainObject(extensions)) return undefined;
  const answer = persisted.resolve({ query, extensions });
  const document = answer?.kind === 'found' ? answer.query : query;
  if (answer?.kind === 'not-found' || typeof document !== 'string' || document === '') return undefined;
  return { query: document, variables: variables ?? undefined, operationName: operationName ?? undefined };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * GET's parameters as graphql-http reads them (`variables` and `extensions` as JSON text);
 * undefined when one is named twice or a JSON one does not parse.
 */
function searchParams(url: string): Record<string, unknown> | undefined {
  const start = url.indexOf('?');
  const search = new URLSearchParams(start === -1 ? '' : url.slice(start + 1));
  const params: Record<string, unknown> = {};
  for (const [name, value] of search) {
    if (name in params) return undefined;
    params[name] = value;
  }
  for (const name of ['variables', 'extensions']) {
    const text = params[name];
    if (typeof text !== 'string') continue;
    try {
      params[name] = JSON.parse(text) as unknown;
    } catch {
      return undefined;
    }
  }
  return params;
}

/** A query's answer the database wrote (json-answer.ts), on its way to onOperation. */
class JsonAnswer implements ExecutionResult {
  declare readonly data?: null;
  constructor(readonly text: string) {}
}

/** The database's answer where it can write it (json-answer.ts), else graphql-js's execution. */
async function answerOrExecute(args: ExecutionArgs): Promise<ExecutionResult> {
  const text = await answerAsJson(args);
  return text === null ? execute(args) : new JsonAnswer(text);
}

/** GRAPHQL_VALIDATION for a subscription sent over HTTP, naming the WebSocket path that runs it. */
function subscriptionOverHttp(config: Config, scope: Scope): GraphqlValidationError {
  const path = `${config.websockets.graphql.path}${scope === 'system' ? '/system' : ''}`;
  const message = `Subscriptions run over WebSocket (graphql-ws) at ${path}, not over HTTP.`;
  return new GraphqlValidationError([plainError(new GraphQLError(message))]);
}

/** The server, utility and auth services the system scope's fields use, for this request. */
function systemServices(
  deps: GraphqlRouteDeps,
  req: Request,
  res: Response,
  caller: { readonly overview: SchemaOverview; readonly access: SchemaAccess },
): SystemServices {
  const { accountability } = req;
  const auth = deps.auth;
  return {
    serverInfo: () => readServerInfo(deps, accountability),
    specsOas: () => readOpenApi(deps, caller.overview, caller.access, accountability),
    health: () => readHealth(deps, accountability),
    // Cache clear: as POST /utils/cache/clear.
    clearCache: () => clearCaches(deps),
    schemaChanges: { db: deps.db, schema: deps.schema, reporter: deps.logger },
    auth: {
      login: (body) => {
        // AUTH_DISABLE_DEFAULT takes e-mail/password login away.
        if (deps.config.auth.disableDefault) throw new RouteNotFoundError('/auth/login');
        // Directus's auth_login: a malformed e-mail is wrong credentials, not a payload error.
        return loginFrom(auth, req, res, { ...body }, 'unknown');
      },
      refresh: (body) => refreshFrom(auth, req, res, { ...body }),
      logout: (body) => logoutFrom(auth, req, res, { ...body }),
      requestPasswordReset: (body) => passwordRequestFrom(auth, { ...body }),
      resetPassword: (body) => passwordResetFrom(auth, { ...body }),
      invite: (body) => inviteFrom(deps, accountability, { ...body }),
      acceptInvite: (body) => acceptInviteFrom(deps, accountability, { ...body }),
      register: (body) => registerFrom(deps, accountability, { ...body }),
      verifyRegistration: async (body) => {
        await verifyRegistrationFrom(deps, accountability, { ...body });
      },
    },
    files: deps.files,
  };
}

/**
 * GET /server/specs/graphql/ and /server/specs/graphql/system: the SDL
 * of the caller's schema of that scope, as text.
 */
export function graphqlSpecRoutes(deps: GraphqlRouteDeps, { store }: GraphqlEndpoint): Router {
  const router = Router();
  const sdl = (scope: Scope) => async (req: Request, res: Response) => {
    const { schemas } = await callerSchemas(deps, store, req);
    res.type('text/plain; charset=utf-8').send(printSchema(schemas[scope]));
  };
  router.get('/', sdl('items'));
  router.get('/system', sdl('system'));
  return router;
}

/** The caller's schemas: admins share one schema, any other role has its own. */
async function callerSchemas(
  deps: GraphqlRouteDeps,
  store: SchemaStore,
  req: Request,
): Promise<{ overview: SchemaOverview; access: SchemaAccess; schemas: ScopedSchemas }> {
  const { overview, access } = await callerAccess(deps, req, req.accountability);
  return { overview, access, schemas: store.get(overview, access) };
}

/** The request's overview, the caller's permissions (loaded once per request) and what they allow in a schema. */
async function callerAccess(
  deps: Pick<GraphqlRouteDeps, 'db' | 'schema' | 'permissions'>,
  req: IncomingMessage,
  accountability: Accountability,
): Promise<{ overview: SchemaOverview; access: SchemaAccess }> {
  const overview = await requestOverview(req, deps.schema);
  const permissions = await loadPermissions({ db: deps.db, store: deps.permissions, overview }, accountability);
  return { overview, access: schemaAccessOf(accountability, permissions) };
}

/**
 * GET /server/specs/oas: the OpenAPI document of what the caller may
 * use, decided as their GraphQL schema is (not enveloped).
 */
export function openApiRoutes(deps: GraphqlRouteDeps): Router {
  const router = Router();
  router.get('/', async (req, res) => {
    const { overview, access } = await callerAccess(deps, req, req.accountability);
    res.json(await readOpenApi(deps, overview, access, req.accountability));
  });
  return router;
}

/**
 * The response type graphql-http negotiated from Accept (it answered 406 already when there
 * was none): the first of `application/graphql-response+json` or JSON the client accepts.
 */
function responseMediaType(req: Request): 'application/graphql-response+json' | 'application/json' {
  for (const accept of (req.get('accept') ?? '*/*').replace(/\s/g, '').toLowerCase().split(',')) {
    const [type] = accept.split(';');
    if (type === 'application/graphql-response+json') return type;
    if (type === 'application/json' || type === 'application/*' || type === '*/*') return 'application/json';
  }
  return 'application/json';
}

function toHttpRequest(req: Request, res: Response): HttpRequest {
  return {
    url: req.url,
    method: req.method,
    headers: req.headers,
    // JSON bodies were parsed by the body middleware; others are read here.
    body: () => (req.body === undefined ? readText(req) : (req.body as Record<string, unknown> | string)),
    raw: req,
    context: { res },
  };
}

/** graphql-http's status without a body as the error of docs/errors.md. */
function bareRefusal(req: Request, status: number, statusText: string | undefined): ServiceError {
  if (status === 415)
    return new UnsupportedMediaTypeError(
      req.headers['content-type']?.split(';')[0]?.trim() || 'none',
      'Content-Type header',
    );
  if (status === 405) return new MethodNotAllowedError(req.method, GRAPHQL_METHODS);
  return new InvalidPayloadError(statusText ?? 'Invalid GraphQL request');
}

/**
 * The request's parameters where graphql-http's own reading is not enough (undefined: it reads
 * them): POST with `Content-Type: application/graphql` carries the raw document, and a
 * persisted query's hash stands for a document sent before (persisted-queries.ts).
 */
async function readGraphqlBody(
  req: HttpRequest,
  persisted: PersistedQueries,
): Promise<RequestParams | GraphqlHttpResponse | undefined> {
  if (req.method === 'POST' && req.raw.is('application/graphql')) return { query: await readText(req.raw) };
  const answer = persisted.resolve(req.method === 'GET' ? req.raw.query : req.raw.body);
  if (answer === undefined || answer.kind === 'stored') return undefined;
  if (answer.kind === 'not-found') {
    // Not replayed from the response cache: the miss would outlive the client's next request.
    skipResponseCache(req.context.res);
    const headers = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' };
    return [PERSISTED_QUERY_NOT_FOUND, { status: 200, statusText: 'OK', headers }];
  }
  // The stored document in the request's place; graphql-http reads the rest as usual.
  if (req.method === 'GET') {
    const url = new URL(req.url, 'http://localhost');
    url.searchParams.set('query', answer.query);
    return parseRequestParams({ ...req, url: url.pathname + url.search });
  }
  const body = req.raw.body as Record<string, unknown>;
  return parseRequestParams({ ...req, body: () => ({ ...body, query: answer.query }) });
}

function readText(req: Request): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (text += chunk));
    req.on('end', () => {
      resolve(text);
    });
    req.on('error', reject);
  });
}

/** System-scope root fields of the collections the data cache never serves (`activity`, `activity_by_id`, ...). */
const JOURNAL_ROOTS = [...UNCACHED_COLLECTIONS].map((collection) => rootName(collection, true));

function readsJournal(rootFields: readonly string[]): boolean {
  return rootFields.some((field) => JOURNAL_ROOTS.some((root) => field === root || field.startsWith(`${root}_`)));
}
