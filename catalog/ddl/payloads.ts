import { InvalidPayloadError } from '../../src/errors.js';
import { FIELD_TYPES, type FieldType } from '../overview/types.js';
import { toServiceCollectionName } from '../system/definitions.js';
import { assertColumnSize } from './column-sizes.js';
import { assertDefaultFits } from './default-values.js';
import { assertCollectionName, assertFieldName, sameNameIgnoringCase } from './names.js';
import { isPlainObject } from '../../src/is-plain-object.js';

/**
 * The bodies of the schema routes, checked and turned
 * into typed specs. Every refusal is INVALID_PAYLOAD naming the offending key or value.
 */

/** The column part of a field (the API's `schema` object), in camelCase; absent keys are unchanged. */
export interface ColumnSpec {
  readonly defaultValue?: unknown;
  readonly isNullable?: boolean;
  readonly isUnique?: boolean;
  readonly isIndexed?: boolean;
  readonly isPrimaryKey?: boolean;
  readonly hasAutoIncrement?: boolean;
  readonly maxLength?: number | null;
  readonly numericPrecision?: number | null;
  readonly numericScale?: number | null;
  readonly comment?: string | null;
}

export interface FieldSpec {
  readonly field: string;
  readonly type: FieldType;
  /** The API meta object; undefined when not given. */
  readonly meta: Readonly<Record<string, unknown>> | undefined;
  /** Null for alias fields (no column). */
  readonly schema: ColumnSpec | null;
}

export interface FieldPatch {
  readonly type?: FieldType;
  readonly meta?: Readonly<Record<string, unknown>> | null;
  readonly schema?: ColumnSpec;
}

export interface CollectionSpec {
  readonly collection: string;
  readonly meta: Readonly<Record<string, unknown>> | undefined;
  /** `schema: null` or no `schema`: a folder that only groups collections, no table. */
  readonly isFolder: boolean;
  readonly fields: readonly FieldSpec[];
}

export interface RelationSpec {
  readonly collection: string;
  readonly field: string;
  readonly relatedCollection: string | null;
  readonly meta: Readonly<Record<string, unknown>> | undefined;
  readonly onDelete: ReferentialAction | undefined;
}

export interface RelationPatch {
  readonly meta?: Readonly<Record<string, unknown>> | null;
  readonly onDelete?: ReferentialAction;
}

/** Types a column can be created with; geometry needs PostGIS, unknown and alias are not columns. */
export const CREATABLE_TYPES: readonly FieldType[] = FIELD_TYPES.filter((t) => t !== 'geometry' && t !== 'unknown');

export const REFERENTIAL_ACTIONS = ['NO ACTION', 'RESTRICT', 'CASCADE', 'SET NULL', 'SET DEFAULT'] as const;
export type ReferentialAction = (typeof REFERENTIAL_ACTIONS)[number];

type Body = Readonly<Record<string, unknown>>;

export function parseCollectionPayload(body: unknown): CollectionSpec {
  const object = requireObject(body, 'collection');
  const collection =
    typeof object['collection'] === 'string' ? toServiceCollectionName(object['collection']) : object['collection'];
  assertCollectionName(collection);
  const schema = object['schema'];
  if (schema !== undefined && schema !== null && !isPlainObject(schema)) {
    throw new InvalidPayloadError('"schema" must be an object or null');
  }
  const rawFields = object['fields'] ?? [];
  if (!Array.isArray(rawFields)) throw new InvalidPayloadError('"fields" must be an array');
  const fields = rawFields.map((f: unknown) => parseFieldPayload(f, collection));
  const seen: string[] = [];
  for (const f of fields) {
    // Names are unique ignoring case (names.ts sameNameIgnoringCase).
    const twice = sameNameIgnoringCase(f.field, seen);
    if (twice !== undefined) {
      throw new InvalidPayloadError(
        `Field "${f.field}" is given twice for collection "${collection}"${twice === f.field ? '' : ` (as "${twice}")`}`,
      );
    }
    seen.push(f.field);
  }
  const isFolder = schema === undefined || schema === null;
  // Fields without a table would be dropped in silence (Directus 10 does): the caller meant a table.
  if (isFolder && fields.length > 0) {
    throw new InvalidPayloadError(
      `"fields" need a table: add "schema": {} (without "schema", "${collection}" would be a folder, which has no fields)`,
    );
  }
  return { collection, meta: optionalMeta(object), isFolder, fields };
}

export function parseFieldPayload(body: unknown, collection: string): FieldSpec {
  const object = requireObject(body, 'field');
  const field = object['field'];
  assertFieldName(field, collection);
  const type = parseType(object['type'], field, true);
  if (type === undefined) throw new InvalidPayloadError(`"type" is required for field "${field}"`);
  const schema = object['schema'];
  if (schema !== undefined && schema !== null && !isPlainObject(schema)) {
    throw new InvalidPayloadError(`"schema" of field "${field}" must be an object or null`);
  }
  const columnSpec = type === 'alias' ? null : parseColumnSpec(isPlainObject(schema) ? schema : {}, field);
  if (columnSpec !== null) {
    assertColumnSize(collection, field, type, {
      maxLength: columnSpec.maxLength,
      precision: columnSpec.numericPrecision,
      scale: columnSpec.numericScale,
    });
  }
  assertDefaultFits(collection, field, type, columnSpec?.defaultValue, {
    precision: columnSpec?.numericPrecision,
    scale: columnSpec?.numericScale,
  });
  return { field, type, meta: optionalMeta(object), schema: columnSpec };
}

