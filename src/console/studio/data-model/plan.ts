/**
 * Schema changes as plans: the requests a change makes (method, path, body), shown before they
 * run, and run in order through the client. Collections are always created with `schema: {}` and
 * their primary key (without `schema` the API makes a folder, which holds no items); folders with
 * `schema: null`. Relations are made as Directus's app makes them: the fields, then /relations.
 */
import type { CollectionType, FieldType, RelationType } from '../../../client/index.js';
import { client } from '../../session.js';
import { FILES } from '../relations/shared.js';

/** One request of a plan: what it is, in the page's words (a message key) and as HTTP. */
interface Step {
  readonly method: 'POST' | 'PATCH' | 'DELETE';
  readonly path: string;
  readonly body?: unknown;
  readonly message: string;
  readonly params: Readonly<Record<string, string>>;
  readonly run: () => Promise<unknown>;
}

/** What a destructive plan loses, named for its confirmation ("articles.body and its 60 values"). */
export interface Loss {
  readonly message: string;
  readonly params: Readonly<Record<string, string | number>>;
}

export interface Plan {
  readonly steps: readonly Step[];
  readonly loss?: Loss;
}

export type PrimaryKeyType = 'integer' | 'bigInteger' | 'uuid' | 'string';
export const PRIMARY_KEY_TYPES: readonly PrimaryKeyType[] = ['integer', 'bigInteger', 'uuid', 'string'];

export const SYSTEM_FIELDS = [
  'status',
  'sort',
  'user_created',
  'date_created',
  'user_updated',
  'date_updated',
] as const;
type SystemField = (typeof SYSTEM_FIELDS)[number];

export interface CollectionDraft {
  readonly collection: string;
  readonly isFolder: boolean;
  readonly primaryKey: string;
  readonly primaryKeyType: PrimaryKeyType;
  readonly singleton: boolean;
  readonly group: string;
  readonly icon: string;
  readonly note: string;
  readonly displayTemplate: string;
  readonly versioning: boolean;
  readonly systemFields: readonly SystemField[];
}

type Field = Partial<FieldType> & { field: string; type: string };

/** The primary key field of a new collection, by its type. */
function primaryKeyField(name: string, type: PrimaryKeyType): Field {
  switch (type) {
    case 'integer':
    case 'bigInteger':
      return {
        field: name,
        type,
        schema: { is_primary_key: true, has_auto_increment: true },
        meta: { interface: 'input', readonly: true, hidden: true },
      };
    case 'uuid':
      return {
        field: name,
        type: 'uuid',
        schema: { is_primary_key: true },
        meta: { interface: 'input', readonly: true, hidden: true, special: ['uuid'] },
      };
    case 'string':
      return {
        field: name,
        type: 'string',
        schema: { is_primary_key: true, has_auto_increment: false, max_length: 255 },
        meta: { interface: 'input', readonly: false, hidden: false },
      };
  }
}

const STATUS_CHOICES = [
  { text: 'Published', value: 'published' },
  { text: 'Draft', value: 'draft' },
  { text: 'Archived', value: 'archived' },
];

/** The optional system fields, each with its Directus special. */
function systemField(name: SystemField): Field {
  const half = { width: 'half', readonly: true, hidden: true };
  switch (name) {
    case 'status':
      return {
        field: 'status',
        type: 'string',
        schema: { default_value: 'draft', is_nullable: false, max_length: 255 },
        meta: {
          interface: 'select-dropdown',
          options: { choices: STATUS_CHOICES },
          display: 'labels',
          display_options: { choices: STATUS_CHOICES },
          width: 'full',
        },
      };
    case 'sort':
      return { field: 'sort', type: 'integer', schema: {}, meta: { interface: 'input', hidden: true } };
    case 'user_created':
    case 'user_updated':
      return {
        field: name,
        type: 'uuid',
        schema: {},
        meta: {
          special: [name === 'user_created' ? 'user-created' : 'user-updated'],
          interface: 'select-dropdown-m2o',
          options: { template: '{{first_name}} {{last_name}}' },
          display: 'user',
          ...half,
        },
      };
    case 'date_created':
    case 'date_updated':
      return {
        field: name,
        type: 'timestamp',
        schema: {},
        meta: {
          special: [name === 'date_created' ? 'date-created' : 'date-updated'],
          interface: 'datetime',
          display: 'datetime',
          display_options: { relative: true },
          ...half,
        },
      };
  }
}

