/**
 * What the Studio knows of the schema and of the caller, read once per session through the
 * client: the collections (with their folder `group`, icon, display template), their fields
 * (meta: interface, options, display, hidden, readonly, required, width, sort, conditions), the
 * relations each field stands for (many-to-one, one-to-many, many-to-many, many-to-any, files), the
 * caller (`me`, with its role's admin and app access) and GET /permissions/me. react-admin holds it
 * as the session's "permissions".
 */
import type { CollectionAccess, CollectionType, FieldType, Filter, RelationType } from '../../client/index.js';
import { client } from '../session.js';

/**
 * What a field stands for across collections, from svc_relations:
 * - `m2o`: this field holds a key of `collection` (`file` when that is svc_files);
 * - `o2m`: an alias listing the items of `collection` whose `field` holds this item's key;
 * - `m2m`: an alias over the junction `junction` (`field` back to this item, `junctionField` to
 *   the other side, `collection`; `files` when that is svc_files);
 * - `m2a`: as m2m, the other side any of `allowedCollections` (`collectionField` names which).
 * `sortField` orders the related or junction rows when the relation has one.
 */
export type RelationInfo =
  | { readonly kind: 'm2o' | 'file'; readonly collection: string }
  | { readonly kind: 'o2m'; readonly collection: string; readonly field: string; readonly sortField?: string }
  | {
      readonly kind: 'm2m' | 'files';
      readonly collection: string;
      readonly junction: string;
      readonly field: string;
      readonly junctionField: string;
      readonly sortField?: string;
    }
  | {
      readonly kind: 'm2a';
      readonly allowedCollections: readonly string[];
      readonly junction: string;
      readonly field: string;
      readonly junctionField: string;
      readonly collectionField: string;
      readonly sortField?: string;
    };

/** A choice of a dropdown, radio or label display; the colours are the `labels` display's. */
export interface Choice {
  readonly text: string;
  readonly value: unknown;
  readonly foreground?: string;
  readonly background?: string;
}

/** Directus's `choices` (`[{ text, value, foreground?, background? }]` or plain values), read. */
export function choicesIn(list: unknown): Choice[] {
  if (!Array.isArray(list)) return [];
  return list.map((c: unknown) => {
    if (typeof c !== 'object' || c === null) return { text: String(c), value: c };
    const choice = c as Record<string, unknown>;
    return {
      text: String(choice['text'] ?? choice['value']),
      value: choice['value'],
      ...(typeof choice['foreground'] === 'string' ? { foreground: choice['foreground'] } : {}),
      ...(typeof choice['background'] === 'string' ? { background: choice['background'] } : {}),
    };
  });
}

export interface FieldInfo {
  readonly name: string;
  readonly type: string;
  readonly interface: string | undefined;
  /** meta.options of the interface (choices, min/max/step, placeholder, template, ...). */
  readonly options: Readonly<Record<string, unknown>>;
  readonly display: string | undefined;
  readonly displayOptions: Readonly<Record<string, unknown>>;
  readonly special: readonly string[];
  /** meta.width: half, half-left, half-right, full, fill. */
  readonly width: string | undefined;
  readonly conditions: readonly unknown[];
  readonly validation: unknown;
  readonly defaultValue: unknown;
  readonly choices: readonly Choice[];
  readonly hidden: boolean;
  readonly readonly: boolean;
  readonly required: boolean;
  readonly note: string | undefined;
  readonly isPrimaryKey: boolean;
  readonly isGenerated: boolean;
  readonly sort: number | undefined;
  /** The related collection of a many-to-one (or file). */
  readonly relatedCollection: string | undefined;
  readonly relation: RelationInfo | undefined;
}