export function parseFieldPatch(body: unknown, field: string): FieldPatch {
  const object = requireObject(body, 'field');
  const type = parseType(object['type'], field, false);
  const schema = object['schema'];
  if (schema !== undefined && schema !== null && !isPlainObject(schema)) {
    throw new InvalidPayloadError(`"schema" of field "${field}" must be an object`);
  }
  const meta = object['meta'];
  if (meta !== undefined && meta !== null && !isPlainObject(meta)) {
    throw new InvalidPayloadError(`"meta" of field "${field}" must be an object`);
  }
  return {
    ...(type === undefined ? {} : { type }),
    ...(meta === undefined ? {} : { meta: meta }),
    ...(isPlainObject(schema) ? { schema: parseColumnSpec(schema, field) } : {}),
  };
}

export function parseRelationPayload(body: unknown): RelationSpec {
  const object = requireObject(body, 'relation');
  const collection = object['collection'];
  const field = object['field'];
  const related = object['related_collection'] ?? null;
  if (typeof collection !== 'string' || collection === '') throw new InvalidPayloadError('"collection" is required');
  if (typeof field !== 'string' || field === '') throw new InvalidPayloadError('"field" is required');
  if (related !== null && typeof related !== 'string') {
    throw new InvalidPayloadError('"related_collection" must be a string or null');
  }
  return {
    collection: toServiceCollectionName(collection),
    field,
    relatedCollection: related === null ? null : toServiceCollectionName(related),
    meta: optionalMeta(object),
    onDelete: parseOnDelete(object['schema']),
  };
}

export function parseRelationPatch(body: unknown): RelationPatch {
  const object = requireObject(body, 'relation');
  const meta = object['meta'];
  if (meta !== undefined && meta !== null && !isPlainObject(meta))
    throw new InvalidPayloadError('"meta" must be an object');
  const onDelete = parseOnDelete(object['schema']);
  return {
    ...(meta === undefined ? {} : { meta: meta }),
    ...(onDelete === undefined ? {} : { onDelete }),
  };
}

function parseOnDelete(schema: unknown): ReferentialAction | undefined {
  if (schema === undefined || schema === null) return undefined;
  if (!isPlainObject(schema)) throw new InvalidPayloadError('"schema" must be an object or null');
  const value = schema['on_delete'];
  if (value === undefined || value === null) return undefined;
  const upper = typeof value === 'string' ? value.toUpperCase() : value;
  if (!REFERENTIAL_ACTIONS.includes(upper as ReferentialAction)) {
    throw new InvalidPayloadError(`"schema.on_delete" must be one of [${REFERENTIAL_ACTIONS.join(', ')}]`);
  }
  return upper as ReferentialAction;
}

/**
 * A field's type: one a column can be created with, or on PATCH any type (a field of type
 * unknown or geometry sent back as GET showed it; changing to such a type is refused later).
 */
function parseType(value: unknown, field: string, isCreate: boolean): FieldType | undefined {
  if (value === undefined || value === null) return undefined;
  const allowed: readonly string[] = isCreate ? CREATABLE_TYPES : FIELD_TYPES;
  if (typeof value !== 'string' || !allowed.includes(value)) {
    const shown = typeof value === 'string' ? value : JSON.stringify(value);
    throw new InvalidPayloadError(
      `Field "${field}" has an unknown type "${shown}"${isCreate ? `; use one of [${CREATABLE_TYPES.join(', ')}]` : ''}`,
    );
  }
  return value as FieldType;
}

const COLUMN_KEYS: Readonly<Record<string, keyof ColumnSpec>> = {
  default_value: 'defaultValue',
  is_nullable: 'isNullable',
  is_unique: 'isUnique',
  is_indexed: 'isIndexed',
  is_primary_key: 'isPrimaryKey',
  has_auto_increment: 'hasAutoIncrement',
  max_length: 'maxLength',
  numeric_precision: 'numericPrecision',
  numeric_scale: 'numericScale',
  comment: 'comment',
};

const BOOLEAN_KEYS = new Set(['is_nullable', 'is_unique', 'is_indexed', 'is_primary_key', 'has_auto_increment']);
const NUMBER_KEYS = new Set(['max_length', 'numeric_precision', 'numeric_scale']);

/** The API schema object → ColumnSpec; keys the service derives itself (name, table, ...) are ignored. */
function parseColumnSpec(schema: Body, field: string): ColumnSpec {
  const spec: Record<string, unknown> = {};
  for (const [key, target] of Object.entries(COLUMN_KEYS)) {
    if (!(key in schema)) continue;
    const value = schema[key];
    if (BOOLEAN_KEYS.has(key) && value !== null && typeof value !== 'boolean') {
      throw new InvalidPayloadError(`"schema.${key}" of field "${field}" must be a boolean`);
    }
    // A scale of 0 is a scale (decimal(10, 0), and what integer columns report).
    const least = key === 'numeric_scale' ? 0 : 1;
    if (NUMBER_KEYS.has(key) && value !== null && !(Number.isInteger(value) && (value as number) >= least)) {
      throw new InvalidPayloadError(
        `"schema.${key}" of field "${field}" must be ${least === 0 ? 'a non-negative' : 'a positive'} integer`,
      );
    }
    if (key === 'comment' && value !== null && typeof value !== 'string') {
      throw new InvalidPayloadError(`"schema.comment" of field "${field}" must be a string`);
    }
    if (value === null && BOOLEAN_KEYS.has(key)) continue;
    spec[target] = value;
  }
  return spec;
}

function optionalMeta(object: Body): Body | undefined {
  const meta = object['meta'];
  if (meta === undefined || meta === null) return undefined;
  if (!isPlainObject(meta)) throw new InvalidPayloadError('"meta" must be an object');
  return meta;
}

function requireObject(body: unknown, what: string): Body {
  if (!isPlainObject(body)) throw new InvalidPayloadError(`The ${what} must be given as a JSON object`);
  return body;
}