const collectionPath = (c: string) => `/collections/${encodeURIComponent(c)}`;
const fieldsPath = (c: string) => `/fields/${encodeURIComponent(c)}`;
const fieldPath = (c: string, f: string) => `${fieldsPath(c)}/${encodeURIComponent(f)}`;

function createCollectionStep(body: Partial<CollectionType> & { collection: string }): Step {
  const fields = (body.fields ?? []) as { field: string }[];
  return {
    method: 'POST',
    path: '/collections',
    body,
    message: body.schema === null ? 'svc.datamodel.step.create_folder' : 'svc.datamodel.step.create_collection',
    params: { collection: body.collection, fields: fields.map((f) => f.field).join(', ') },
    run: () => client.collections.createOne(body),
  };
}

function createFieldStep(collection: string, body: Field): Step {
  return {
    method: 'POST',
    path: fieldsPath(collection),
    body,
    message: 'svc.datamodel.step.create_field',
    params: { collection, field: body.field, type: body.type },
    run: () => client.fields.createOne(collection, body),
  };
}

function createRelationStep(body: Partial<RelationType> & { collection: string; field: string }): Step {
  return {
    method: 'POST',
    path: '/relations',
    body,
    message: 'svc.datamodel.step.create_relation',
    params: { collection: body.collection, field: body.field, related: body.related_collection ?? '*' },
    run: () => client.relations.createOne(body),
  };
}

const USERS = 'svc_users';

/** A new collection (or folder): one POST /collections, then the user fields' relations. */
export function planCollection(draft: CollectionDraft): Plan {
  const meta: Record<string, unknown> = {
    singleton: draft.singleton,
    versioning: draft.versioning,
    ...(draft.group === '' ? {} : { group: draft.group }),
    ...(draft.icon === '' ? {} : { icon: draft.icon }),
    ...(draft.note === '' ? {} : { note: draft.note }),
    ...(draft.displayTemplate === '' ? {} : { display_template: draft.displayTemplate }),
  };
  if (draft.isFolder) {
    const folderMeta = { ...meta, singleton: false, versioning: false };
    return { steps: [createCollectionStep({ collection: draft.collection, schema: null, meta: folderMeta })] };
  }
  const system = SYSTEM_FIELDS.filter((f) => draft.systemFields.includes(f));
  if (system.includes('status'))
    Object.assign(meta, { archive_field: 'status', archive_value: 'archived', unarchive_value: 'draft' });
  if (system.includes('sort')) meta['sort_field'] = 'sort';
  const fields = [primaryKeyField(draft.primaryKey, draft.primaryKeyType), ...system.map(systemField)].map(
    (f, i): Field => ({ ...f, meta: { ...f.meta, sort: i + 1 } }),
  );
  const steps = [createCollectionStep({ collection: draft.collection, schema: {}, meta, fields })];
  for (const f of system)
    if (f === 'user_created' || f === 'user_updated')
      steps.push(
        createRelationStep({
          collection: draft.collection,
          field: f,
          related_collection: USERS,
          schema: { on_delete: 'SET NULL' },
        }),
      );
  return { steps };
}

/** A collection made for a relation (the other side, a junction): integer key `id`, its fields. */
function helperCollection(collection: string, fields: readonly Field[], meta: Record<string, unknown> = {}): Step {
  return createCollectionStep({
    collection,
    schema: {},
    meta,
    fields: [primaryKeyField('id', 'integer'), ...fields],
  });
}

/** The field kinds of the field form: a column of a type, or a relation (file, image: to svc_files). */
export const RELATION_KINDS = ['m2o', 'file', 'image', 'o2m', 'm2m', 'm2a', 'translations'] as const;

/** Column types the API creates (geometry needs PostGIS; alias fields come with relations). */
export const COLUMN_TYPES = [
  'string',
  'text',
  'integer',
  'bigInteger',
  'float',
  'decimal',
  'boolean',
  'date',
  'time',
  'dateTime',
  'timestamp',
  'json',
  'csv',
  'uuid',
  'hash',
  'binary',
] as const;

