import type { FieldType, RelationMeta } from '../overview/types.js';

/**
 * What the catalogue knows about its own svc_* tables beyond what introspection shows:
 * specials, the API type where the column type alone is
 * ambiguous (csv in a text column, timestamps SQLite declares as datetime), alias fields and
 * the relations among system tables. These never live in svc_fields / svc_relations.
 */
interface SystemFieldDefinition {
  readonly special?: readonly string[];
  readonly type?: FieldType;
  /** Its `meta.note`: what the field does, where its name does not say. */
  readonly note?: string;
}

export interface SystemCollectionDefinition {
  readonly singleton?: boolean;
  /** svc_activity, svc_presets and svc_revisions record nothing. */
  readonly accountability: 'all' | 'activity' | null;
  readonly note: string;
  readonly fields: Readonly<Record<string, SystemFieldDefinition>>;
  /** Alias fields (no column): the reverse side of a system relation. */
  readonly aliases?: Readonly<Record<string, readonly string[]>>;
}

export interface SystemRelationDefinition {
  readonly collection: string;
  readonly field: string;
  readonly relatedCollection: string;
  readonly meta?: Partial<RelationMeta>;
}

/** Tables the catalogue keeps for itself and never serves. */
export const INTERNAL_TABLES: readonly string[] = [
  'svc_migrations',
  'svc_sessions',
  'svc_idempotency',
  'svc_flow_claims',
];

export const SYSTEM_PREFIX = 'svc_';

const uuidPk: SystemFieldDefinition = { special: ['uuid'], type: 'uuid' };
const json: SystemFieldDefinition = { special: ['cast-json'], type: 'json' };
const csv: SystemFieldDefinition = { special: ['cast-csv'], type: 'csv' };
const boolean: SystemFieldDefinition = { special: ['cast-boolean'], type: 'boolean' };
const timestamp: SystemFieldDefinition = { type: 'timestamp' };
const m2o: SystemFieldDefinition = { special: ['m2o'] };
const concealed: SystemFieldDefinition = { special: ['conceal'] };

