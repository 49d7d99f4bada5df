import { Auth, IAuth, type AuthOptions } from './auth.js';
import { RealtimeClient, type RealtimeOptions } from './realtime.js';
import { ActivityHandler } from './handlers/activity.js';
import { AssetsHandler } from './handlers/assets.js';
import { CollectionsHandler } from './handlers/collections.js';
import { FieldsHandler } from './handlers/fields.js';
import { FilesHandler } from './handlers/files.js';
import { FlowsHandler } from './handlers/flows.js';
import { GraphQLHandler } from './handlers/graphql.js';
import { PermissionsHandler } from './handlers/permissions.js';
import { RelationsHandler } from './handlers/relations.js';
import { SchemaHandler } from './handlers/schema.js';
import { ServerHandler } from './handlers/server.js';
import { UsersHandler } from './handlers/users.js';
import { UtilsHandler } from './handlers/utils.js';
import { RevisionsHandler } from './handlers/revisions.js';
import { VersionsHandler } from './handlers/versions.js';
import { ItemsHandler, SingletonHandler } from './items.js';
import { IStorage, LocalStorage, MemoryStorage, type StorageOptions } from './storage.js';
import { ITransport, Transport, type RequestConfig, type TransportOptions } from './transport.js';
import type {
  ActivityType,
  CollectionType,
  CommentType,
  FieldType,
  FileType,
  FlowType,
  FolderType,
  OperationType,
  PermissionType,
  PresetType,
  RelationType,
  RevisionType,
  VersionType,
  RoleType,
  SettingsType,
  SystemType,
  TypeOf,
  UserType,
} from './types.js';

export interface ClientOptions {
  readonly auth?: IAuth | AuthOptions;
  readonly transport?: ITransport | TransportOptions;
  readonly storage?: IStorage | StorageOptions;
}

const isBrowser = (): boolean => typeof (globalThis as { window?: unknown }).window !== 'undefined';

/**
 * The service's client: `items(collection)` for any collection, named
 * handlers for the system collections, `auth`, `server`, `utils`, `graphql`. `T` maps
 * collection names to item types; a `svc_*` entry extends the built-in system type.
 */
export class ContentClient<T extends object = object> {
  readonly url: string;
  readonly storage: IStorage;
  readonly transport: ITransport;
  readonly auth: IAuth;

  constructor(url: string, options: ClientOptions = {}) {
    this.url = url;
    this.storage = options.storage instanceof IStorage ? options.storage : defaultStorage(options.storage);
    this.transport =
      options.transport instanceof ITransport
        ? options.transport
        : new Transport(url, {
            ...options.transport,
            beforeRequest: async (config) => {
              const custom = options.transport instanceof ITransport ? undefined : options.transport?.beforeRequest;
              return this.authorize(custom === undefined ? config : await custom(config));
            },
          });
    this.auth =
      options.auth instanceof IAuth
        ? options.auth
        : new Auth({ ...options.auth, transport: this.transport, storage: this.storage, url });
  }

  items<C extends string>(collection: C): ItemsHandler<TypeOf<T, C>> {
    return new ItemsHandler<TypeOf<T, C>>(collection, this.transport);
  }

  singleton<C extends string>(collection: C): SingletonHandler<TypeOf<T, C>> {
    return new SingletonHandler<TypeOf<T, C>>(collection, this.transport);
  }

  get activity(): ActivityHandler<SystemType<T, 'svc_activity', ActivityType>> {
    return new ActivityHandler(this.transport);
  }
  get assets(): AssetsHandler {
    return new AssetsHandler(this.transport, this.url);
  }
  get comments(): ItemsHandler<SystemType<T, 'svc_comments', CommentType>> {
    return new ItemsHandler('svc_comments', this.transport);
  }
  get collections(): CollectionsHandler<SystemType<T, 'svc_collections', CollectionType>> {
    return new CollectionsHandler(this.transport);
  }
  get fields(): FieldsHandler<SystemType<T, 'svc_fields', FieldType>> {
    return new FieldsHandler(this.transport);
  }
  get files(): FilesHandler<SystemType<T, 'svc_files', FileType>> {
    return new FilesHandler(this.transport);
  }
  get flows(): FlowsHandler<SystemType<T, 'svc_flows', FlowType>> {
    return new FlowsHandler(this.transport);
  }
  get operations(): ItemsHandler<SystemType<T, 'svc_operations', OperationType>> {
    return new ItemsHandler('svc_operations', this.transport);
  }
  get folders(): ItemsHandler<SystemType<T, 'svc_folders', FolderType>> {
    return new ItemsHandler('svc_folders', this.transport);
  }
  get permissions(): PermissionsHandler<SystemType<T, 'svc_permissions', PermissionType>> {
    return new PermissionsHandler(this.transport);
  }
  get presets(): ItemsHandler<SystemType<T, 'svc_presets', PresetType>> {
    return new ItemsHandler('svc_presets', this.transport);
  }
  get relations(): RelationsHandler<SystemType<T, 'svc_relations', RelationType>> {
    return new RelationsHandler(this.transport);
  }
  get revisions(): RevisionsHandler<SystemType<T, 'svc_revisions', RevisionType>> {
    return new RevisionsHandler(this.transport);
  }
  get versions(): VersionsHandler<SystemType<T, 'svc_versions', VersionType>> {
    return new VersionsHandler(this.transport);
  }
  get roles(): ItemsHandler<SystemType<T, 'svc_roles', RoleType>> {
    return new ItemsHandler('svc_roles', this.transport);
  }
  get settings(): SingletonHandler<SystemType<T, 'svc_settings', SettingsType>> {
    return new SingletonHandler('svc_settings', this.transport);
  }
  get users(): UsersHandler<SystemType<T, 'svc_users', UserType>> {
    return new UsersHandler(this.transport);
  }
  get schema(): SchemaHandler {
    return new SchemaHandler(this.transport);
  }
  get server(): ServerHandler {
    return new ServerHandler(this.transport);
  }
  get utils(): UtilsHandler {
    return new UtilsHandler(this.transport);
  }
  get graphql(): GraphQLHandler {
    return new GraphQLHandler(this.transport);
  }

  /**
   * Live data over the WebSocket protocol (WEBSOCKETS_ENABLED): each (re)connect authenticates
   * with this client's access token, refreshed first when it is about to expire.
   */
  realtime(options: RealtimeOptions = {}): RealtimeClient {
    return new RealtimeClient(this.url, {
      token: async () => {
        await this.auth.refreshIfExpired();
        const token = this.storage.auth_token;
        return token === null || token === '' ? null : token.replace(/^Bearer /, '');
      },
      ...options,
    });
  }

  /**
   * Refresh first unless the request is a POST, the refresh itself, or one
   * that sends no token (`Authorization: null`: static, providers), which a refused refresh
   * must not stop; then `Authorization: Bearer <token>` under the request's own headers.
   */
  private async authorize(config: RequestConfig): Promise<RequestConfig> {
    const sendsToken = config.headers['Authorization'] !== null;
    if (sendsToken && config.method !== 'post' && config.path !== '/auth/refresh') await this.auth.refreshIfExpired();
    const token = this.storage.auth_token;
    const bearer = token === null || token === '' ? '' : token.startsWith('Bearer ') ? token : `Bearer ${token}`;
    return { ...config, headers: { Authorization: bearer, ...config.headers } };
  }
}

function defaultStorage(options: StorageOptions = {}): IStorage {
  return !isBrowser() || options.mode === 'MemoryStorage' ? new MemoryStorage(options) : new LocalStorage(options);
}