/** Interfaces offered per type (Directus's names, which the item form reads). */
export const INTERFACES: Readonly<Record<string, readonly string[]>> = {
  string: ['input', 'select-dropdown', 'select-radio', 'input-autocomplete-api', 'color'],
  text: ['input-multiline', 'input-rich-text-html', 'input-rich-text-md', 'input-code'],
  integer: ['input', 'slider', 'select-dropdown'],
  bigInteger: ['input', 'select-dropdown'],
  float: ['input', 'slider'],
  decimal: ['input'],
  boolean: ['boolean'],
  date: ['datetime'],
  time: ['datetime'],
  dateTime: ['datetime'],
  timestamp: ['datetime'],
  json: ['input-code', 'list', 'tags', 'select-multiple-checkbox', 'select-multiple-dropdown'],
  csv: ['tags', 'select-multiple-checkbox', 'select-multiple-dropdown'],
  uuid: ['input'],
  hash: ['input-hash'],
  binary: ['input'],
  m2o: ['select-dropdown-m2o'],
  // An existing image field reads as `file` (its special): both interfaces, so it keeps its own.
  file: ['file', 'file-image'],
  image: ['file-image'],
  o2m: ['list-o2m'],
  m2m: ['list-m2m'],
  m2a: ['list-m2a'],
  translations: ['translations'],
};

export const DISPLAYS = ['raw', 'formatted-value', 'labels', 'datetime', 'boolean', 'related-values', 'rating'];

export const WIDTHS = ['full', 'half', 'half-left', 'half-right', 'fill'];

/** What the field form edits (a new field or an existing one). */
export interface FieldDraft {
  readonly field: string;
  /** A column type, or a relation kind. */
  readonly kind: string;
  readonly interface: string;
  readonly display: string;
  readonly choices: readonly { text: string; value: string }[];
  readonly validation: Readonly<Record<string, unknown>> | null;
  readonly conditions: readonly unknown[] | null;
  readonly defaultValue: string;
  readonly required: boolean;
  readonly readonly: boolean;
  readonly hidden: boolean;
  readonly width: string;
  readonly note: string;
  /** m2o, o2m, m2m: the other collection (made when it does not exist); m2a: the allowed ones. */
  readonly related: string;
  readonly allowed: readonly string[];
  /** o2m: the field of the related collection holding this item's key. */
  readonly relatedField: string;
  /** meta.sort of a new field (after the others). */
  readonly sort?: number;
}

/** A field's meta from the draft. */
function metaOf(draft: FieldDraft, special?: readonly string[]): Record<string, unknown> {
  const options: Record<string, unknown> = {};
  if (draft.choices.length > 0) options['choices'] = draft.choices.map((c) => ({ text: c.text, value: c.value }));
  return {
    interface: draft.interface === '' ? null : draft.interface,
    display: draft.display === '' ? null : draft.display,
    options: Object.keys(options).length === 0 ? null : options,
    validation: draft.validation,
    conditions: draft.conditions,
    required: draft.required,
    readonly: draft.readonly,
    hidden: draft.hidden,
    width: draft.width === '' ? 'full' : draft.width,
    note: draft.note === '' ? null : draft.note,
    ...(special === undefined ? {} : { special }),
    ...(draft.sort === undefined ? {} : { sort: draft.sort }),
  };
}

/** The default value as the column takes it: numbers and booleans typed, empty for none. */
function typedDefault(type: string, text: string): unknown {
  if (text === '') return null;
  if (['integer', 'bigInteger', 'float', 'decimal'].includes(type) && !Number.isNaN(Number(text))) return Number(text);
  if (type === 'boolean') return text === 'true';
  return text;
}

export interface SchemaView {
  /** The collections that exist, with their primary key's name and type. */
  readonly keys: ReadonlyMap<string, { readonly field: string; readonly type: string }>;
}

/** The type a foreign key to `collection` needs (its primary key's), integer for one made now. */
const keyTypeOf = (view: SchemaView, collection: string): string => view.keys.get(collection)?.type ?? 'integer';