export interface CollectionInfo {
  readonly name: string;
  readonly group: string | undefined;
  readonly icon: string | undefined;
  readonly note: string | undefined;
  readonly isFolder: boolean;
  /** meta.hidden: left out of the navigation (a junction collection, for one). */
  readonly hidden: boolean;
  readonly displayTemplate: string | undefined;
  readonly singleton: boolean;
  readonly sortField: string | undefined;
  /** The archive field and its values (meta archive_field, archive_value, unarchive_value). */
  readonly archive: { readonly field: string; readonly value: unknown; readonly unarchiveValue: unknown } | undefined;
  readonly versioning: boolean;
  readonly primaryKey: string;
  readonly fields: readonly FieldInfo[];
  readonly can: Readonly<Record<'create' | 'read' | 'update' | 'delete', boolean>>;
  /** The fields the role may write, per action (null: all of them). */
  readonly writable: Readonly<Record<'create' | 'update', readonly string[] | null>>;
}

/** The signed-in user and what their role opens. */
interface Me {
  readonly id: string;
  readonly email: string;
  readonly name: string;
  readonly role: string | null;
  readonly adminAccess: boolean;
  readonly appAccess: boolean;
  /** The role's `enforce_tfa`: the Studio opens only once the user has TFA (Directus's app does so). */
  readonly enforceTfa: boolean;
  /** Whether the user has TFA on (their `tfa_secret`, which reads masked when set, null when not). */
  readonly hasTfa: boolean;
}

/** Whether the signed-in user must set up TFA before the Studio opens (layout.tsx shows only that). */
export const mustSetUpTfa = (catalogue: Catalogue | null | undefined): boolean =>
  catalogue?.me?.enforceTfa === true && !catalogue.me.hasTfa;

export interface Catalogue {
  readonly collections: readonly CollectionInfo[];
  readonly me: Me | null;
  /** Whether the service's WebSocket takes item subscriptions (`websocket.rest` of /server/info). */
  readonly live: boolean;
  /** The system collections (svc_files, svc_activity, ...) the role may read. */
  readonly systemReadable?: readonly string[];
  /** The API's refusal of the collection list, shown instead of it. */
  readonly error: unknown;
}

/**
 * Whether the caller may read the system collection `collection` (svc_files, svc_flows, ...):
 * administrators may; others when their role's permissions say so. What the navigation offers
 * and a page asks for go by it, so a role is neither shown an entry nor sent a request it would
 * be refused.
 */
export const mayReadSystem = (catalogue: Catalogue | null | undefined, collection: string): boolean =>
  catalogue?.me?.adminAccess === true || (catalogue?.systemReadable ?? []).includes(collection);

