/**
 * The companion client library: wraps the service's REST and GraphQL API for browsers and
 * server-side JavaScript over the platform `fetch`. It imports nothing from the server.
 */

/**
 * The client: `new ContentClient(url, { auth?, transport?, storage? })`. `Directus` is the same
 * class under the name the convention's code expects.
 */
export { ContentClient, ContentClient as Directus, type ClientOptions } from './client.js';

/** Authentication (login, single sign-on links and providers, refresh, static tokens, logout, password reset) and its interface. */
export {
  Auth,
  IAuth,
  PasswordsHandler,
  type AuthCredentials,
  type AuthMode,
  type AuthOptions,
  type AuthProvider,
  type AuthProviders,
  type AuthResult,
} from './auth.js';

/** Live data: `subscribe(collection, query)` as an async iterator over the WebSocket protocol, reconnecting; `presence(collection, item)`. */
export {
  RealtimeClient,
  type PresenceUser,
  type PresenceWatch,
  type RealtimeOptions,
  type LiveMessage,
  type LiveSubscription,
  type LiveEventName,
  type SubscribeOptions,
  type WebSocketConstructor,
  type WebSocketLike,
} from './realtime.js';

/** Token storage: the interface, the prefixed base, in-memory and browser localStorage. */
export { IStorage, BaseStorage, MemoryStorage, LocalStorage, type StorageOptions, type WebStorage } from './storage.js';

/** The HTTP layer over `fetch` and its interface. */
export {
  ITransport,
  Transport,
  type HttpMethod,
  type ItemMetadata,
  type RequestConfig,
  type RequestOptions,
  type ResponseType,
  type TransportOptions,
  type TransportResponse,
  type UploadProgress,
  type UploadProgressHandler,
} from './transport.js';

/** A failed request carrying the server's `errors`, and the empty-argument error. */
export { TransportError, EmptyParamError, type ErrorEntry } from './errors.js';

/** Query parameters encoded the convention's way (arrays `key[]=v`, objects as JSON). */
export { encodeQuery } from './query-string.js';

/** Handlers for any collection and for singletons. */
export { ItemsHandler, SingletonHandler, type HandlerOptions } from './items.js';

/** The named handlers behind the client's accessors. */
export { ActivityHandler, CommentsHandler } from './handlers/activity.js';
export { AssetsHandler } from './handlers/assets.js';
export { CollectionsHandler } from './handlers/collections.js';
export { FieldsHandler } from './handlers/fields.js';
export { FilesHandler } from './handlers/files.js';
export { FlowsHandler } from './handlers/flows.js';
export { GraphQLHandler, type GraphQLOptions } from './handlers/graphql.js';
export {
  PermissionsHandler,
  type ActionAccess,
  type CollectionAccess,
  type ItemPermissions,
} from './handlers/permissions.js';
export { RelationsHandler } from './handlers/relations.js';
export { SchemaHandler, type SchemaDiff } from './handlers/schema.js';
export { RevisionsHandler } from './handlers/revisions.js';
export { ServerHandler } from './handlers/server.js';
export { InvitesHandler, MeHandler, TFAHandler, UsersHandler } from './handlers/users.js';
export { UtilsHandler, type ExportOptions, type ImportOptions, type ImportSource } from './handlers/utils.js';
export {
  ExportFailedError,
  ExportHandle,
  type ExportFollowOptions,
  type ExportJobStatus,
  type ExportProgressListener,
} from './handlers/export-job.js';
export { VersionsHandler } from './handlers/versions.js';

/** Item and query types, system collection types, `Meta`. */
export * from './types.js';