/** A new field of `collection`: a column, or a relation with what it needs (fields, junction, /relations). */
export function planNewField(collection: string, draft: FieldDraft, view: SchemaView): Plan {
  const steps: Step[] = [];
  const kind = draft.kind;
  // A new other side: its key and a name, which also names its items elsewhere.
  const ensure = (name: string, fields: readonly Field[] = []) => {
    if (!view.keys.has(name)) steps.push(helperCollection(name, fields, { display_template: '{{name}}' }));
  };
  const fk = (field: string, type: string, meta: Record<string, unknown> = { hidden: true }): Field => ({
    field,
    type,
    schema: {},
    meta,
  });
  switch (kind) {
    case 'm2o':
    case 'file':
    case 'image': {
      // A file or an image is a many-to-one to svc_files (uuid keys), special `file` as Directus makes it.
      const isFile = kind !== 'm2o';
      const related = isFile ? FILES : draft.related;
      if (!isFile) ensure(related, [{ field: 'name', type: 'string', schema: {}, meta: { interface: 'input' } }]);
      const type = isFile ? 'uuid' : keyTypeOf(view, related);
      steps.push(createFieldStep(collection, fk(draft.field, type, metaOf(draft, [isFile ? 'file' : 'm2o']))));
      steps.push(
        createRelationStep({
          collection,
          field: draft.field,
          related_collection: related,
          schema: { on_delete: 'SET NULL' },
        }),
      );
      break;
    }
    case 'o2m': {
      const keyType = keyTypeOf(view, collection);
      if (view.keys.has(draft.related)) steps.push(createFieldStep(draft.related, fk(draft.relatedField, keyType)));
      else steps.push(helperCollection(draft.related, [fk(draft.relatedField, keyType)]));
      steps.push(createFieldStep(collection, { field: draft.field, type: 'alias', meta: metaOf(draft, ['o2m']) }));
      steps.push(
        createRelationStep({
          collection: draft.related,
          field: draft.relatedField,
          related_collection: collection,
          meta: { one_field: draft.field },
          schema: { on_delete: 'SET NULL' },
        }),
      );
      break;
    }
    case 'm2m':
    case 'translations': {
      const other = kind === 'translations' ? draft.related || 'languages' : draft.related;
      if (kind === 'translations' && !view.keys.has(other))
        steps.push(
          createCollectionStep({
            collection: other,
            schema: {},
            meta: { icon: 'translate' },
            fields: [
              primaryKeyField('code', 'string'),
              { field: 'name', type: 'string', schema: {}, meta: { interface: 'input' } },
            ],
          }),
        );
      else ensure(other, [{ field: 'name', type: 'string', schema: {}, meta: { interface: 'input' } }]);
      const junction = kind === 'translations' ? `${collection}_translations` : `${collection}_${other}`;
      const here = `${collection}_id`;
      const there = kind === 'translations' ? `${other}_${view.keys.get(other)?.field ?? 'code'}` : `${other}_id`;
      const otherKeyType = kind === 'translations' && !view.keys.has(other) ? 'string' : keyTypeOf(view, other);
      steps.push(
        helperCollection(junction, [fk(here, keyTypeOf(view, collection)), fk(there, otherKeyType)], { hidden: true }),
      );
      steps.push(
        createFieldStep(collection, {
          field: draft.field,
          type: 'alias',
          meta: metaOf(draft, [kind === 'm2m' ? 'm2m' : 'translations']),
        }),
      );
      steps.push(
        createRelationStep({
          collection: junction,
          field: here,
          related_collection: collection,
          meta: { one_field: draft.field, junction_field: there },
          schema: { on_delete: 'CASCADE' },
        }),
      );
      steps.push(
        createRelationStep({
          collection: junction,
          field: there,
          related_collection: other,
          meta: { one_field: null, junction_field: here },
          schema: { on_delete: 'SET NULL' },
        }),
      );
      break;
    }
    case 'm2a': {
      const junction = `${collection}_${draft.field}`;
      const here = `${collection}_id`;
      steps.push(
        helperCollection(
          junction,
          [fk(here, keyTypeOf(view, collection)), fk('item', 'string'), fk('collection', 'string')],
          { hidden: true },
        ),
      );
      steps.push(createFieldStep(collection, { field: draft.field, type: 'alias', meta: metaOf(draft, ['m2a']) }));
      steps.push(
        createRelationStep({
          collection: junction,
          field: 'item',
          related_collection: null,
          meta: {
            one_allowed_collections: [...draft.allowed],
            one_collection_field: 'collection',
            junction_field: here,
          },
        }),
      );
      steps.push(
        createRelationStep({
          collection: junction,
          field: here,
          related_collection: collection,
          meta: { one_field: draft.field, junction_field: 'item' },
          schema: { on_delete: 'CASCADE' },
        }),
      );
      break;
    }
    default: {
      const special = kind === 'uuid' ? [] : kind === 'csv' ? ['cast-csv'] : kind === 'json' ? ['cast-json'] : [];
      const defaultValue = typedDefault(kind, draft.defaultValue);
      steps.push(
        createFieldStep(collection, {
          field: draft.field,
          type: kind,
          schema: defaultValue === null ? {} : { default_value: defaultValue },
          meta: metaOf(draft, special.length === 0 ? undefined : special),
        }),
      );
    }
  }
  return { steps };
}

