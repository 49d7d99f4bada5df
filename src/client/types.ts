/** Item shapes and query types of the client. */

export type ID = string | number;

/** An item of an untyped collection. */
export type AnyItem = Record<string, unknown>;

/** `meta` values a query may ask for. */
export enum Meta {
  TOTAL_COUNT = 'total_count',
  FILTER_COUNT = 'filter_count',
}

/** A filter object: `{ field: { _op: value } }`, `_and`, `_or`. */
export type Filter = Readonly<Record<string, unknown>>;

/** The file formats of exports. */
export type ExportFormat = 'json' | 'csv' | 'xml' | 'yaml';

/** The global query parameters of a single-item read. */
export interface QueryOne {
  readonly fields?: string | readonly string[];
  readonly deep?: Readonly<Record<string, unknown>>;
  readonly alias?: Readonly<Record<string, string>>;
  /** A file download instead of items: `ItemsHandler.readByQuery` then answers its text. */
  readonly export?: ExportFormat;
  readonly [param: string]: unknown;
}

/** The global query parameters of a list read. `limit: -1` returns all results. */
export interface QueryMany extends QueryOne {
  readonly filter?: Filter;
  readonly search?: string;
  readonly sort?: string | readonly string[];
  readonly limit?: number;
  readonly offset?: number;
  readonly page?: number;
  /** `Meta` values; `'*'` asks for all of them. */
  readonly meta?: Meta | string | readonly string[];
  readonly aggregate?: Readonly<Record<string, string | readonly string[]>>;
  readonly groupBy?: string | readonly string[];
}

export interface ManyItems<T> {
  data?: T[] | null;
  meta?: { total_count?: number; filter_count?: number };
}

export type OneItem<T> = T | null | undefined;

/** The user-supplied type of `name` in the map `T`, or an open item. */
export type TypeOf<T, K extends string> = K extends keyof T ? T[K] : AnyItem;

/** A system collection type, merged with the user's type of the same name. */
export type SystemType<T, K extends string, Base> = Base & (K extends keyof T ? T[K] : unknown);

// Columns of the svc_* system collections.

export interface ActivityType {
  id: number;
  action: string;
  user: string | UserType | null;
  timestamp: string;
  ip: string | null;
  user_agent: string | null;
  collection: string;
  item: string;
  comment: string | null;
  origin: string | null;
  revisions: (number | RevisionType)[];
}

export interface CommentType {
  id: string;
  collection: string;
  item: string;
  comment: string;
  date_created: string | null;
  date_updated: string | null;
  user_created: string | UserType | null;
  user_updated: string | UserType | null;
}

export interface CollectionType {
  collection: string;
  meta: Record<string, unknown> | null;
  schema: Record<string, unknown> | null;
  /** Only when creating: the new collection's fields. */
  fields?: Partial<FieldType>[];
}

export interface FieldType {
  collection: string;
  field: string;
  type: string;
  meta: Record<string, unknown> | null;
  schema: ({ is_primary_key?: boolean } & Record<string, unknown>) | null;
}

export interface FileType {
  id: string;
  storage: string;
  filename_disk: string | null;
  filename_download: string;
  title: string | null;
  type: string | null;
  folder: string | FolderType | null;
  uploaded_by: string | UserType | null;
  created_on: string;
  modified_by: string | UserType | null;
  modified_on: string;
  charset: string | null;
  filesize: number | null;
  width: number | null;
  height: number | null;
  duration: number | null;
  embed: string | null;
  description: string | null;
  location: string | null;
  tags: string[] | null;
  metadata: Record<string, unknown> | null;
  focal_point_x: number | null;
  focal_point_y: number | null;
  uploaded_on: string | null;
}

/** A flow (svc_flows): a trigger with its options and the first of its operations. */
export interface FlowType {
  id: string;
  name: string;
  icon: string | null;
  color: string | null;
  description: string | null;
  status: 'active' | 'inactive';
  trigger: 'event' | 'schedule' | 'operation' | 'webhook' | 'manual' | null;
  accountability: 'all' | 'activity' | null;
  options: Record<string, unknown> | null;
  operation: string | OperationType | null;
  operations: (string | Partial<OperationType>)[];
  date_created: string | null;
  user_created: string | UserType | null;
}

/** One step of a flow (svc_operations): `resolve` and `reject` name the next one. */
export interface OperationType {
  id: string;
  name: string | null;
  key: string;
  type: string;
  position_x: number;
  position_y: number;
  options: Record<string, unknown> | null;
  resolve: string | OperationType | null;
  reject: string | OperationType | null;
  flow: string | FlowType;
}