export const SYSTEM_COLLECTIONS: Readonly<Record<string, SystemCollectionDefinition>> = {
  svc_activity: {
    accountability: null,
    note: 'Accountability logs for all events',
    fields: { timestamp, user: m2o },
    aliases: { revisions: ['o2m'] },
  },
  svc_collections: {
    accountability: 'all',
    note: 'Additional collection configuration and metadata',
    fields: {
      hidden: boolean,
      singleton: boolean,
      translations: json,
      archive_app_filter: boolean,
      item_duplication_fields: json,
      versioning: boolean,
    },
  },
  svc_comments: {
    accountability: 'all',
    note: 'Comments on items',
    fields: {
      id: uuidPk,
      collection: m2o,
      date_created: { special: ['date-created'], type: 'timestamp' },
      date_updated: { special: ['date-updated'], type: 'timestamp' },
      user_created: { special: ['user-created'] },
      user_updated: { special: ['user-updated'] },
    },
  },
  svc_fields: {
    accountability: 'all',
    note: 'Additional field configuration and metadata',
    fields: {
      special: csv,
      options: json,
      display_options: json,
      readonly: boolean,
      hidden: boolean,
      translations: json,
      conditions: json,
      required: boolean,
      validation: json,
    },
  },
  svc_files: {
    accountability: 'all',
    note: 'Metadata for all managed file assets',
    fields: {
      id: uuidPk,
      folder: m2o,
      uploaded_by: { special: ['user-created'] },
      created_on: { special: ['date-created'], type: 'timestamp' },
      modified_by: { special: ['user-updated'] },
      modified_on: { special: ['date-updated'], type: 'timestamp' },
      tags: json,
      metadata: json,
      tus_data: json,
      uploaded_on: timestamp,
    },
  },
  svc_flows: {
    accountability: 'all',
    note: 'Flows: a trigger and a chain of operations (src/flows)',
    fields: {
      id: uuidPk,
      options: json,
      operation: m2o,
      date_created: { special: ['date-created'], type: 'timestamp' },
      user_created: { special: ['user-created'] },
    },
    aliases: { operations: ['o2m'] },
  },
  svc_folders: {
    accountability: 'all',
    note: 'Provides virtual directories for files',
    fields: { id: uuidPk, parent: m2o },
  },
  svc_operations: {
    accountability: 'all',
    note: 'The operations of flows',
    fields: {
      id: uuidPk,
      options: json,
      resolve: m2o,
      reject: m2o,
      flow: m2o,
      date_created: { special: ['date-created'], type: 'timestamp' },
      user_created: { special: ['user-created'] },
    },
  },
  svc_permissions: {
    accountability: 'all',
    note: 'Access permissions for each role',
    fields: { role: m2o, permissions: json, validation: json, presets: json, fields: csv },
  },
  svc_presets: {
    accountability: null,
    note: 'Presets for collection defaults and bookmarks',
    fields: { user: m2o, role: m2o, layout_query: json, layout_options: json, filter: json },
  },
  svc_relations: {
    accountability: 'all',
    note: 'Relationship configuration and metadata',
    fields: { one_allowed_collections: csv },
  },
  svc_revisions: {
    accountability: null,
    note: 'Data snapshots for all activity',
    fields: { activity: m2o, data: json, delta: json, parent: m2o },
  },
  svc_roles: {
    accountability: 'all',
    note: 'Permission groups for system users',
    fields: {
      id: uuidPk,
      ip_access: csv,
      enforce_tfa: boolean,
      admin_access: boolean,
      app_access: boolean,
    },
    aliases: { users: ['o2m'] },
  },
  svc_settings: {
    singleton: true,
    accountability: 'all',
    note: 'Project configuration options',
    fields: {
      project_logo: m2o,
      public_foreground: m2o,
      public_background: m2o,
      public_favicon: m2o,
      theme_light_overrides: json,
      theme_dark_overrides: json,
      storage_asset_presets: json,
      storage_default_folder: m2o,
      basemaps: json,
      module_bar: json,
      custom_aspect_ratios: json,
      public_registration: boolean,
      public_registration_verify_email: boolean,
      public_registration_role: m2o,
      public_registration_email_filter: json,
      export_retention: {
        note: 'How long exports are kept before the cleanup deletes them with their file: a duration such as 30d, 12h or 90m (plain digits are milliseconds), 0 or false to keep them forever; empty: the server default, EXPORT_RETENTION',
      },
    },
  },
  svc_versions: {
    accountability: 'all',
    note: 'Named versions (drafts) of items of collections with versioning',
    fields: {
      id: uuidPk,
      collection: m2o,
      date_created: { special: ['date-created'], type: 'timestamp' },
      date_updated: { special: ['date-updated'], type: 'timestamp' },
      user_created: { special: ['user-created'] },
      user_updated: { special: ['user-updated'] },
      delta: json,
    },
  },
  svc_users: {
    accountability: 'all',
    note: 'System users for the platform',
    fields: {
      id: uuidPk,
      password: { special: ['hash', 'conceal'], type: 'hash' },
      tags: json,
      avatar: m2o,
      tfa_secret: concealed,
      role: m2o,
      token: concealed,
      last_access: timestamp,
      auth_data: json,
      email_notifications: boolean,
      theme_light_overrides: json,
      theme_dark_overrides: json,
    },
  },
};