/** Changes to an existing field: its meta and default, and its type (lossy: confirmed first). */
export function planFieldUpdate(
  collection: string,
  previous: FieldType,
  draft: FieldDraft,
  loss: Loss | undefined,
): Plan {
  const isAlias = previous.type === 'alias';
  const typeChanged = !isAlias && COLUMN_TYPES.includes(draft.kind as never) && draft.kind !== previous.type;
  const type = typeChanged ? draft.kind : previous.type;
  const special = Array.isArray(previous.meta?.['special']) ? (previous.meta['special'] as string[]) : undefined;
  const body: Partial<FieldType> = {
    ...(typeChanged ? { type } : {}),
    meta: metaOf(draft, special),
    ...(isAlias ? {} : { schema: { default_value: typedDefault(type, draft.defaultValue) } }),
  };
  const allowDestructive = typeChanged && loss !== undefined;
  const step: Step = {
    method: 'PATCH',
    path: `${fieldPath(collection, previous.field)}${allowDestructive ? '?allow_destructive=true' : ''}`,
    body,
    message: typeChanged ? 'svc.datamodel.step.change_type' : 'svc.datamodel.step.update_field',
    params: { collection, field: previous.field, from: previous.type, type },
    run: () => client.fields.updateOne(collection, previous.field, body, { allowDestructive }),
  };
  return { steps: [step], ...(typeChanged && loss !== undefined ? { loss } : {}) };
}

/** Deleting a field (its column and values; a relation's alias drops the relation). */
export function planFieldDelete(collection: string, field: string, loss: Loss): Plan {
  return {
    steps: [
      {
        method: 'DELETE',
        path: fieldPath(collection, field),
        message: 'svc.datamodel.step.delete_field',
        params: { collection, field },
        run: () => client.fields.deleteOne(collection, field),
      },
    ],
    loss,
  };
}

export function planCollectionDelete(collection: string, loss: Loss): Plan {
  return {
    steps: [
      {
        method: 'DELETE',
        path: collectionPath(collection),
        message: 'svc.datamodel.step.delete_collection',
        params: { collection },
        run: () => client.collections.deleteOne(collection),
      },
    ],
    loss,
  };
}

/** The fields' order as meta.sort 1..n, in one PATCH /fields/<collection>. */
export function planFieldOrder(collection: string, order: readonly string[]): Plan {
  const body = order.map((field, i) => ({ field, meta: { sort: i + 1 } }));
  return {
    steps: [
      {
        method: 'PATCH',
        path: fieldsPath(collection),
        body,
        message: 'svc.datamodel.step.reorder',
        params: { collection, fields: order.join(', ') },
        run: () => client.fields.updateMany(collection, body),
      },
    ],
  };
}

/** A collection's settings (meta only). */
export function planCollectionUpdate(collection: string, meta: Record<string, unknown>): Plan {
  return {
    steps: [
      {
        method: 'PATCH',
        path: collectionPath(collection),
        body: { meta },
        message: 'svc.datamodel.step.update_collection',
        params: { collection },
        run: () => client.collections.updateOne(collection, { meta }),
      },
    ],
  };
}

/** How many values `collection.field` holds (null: none counted, e.g. an alias). */
export async function countValues(collection: string, field: string | undefined): Promise<number> {
  const answer = await client.items(collection).readByQuery({
    limit: 0,
    meta: 'filter_count',
    ...(field === undefined ? {} : { filter: { [field]: { _nnull: true } } }),
  });
  return Number(answer.meta?.filter_count ?? 0);
}