const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/** Reads the catalogue; a refusal becomes `error` (a role without access still gets the layout). */
export async function readCatalogue(): Promise<Catalogue> {
  let collections: CollectionType[];
  try {
    collections = ((await client.collections.readAll()).data ?? []).filter((c) => !c.collection.startsWith('svc_'));
  } catch (error) {
    return { collections: [], me: await readMe(), live: false, error };
  }
  const [fields, relations, access, me, live] = await Promise.all([
    client.fields.readAll().then(
      (r) => r ?? [],
      () => [] as FieldType[],
    ),
    client.relations.readAll().then(
      (r) => r ?? [],
      () => [] as RelationType[],
    ),
    client.permissions.readUserPermissions().then(
      (r) => r ?? {},
      () => ({}) as CollectionAccess,
    ),
    readMe(),
    client.server.info().then(
      (info) => typeof info?.websocket === 'object' && info.websocket.rest !== false,
      () => false,
    ),
  ]);
  const infos = collections.map((c): CollectionInfo => {
    const own = fields
      .filter((f) => f.collection === c.collection)
      .map((f) => fieldInfo(f, relationOf(relations, f.collection, f.field)))
      // The key first, then by meta.sort (unsorted ones last, in the API's order).
      .map((f, i) => ({ f, i, rank: f.isPrimaryKey ? -Infinity : (f.sort ?? Infinity) }))
      .sort((a, b) => (a.rank === b.rank ? a.i - b.i : a.rank < b.rank ? -1 : 1))
      .map(({ f }) => f);
    const rights = access[c.collection];
    const may = (action: 'create' | 'read' | 'update' | 'delete') =>
      rights === undefined ? false : rights[action].access !== 'none';
    return {
      name: c.collection,
      group: text(c.meta?.['group']),
      icon: text(c.meta?.['icon']),
      note: text(c.meta?.['note']),
      isFolder: c.schema === null,
      hidden: c.meta?.['hidden'] === true,
      displayTemplate: text(c.meta?.['display_template']),
      singleton: c.meta?.['singleton'] === true,
      sortField: text(c.meta?.['sort_field']),
      archive:
        text(c.meta?.['archive_field']) === undefined
          ? undefined
          : {
              field: String(c.meta?.['archive_field']),
              value: c.meta?.['archive_value'] ?? 'archived',
              unarchiveValue: c.meta?.['unarchive_value'] ?? 'draft',
            },
      versioning: c.meta?.['versioning'] === true,
      primaryKey: own.find((f) => f.isPrimaryKey)?.name ?? 'id',
      fields: own,
      can: { create: may('create'), read: may('read'), update: may('update'), delete: may('delete') },
      writable: { create: fieldsOf(rights?.create.fields), update: fieldsOf(rights?.update.fields) },
    };
  });
  infos.sort((a, b) => a.name.localeCompare(b.name));
  const systemReadable = Object.entries(access)
    .filter(([name, rights]) => name.startsWith('svc_') && rights !== undefined && rights.read.access !== 'none')
    .map(([name]) => name);
  return { collections: infos, me, live, systemReadable, error: null };
}

/** The caller and its role's access; null when the API does not answer (no session). */
async function readMe(): Promise<Me | null> {
  // The caller's own svc_users row and role: readable to every role with app access.
  const fields = [
    'id',
    'email',
    'first_name',
    'last_name',
    'tfa_secret',
    'role.id',
    'role.admin_access',
    'role.app_access',
    'role.enforce_tfa',
  ];
  const me = (await client.users.me.read({ fields }).catch(() => null)) as Record<string, unknown> | null;
  if (me === null || me === undefined) return null;
  const role = (me['role'] ?? null) as Record<string, unknown> | null;
  const name = [me['first_name'], me['last_name']].filter((p) => typeof p === 'string' && p !== '').join(' ');
  return {
    id: String(me['id']),
    email: String(me['email'] ?? ''),
    name: name === '' ? String(me['email'] ?? '') : name,
    role: role === null ? null : String(role['id']),
    adminAccess: role?.['admin_access'] === true,
    appAccess: role?.['app_access'] === true || role?.['admin_access'] === true,
    enforceTfa: role?.['enforce_tfa'] === true,
    // Unknown (not returned) counts as on: nobody is held at a page they could never leave.
    hasTfa: me['tfa_secret'] !== null,
  };
}

const FILES = 'svc_files';
const meta = (r: RelationType, key: string): string | undefined => text(r.meta?.[key]);

/** What `collection.field` stands for in `relations` (RelationInfo), if anything. */
function relationOf(relations: readonly RelationType[], collection: string, field: string): RelationInfo | undefined {
  const own = relations.find((r) => r.collection === collection && r.field === field);
  if (own !== undefined && own.related_collection !== null)
    return { kind: own.related_collection === FILES ? 'file' : 'm2o', collection: own.related_collection };
  // An alias: the relation whose one side is this field.
  const back = relations.find((r) => r.related_collection === collection && meta(r, 'one_field') === field);
  if (back === undefined) return undefined;
  const junctionField = meta(back, 'junction_field');
  const sortField = meta(back, 'sort_field');
  const sorted = sortField === undefined ? {} : { sortField };
  if (junctionField === undefined) return { kind: 'o2m', collection: back.collection, field: back.field, ...sorted };
  const other = relations.find((r) => r.collection === back.collection && r.field === junctionField);
  const through = { junction: back.collection, field: back.field, junctionField, ...sorted };
  if (other?.related_collection === null || other?.related_collection === undefined) {
    const allowed = other?.meta?.['one_allowed_collections'];
    return {
      kind: 'm2a',
      allowedCollections: Array.isArray(allowed) ? allowed.map(String) : [],
      collectionField: (other === undefined ? undefined : meta(other, 'one_collection_field')) ?? 'collection',
      ...through,
    };
  }
  return {
    kind: other.related_collection === FILES ? 'files' : 'm2m',
    collection: other.related_collection,
    ...through,
  };
}

