/**
 * The svc_collections, svc_fields and svc_relations rows as the API shows them: JSON
 * columns parsed (SQLite and MariaDB hand back text), booleans as booleans (0/1 elsewhere
 * than PostgreSQL), CSV columns as arrays. And back, for writing.
 */
type Row = Readonly<Record<string, unknown>>;

interface RowCodec {
  readonly columns: readonly string[];
  readonly json: readonly string[];
  readonly boolean: readonly string[];
  readonly csv: readonly string[];
}

export const COLLECTION_ROW: RowCodec = {
  columns: [
    'collection',
    'icon',
    'note',
    'display_template',
    'hidden',
    'singleton',
    'translations',
    'archive_field',
    'archive_app_filter',
    'archive_value',
    'unarchive_value',
    'sort_field',
    'accountability',
    'color',
    'item_duplication_fields',
    'sort',
    'group',
    'collapse',
    'preview_url',
    'versioning',
  ],
  json: ['translations', 'item_duplication_fields'],
  boolean: ['hidden', 'singleton', 'archive_app_filter', 'versioning'],
  csv: [],
};

export const FIELD_ROW: RowCodec = {
  columns: [
    'id',
    'collection',
    'field',
    'special',
    'interface',
    'options',
    'display',
    'display_options',
    'readonly',
    'hidden',
    'sort',
    'width',
    'translations',
    'note',
    'conditions',
    'required',
    'group',
    'validation',
    'validation_message',
  ],
  json: ['options', 'display_options', 'translations', 'conditions', 'validation'],
  boolean: ['readonly', 'hidden', 'required'],
  csv: ['special'],
};

export const RELATION_ROW: RowCodec = {
  columns: [
    'id',
    'many_collection',
    'many_field',
    'one_collection',
    'one_field',
    'one_collection_field',
    'one_allowed_collections',
    'junction_field',
    'sort_field',
    'one_deselect_action',
  ],
  json: [],
  boolean: [],
  csv: ['one_allowed_collections'],
};

/** What a new svc_collections row holds when the caller gives nothing (migration defaults). */
export const COLLECTION_ROW_DEFAULTS: Row = {
  icon: null,
  note: null,
  display_template: null,
  hidden: false,
  singleton: false,
  translations: null,
  archive_field: null,
  archive_app_filter: true,
  archive_value: null,
  unarchive_value: null,
  sort_field: null,
  accountability: 'all',
  color: null,
  item_duplication_fields: null,
  sort: null,
  group: null,
  collapse: 'open',
  preview_url: null,
  versioning: false,
};

/** What a new svc_fields row holds when the caller gives nothing (migration defaults). */
export const FIELD_ROW_DEFAULTS: Row = {
  special: null,
  interface: null,
  options: null,
  display: null,
  display_options: null,
  readonly: false,
  hidden: false,
  sort: null,
  width: 'full',
  translations: null,
  note: null,
  conditions: null,
  required: false,
  group: null,
  validation: null,
  validation_message: null,
};

/** A stored row → the API's meta object (unknown columns dropped). */
export function decodeRow(codec: RowCodec, row: Row): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const column of codec.columns) {
    const value = row[column] ?? null;
    if (codec.json.includes(column)) out[column] = parseJson(value);
    else if (codec.boolean.includes(column)) out[column] = value === null ? null : toBoolean(value);
    else if (codec.csv.includes(column)) out[column] = parseCsv(value);
    else out[column] = value;
  }
  return out;
}

/** An API meta object (possibly partial) → column values to store; unknown keys dropped. */
export function encodeRow(codec: RowCodec, meta: Row): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const column of codec.columns) {
    if (!(column in meta)) continue;
    const value = meta[column] ?? null;
    if (codec.json.includes(column)) out[column] = value === null ? null : JSON.stringify(value);
    else if (codec.csv.includes(column)) out[column] = Array.isArray(value) ? value.join(',') || null : value;
    else out[column] = value;
  }
  return out;
}

export function parseCsv(value: unknown): string[] | null {
  if (value === null || value === undefined) return null;
  if (Array.isArray(value)) return value.map(String);
  // Columns hold text; anything else (a number from a driver) is read as its JSON text.
  const text = (typeof value === 'string' ? value : JSON.stringify(value)).trim();
  if (text === '') return null;
  // Rows written by other tools may hold a JSON array or Postgres' {a,b} form.
  if (text.startsWith('[')) {
    const parsed = parseJson(text);
    if (Array.isArray(parsed)) return parsed.map(String);
  }
  return text
    .replace(/^\{(.*)\}$/s, '$1')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

function parseJson(value: unknown): unknown {
  if (typeof value !== 'string') return value ?? null;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}

function toBoolean(value: unknown): boolean {
  if (typeof value === 'string') return value === '1' || value.toLowerCase() === 'true' || value === 't';
  return Boolean(value);
}