export const SYSTEM_RELATIONS: readonly SystemRelationDefinition[] = [
  { collection: 'svc_activity', field: 'user', relatedCollection: 'svc_users' },
  { collection: 'svc_comments', field: 'collection', relatedCollection: 'svc_collections' },
  { collection: 'svc_comments', field: 'user_created', relatedCollection: 'svc_users' },
  { collection: 'svc_comments', field: 'user_updated', relatedCollection: 'svc_users' },
  { collection: 'svc_files', field: 'folder', relatedCollection: 'svc_folders' },
  { collection: 'svc_files', field: 'uploaded_by', relatedCollection: 'svc_users' },
  { collection: 'svc_files', field: 'modified_by', relatedCollection: 'svc_users' },
  { collection: 'svc_flows', field: 'operation', relatedCollection: 'svc_operations' },
  { collection: 'svc_flows', field: 'user_created', relatedCollection: 'svc_users' },
  { collection: 'svc_folders', field: 'parent', relatedCollection: 'svc_folders' },
  { collection: 'svc_operations', field: 'resolve', relatedCollection: 'svc_operations' },
  { collection: 'svc_operations', field: 'reject', relatedCollection: 'svc_operations' },
  {
    collection: 'svc_operations',
    field: 'flow',
    relatedCollection: 'svc_flows',
    meta: { oneField: 'operations' },
  },
  { collection: 'svc_operations', field: 'user_created', relatedCollection: 'svc_users' },
  { collection: 'svc_permissions', field: 'role', relatedCollection: 'svc_roles' },
  { collection: 'svc_presets', field: 'user', relatedCollection: 'svc_users' },
  { collection: 'svc_presets', field: 'role', relatedCollection: 'svc_roles' },
  {
    collection: 'svc_revisions',
    field: 'activity',
    relatedCollection: 'svc_activity',
    meta: { oneField: 'revisions' },
  },
  { collection: 'svc_revisions', field: 'parent', relatedCollection: 'svc_revisions' },
  { collection: 'svc_settings', field: 'project_logo', relatedCollection: 'svc_files' },
  { collection: 'svc_settings', field: 'public_foreground', relatedCollection: 'svc_files' },
  { collection: 'svc_settings', field: 'public_background', relatedCollection: 'svc_files' },
  { collection: 'svc_settings', field: 'public_favicon', relatedCollection: 'svc_files' },
  { collection: 'svc_settings', field: 'storage_default_folder', relatedCollection: 'svc_folders' },
  { collection: 'svc_settings', field: 'public_registration_role', relatedCollection: 'svc_roles' },
  { collection: 'svc_versions', field: 'collection', relatedCollection: 'svc_collections' },
  { collection: 'svc_versions', field: 'user_created', relatedCollection: 'svc_users' },
  { collection: 'svc_versions', field: 'user_updated', relatedCollection: 'svc_users' },
  { collection: 'svc_users', field: 'avatar', relatedCollection: 'svc_files' },
  { collection: 'svc_users', field: 'role', relatedCollection: 'svc_roles', meta: { oneField: 'users' } },
];

/** The product prefix the SDK sends; accepted as an alias of `svc_`. */
const PRODUCT_PREFIX = 'directus_';

/** True for names the catalogue reserves (reference: system collections carry `svc_`). */
export function isSystemName(name: string): boolean {
  const lower = name.toLowerCase();
  return lower.startsWith(SYSTEM_PREFIX) || lower.startsWith(PRODUCT_PREFIX);
}

/**
 * Collection names, a deviation from Directus 10: `directus_<x>` in a path or
 * body means `svc_<x>`; responses always use the `svc_` name.
 */
export function toServiceCollectionName(name: string): string {
  return name.startsWith(PRODUCT_PREFIX) ? SYSTEM_PREFIX + name.slice(PRODUCT_PREFIX.length) : name;
}

/**
 * The svc_settings fields GET /server/info (and GraphQL's `server_info`) shows anyone as
 * `project`: the texts and files, then the two that are booleans.
 */
export const PUBLIC_PROJECT_SETTINGS = {
  text: [
    'project_name',
    'project_descriptor',
    'project_logo',
    'project_color',
    'default_language',
    'public_foreground',
    'public_background',
    'public_favicon',
    'public_note',
    'custom_css',
  ],
  boolean: ['public_registration', 'public_registration_verify_email'],
} as const;