const fieldsOf = (fields: readonly string[] | undefined): readonly string[] | null =>
  fields === undefined || fields.includes('*') ? null : fields;

/** Whether the role may write `field` when it does `action`. */
export function mayWrite(collection: CollectionInfo, action: 'create' | 'update', field: string): boolean {
  const fields = collection.writable[action];
  return collection.can[action] && (fields === null || fields.includes(field));
}

const record = (value: unknown): Readonly<Record<string, unknown>> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

function fieldInfo(f: FieldType, relation: RelationInfo | undefined): FieldInfo {
  const meta = f.meta ?? {};
  const options = record(meta['options']);
  const choices = choicesIn(options['choices']);
  const special = Array.isArray(meta['special']) ? (meta['special'] as unknown[]) : [];
  return {
    name: f.field,
    type: f.type,
    interface: text(meta['interface']),
    options,
    display: text(meta['display']),
    displayOptions: record(meta['display_options']),
    special: special.filter((s): s is string => typeof s === 'string'),
    width: text(meta['width']),
    conditions: Array.isArray(meta['conditions']) ? (meta['conditions'] as unknown[]) : [],
    validation: meta['validation'] ?? null,
    defaultValue: f.schema?.['default_value'] ?? null,
    choices,
    hidden: meta['hidden'] === true,
    readonly: meta['readonly'] === true,
    required: meta['required'] === true,
    note: text(meta['note']),
    isPrimaryKey: f.schema?.is_primary_key === true,
    sort: typeof meta['sort'] === 'number' ? meta['sort'] : undefined,
    isGenerated:
      f.schema?.['has_auto_increment'] === true ||
      special.some((s) => typeof s === 'string' && /^(uuid|date-|user-)/.test(s)),
    relatedCollection: relation?.kind === 'm2o' || relation?.kind === 'file' ? relation.collection : undefined,
    relation,
  };
}

/** The collection named `name`, if the catalogue has it. */
/** What a list shows unless asked for archived items: the archive field is not the archive value (null counts as not). */
export function archiveFilter(collection: CollectionInfo): Filter | undefined {
  const archive = collection.archive;
  if (archive === undefined) return undefined;
  return { _or: [{ [archive.field]: { _neq: archive.value } }, { [archive.field]: { _null: true } }] };
}

export function collectionOf(catalogue: Catalogue | undefined, name: string): CollectionInfo | undefined {
  return catalogue?.collections.find((c) => c.name === name);
}

/**
 * A display template (`{{title}} by {{author.name}}`) filled from an item; without one, the
 * first text-like field, else the primary key.
 */
export function displayOf(collection: CollectionInfo | undefined, item: Record<string, unknown> | undefined): string {
  if (item === undefined || item === null) return '';
  const template = collection?.displayTemplate;
  if (template !== undefined) {
    return template.replace(/\{\{\s*([\w.]+)\s*\}\}/g, (_m, path: string) => {
      const value = path.split('.').reduce<unknown>((v, k) => (v as Record<string, unknown> | null)?.[k], item);
      return value === null || value === undefined ? '' : String(value);
    });
  }
  const named = collection?.fields.find((f) => ['name', 'title', 'label'].includes(f.name));
  const key = named?.name ?? collection?.primaryKey ?? 'id';
  return String(item[key] ?? item['id'] ?? '');
}
