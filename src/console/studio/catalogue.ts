/**
 * What the Studio knows of the schema and of the caller, read once per session through the
 * client: the collections (with their folder `group`, icon, display template), their fields
 * (meta: interface, options, hidden, readonly, required, width, sort), the many-to-one relations
 * and GET /permissions/me. react-admin holds it as the session's "permissions".
 */
import type { CollectionAccess, CollectionType, FieldType, RelationType } from '../../client/index.js';
import { client } from '../session.js';

export interface FieldInfo {
  readonly name: string;
  readonly type: string;
  readonly interface: string | undefined;
  readonly choices: readonly { readonly text: string; readonly value: unknown }[];
  readonly hidden: boolean;
  readonly readonly: boolean;
  readonly required: boolean;
  readonly note: string | undefined;
  readonly isPrimaryKey: boolean;
  readonly isGenerated: boolean;
  readonly sort: number | undefined;
  /** The related collection of a many-to-one. */
  readonly relatedCollection: string | undefined;
}

export interface CollectionInfo {
  readonly name: string;
  readonly group: string | undefined;
  readonly icon: string | undefined;
  readonly note: string | undefined;
  readonly isFolder: boolean;
  readonly displayTemplate: string | undefined;
  readonly primaryKey: string;
  readonly fields: readonly FieldInfo[];
  readonly can: Readonly<Record<'create' | 'read' | 'update' | 'delete', boolean>>;
  /** The fields the role may write, per action (null: all of them). */
  readonly writable: Readonly<Record<'create' | 'update', readonly string[] | null>>;
}

export interface Catalogue {
  readonly collections: readonly CollectionInfo[];
  /** The API's refusal of the collection list, shown instead of it. */
  readonly error: unknown;
}

const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/** Reads the catalogue; a refusal becomes `error` (a role without access still gets the layout). */
export async function readCatalogue(): Promise<Catalogue> {
  let collections: CollectionType[];
  try {
    collections = ((await client.collections.readAll()).data ?? []).filter((c) => !c.collection.startsWith('svc_'));
  } catch (error) {
    return { collections: [], error };
  }
  const [fields, relations, access] = await Promise.all([
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
  ]);
  const m2o = new Map(
    relations
      .filter((r) => r.related_collection !== null)
      .map((r) => [`${r.collection}.${r.field}`, r.related_collection ?? undefined]),
  );
  const infos = collections.map((c): CollectionInfo => {
    const own = fields
      .filter((f) => f.collection === c.collection)
      .map((f) => fieldInfo(f, m2o.get(`${f.collection}.${f.field}`)))
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
      displayTemplate: text(c.meta?.['display_template']),
      primaryKey: own.find((f) => f.isPrimaryKey)?.name ?? 'id',
      fields: own,
      can: { create: may('create'), read: may('read'), update: may('update'), delete: may('delete') },
      writable: { create: fieldsOf(rights?.create.fields), update: fieldsOf(rights?.update.fields) },
    };
  });
  infos.sort((a, b) => a.name.localeCompare(b.name));
  return { collections: infos, error: null };
}

const fieldsOf = (fields: readonly string[] | undefined): readonly string[] | null =>
  fields === undefined || fields.includes('*') ? null : fields;

/** Whether the role may write `field` when it does `action`. */
export function mayWrite(collection: CollectionInfo, action: 'create' | 'update', field: string): boolean {
  const fields = collection.writable[action];
  return collection.can[action] && (fields === null || fields.includes(field));
}

function fieldInfo(f: FieldType, relatedCollection: string | undefined): FieldInfo {
  const meta = f.meta ?? {};
  const options = (meta['options'] ?? {}) as { choices?: unknown };
  const choices = Array.isArray(options.choices)
    ? options.choices.map((c: unknown) =>
        typeof c === 'object' && c !== null && 'value' in c
          ? { text: String((c as { text?: unknown }).text ?? (c as { value: unknown }).value), value: c.value }
          : { text: String(c), value: c },
      )
    : [];
  const special = Array.isArray(meta['special']) ? (meta['special'] as unknown[]) : [];
  return {
    name: f.field,
    type: f.type,
    interface: text(meta['interface']),
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
    relatedCollection,
  };
}

/** The collection named `name`, if the catalogue has it. */
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