/** `client.flows.webhook`: what a Directus webhook is (a URL, events, collections, a secret). */
export interface WebhookOptions {
  readonly url: string;
  /** `create`, `update`, `delete` (or as Directus's flows name them, `items.create`...). */
  readonly events: readonly ('create' | 'update' | 'delete' | 'items.create' | 'items.update' | 'items.delete')[];
  readonly collections: readonly string[];
  /** `whsec_<base64>`: the deliveries carry `webhook-id`, `webhook-timestamp` and `webhook-signature`. */
  readonly secret?: string;
  /** Only events whose `$trigger` (`{ event, collection, keys, payload }`) matches (the filter syntax). */
  readonly filter?: Record<string, unknown>;
  /** Whether a refused delivery is retried with the queue's backoff (FLOWS_RETRY_ATTEMPTS); default true. */
  readonly retry?: boolean;
  readonly method?: 'POST' | 'PUT' | 'PATCH';
  /** The flow's name; default `Webhook to <url>`. */
  readonly name?: string;
}

/** GET /flows/runs: a queued run whose retries ran out. */
export interface DeadLetter {
  key: string;
  flow: string | null;
  created: string;
  error: string | null;
}

export interface FolderType {
  id: string;
  name: string;
  parent: string | FolderType | null;
}

export interface PermissionType {
  id: number;
  role: string | RoleType | null;
  collection: string;
  action: string;
  permissions: Filter | null;
  validation: Filter | null;
  presets: Record<string, unknown> | null;
  fields: string[] | null;
}

export interface PresetType {
  id: number;
  bookmark: string | null;
  user: string | UserType | null;
  role: string | RoleType | null;
  collection: string | null;
  search: string | null;
  layout: string | null;
  layout_query: Record<string, unknown> | null;
  layout_options: Record<string, unknown> | null;
  filter: Filter | null;
}

export interface RelationType {
  collection: string;
  field: string;
  related_collection: string | null;
  meta: Record<string, unknown> | null;
  schema: Record<string, unknown> | null;
}

export interface RevisionType {
  id: number;
  activity: number | ActivityType;
  collection: string;
  item: string;
  data: Record<string, unknown> | null;
  delta: Record<string, unknown> | null;
  parent: number | RevisionType | null;
}

/** A content version (svc_versions). */
export interface VersionType {
  id: string;
  key: string;
  name: string | null;
  collection: string;
  item: string;
  hash: string | null;
  date_created: string | null;
  date_updated: string | null;
  user_created: string | UserType | null;
  user_updated: string | UserType | null;
  delta: Record<string, unknown> | null;
}

/** GET /versions/:id/compare. */
export interface VersionComparison<I = AnyItem> {
  outdated: boolean;
  mainHash: string;
  current: Partial<I>;
  main: Partial<I>;
  fields: string[];
  conflicts: string[];
}

/** GET /revisions/:id/diff: per field `before`/`after`, text as word or line changes, to-many keys added/removed. */
export interface RevisionDiff {
  collection: string;
  item: string;
  from: number | null;
  to: number;
  fields: Record<
    string,
    {
      before: unknown;
      after: unknown;
      changes?: { value: string; added?: boolean; removed?: boolean }[];
      added?: unknown[];
      removed?: unknown[];
    }
  >;
}

/** One entry of GET /items/:collection/:id/history. */
export interface HistoryEntry {
  revision: number;
  activity: number;
  action: string;
  user: string | null;
  timestamp: string;
  fields: string[];
  value?: unknown;
}

export interface RoleType {
  id: string;
  name: string;
  icon: string | null;
  description: string | null;
  ip_access: string[] | null;
  enforce_tfa: boolean;
  admin_access: boolean;
  app_access: boolean;
  users: (string | UserType)[];
}

export interface SettingsType {
  id: number;
  project_name: string | null;
  project_url: string | null;
  [setting: string]: unknown;
}

export interface UserType {
  id: string;
  first_name: string | null;
  last_name: string | null;
  email: string | null;
  password: string | null;
  location: string | null;
  title: string | null;
  description: string | null;
  tags: string[] | null;
  avatar: string | FileType | null;
  language: string | null;
  tfa_secret: string | null;
  status: string;
  role: string | RoleType | null;
  token: string | null;
  last_access: string | null;
  last_page: string | null;
  provider: string;
  external_identifier: string | null;
  auth_data: Record<string, unknown> | null;
  email_notifications: boolean | null;
}

/** What /server/info answers; more fields for authenticated callers. */
export interface ServerInfo {
  project?: Record<string, unknown>;
  /** Authenticated callers: false, or the live-data endpoints (WEBSOCKETS_ENABLED). */
  websocket?: false | ServerWebsocketInfo;
  /** Administrators: the default of settings.export_retention (EXPORT_RETENTION as written), null when exports are kept. */
  exports?: { retention: string | null };
  [key: string]: unknown;
}

/** Where each WebSocket endpoint is and how it authenticates; false for one turned off. */
export interface ServerWebsocketInfo {
  rest: false | { authentication: 'public' | 'handshake' | 'strict'; path: string };
  graphql: false | { authentication: 'handshake'; path: string };
  /** Seconds between heartbeat pings, or false. */
  heartbeat: false | number;
}
