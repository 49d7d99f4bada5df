import { getFieldRelation } from '../../catalog/overview/lookup.js';
import type { CollectionOverview, FieldOverview, SchemaOverview } from '../../catalog/overview/types.js';
import { fitsFloat32, isCalendarMoment, isTimeOfDay, UUID_TEXT } from '../../catalog/overview/value-forms.js';
import { validateFilter, type FilterVariables } from '../access/validate-filter.js';
import {
  FailedValidationError,
  InvalidPayloadError,
  ServiceErrorList,
  ValueOutOfRangeError,
  ValueTooLongError,
  type ServiceError,
} from '../errors.js';
import type { Item } from './types.js';
import { integerRange, isIntegerInRange } from '../query/validate/numbers.js';

export interface PayloadCheck {
  readonly action: 'create' | 'update';
  readonly variables: FilterVariables;
}

/**
 * Checks one item payload against its collection before anything is written:
 * unknown fields → INVALID_PAYLOAD; per field, wrong basic type →
 * FAILED_VALIDATION `type` ([DEVIATION]), null into a non-nullable or required field →
 * `nnull`, longer than the column → VALUE_TOO_LONG, outside the numeric type →
 * VALUE_OUT_OF_RANGE, then the field's `meta.validation` filter; on create, a required field
 * (meta.required, or non-nullable without default and not filled by the database) that is
 * missing → `required`. All failures are reported together.
 *
 * Relational values that nest an item (an object on a many-to-one, arrays on aliases) are
 * left to the nested write, which validates them against their own collection.
 */
export function validatePayload(
  overview: SchemaOverview,
  collection: CollectionOverview,
  payload: Item,
  check: PayloadCheck,
): void {
  const errors: ServiceError[] = [];
  for (const name of Object.keys(payload)) {
    const field = collection.fields[name];
    if (field === undefined) {
      throw new InvalidPayloadError(`Field "${name}" doesn't exist in collection "${collection.collection}"`);
    }
    const value = payload[name];
    if (field.isAlias || value === undefined) continue;
    if (isObject(value) && getFieldRelation(overview, collection.collection, name) !== undefined) continue;
    validateValue(errors, collection, field, value, check);
  }
  if (check.action === 'create') {
    for (const field of requiredOnCreate(collection)) {
      if (payload[field.field] === undefined) errors.push(failure(field, 'required', ' Value is required.'));
    }
  }
  const [only] = errors;
  if (errors.length === 1 && only !== undefined) throw only;
  if (errors.length > 1) throw new ServiceErrorList(errors);
}

/** Each collection's fields required on create, found once per schema (an import checks every row). */
const REQUIRED_ON_CREATE = new WeakMap<CollectionOverview, readonly FieldOverview[]>();

function requiredOnCreate(collection: CollectionOverview): readonly FieldOverview[] {
  let fields = REQUIRED_ON_CREATE.get(collection);
  if (fields === undefined) {
    fields = Object.values(collection.fields).filter(isRequiredOnCreate);
    REQUIRED_ON_CREATE.set(collection, fields);
  }
  return fields;
}

/** Fields the caller must give on create: the database would refuse or the schema says so. */
function isRequiredOnCreate(field: FieldOverview): boolean {
  if (field.isAlias) return false;
  if (field.required) return true;
  return !field.nullable && field.defaultValue === null && !field.isGenerated;
}

/** Adds to `errors` what is wrong with `value` for `field` (nothing is allocated for a good one). */
function validateValue(
  errors: ServiceError[],
  collection: CollectionOverview,
  field: FieldOverview,
  value: unknown,
  check: PayloadCheck,
): void {
  if (value === null) {
    // An auto-increment key given as null is left to the database.
    if (field.isPrimaryKey && field.isGenerated) return;
    if (!field.nullable || field.required) errors.push(failure(field, 'nnull', " Value can't be null."));
    return;
  }
  if (!hasValidType(field, value)) {
    errors.push(failure(field, 'type'));
    return;
  }
  if (field.required && value === '') {
    errors.push(failure(field, 'nempty', " Value can't be empty."));
    return;
  }
  if (isTooLong(field, value)) {
    errors.push(new ValueTooLongError({ collection: collection.collection, field: field.field }));
    return;
  }
  if (!isInRange(field, value)) {
    errors.push(new ValueOutOfRangeError({ collection: collection.collection, field: field.field }));
    return;
  }
  if (field.validation === null) return;
  const failures = validateFilter(field.validation, { [field.field]: value }, check.variables);
  const message = field.validationMessage;
  for (const failed of failures) {
    errors.push(message === null ? failed : new FailedValidationError(failed.extensions, message));
  }
}

function failure(field: FieldOverview, type: string, suffix = ''): FailedValidationError {
  const message = field.validationMessage ?? `Validation failed for field "${field.field}".${suffix}`;
  return new FailedValidationError({ field: field.field, type }, message);
}

const INTEGER_TEXT = /^-?\d+$/;
const NUMBER_TEXT = /^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;
/** A date, and for a date-time its time of day: year, month, day, hours, minutes, seconds. */
const DATE_TEXT = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?)?/;
const TIME_TEXT = /^(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?$/;

/** The basic type check (stricter than Directus 10): values the column cannot hold. */
function hasValidType(field: FieldOverview, value: unknown): boolean {
  switch (field.type) {
    case 'string':
    case 'text':
      return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
    case 'hash':
      return typeof value === 'string';
    case 'integer':
    case 'bigInteger':
      return (
        (typeof value === 'number' && Number.isInteger(value)) ||
        (typeof value === 'string' && INTEGER_TEXT.test(value.trim()))
      );
    case 'float':
    case 'decimal':
      return (
        (typeof value === 'number' && Number.isFinite(value)) ||
        (typeof value === 'string' && NUMBER_TEXT.test(value.trim()))
      );
    case 'boolean':
      return (
        typeof value === 'boolean' || value === 0 || value === 1 || ['true', 'false', '1', '0'].includes(String(value))
      );
    case 'uuid':
      return typeof value === 'string' && UUID_TEXT.test(value);
    case 'date':
    case 'dateTime':
    case 'timestamp':
      return typeof value === 'string' && isCalendarMoment(DATE_TEXT.exec(value)) && !Number.isNaN(Date.parse(value));
    case 'time': {
      const time = typeof value === 'string' ? TIME_TEXT.exec(value) : null;
      return time !== null && isTimeOfDay(time[1], time[2], time[3]);
    }
    case 'csv':
      return (
        typeof value === 'string' ||
        (Array.isArray(value) && value.every((v) => typeof v === 'string' || typeof v === 'number'))
      );
    case 'json':
    case 'binary':
    case 'geometry':
    case 'unknown':
    case 'alias':
      return true;
  }
}

function isTooLong(field: FieldOverview, value: unknown): boolean {
  if (field.maxLength === null || field.type === 'hash') return false;
  if (field.type !== 'string' && field.type !== 'text' && field.type !== 'csv') return false;
  const text = Array.isArray(value) ? value.join(',') : String(value);
  // Characters are counted only when the UTF-16 length could exceed the limit: never fewer.
  return text.length > field.maxLength && Array.from(text).length > field.maxLength;
}

/** Column types of 4-byte floats (a `float` field is one on every dialect, introspected `double`s are not). */
const SINGLE_PRECISION = /^(real|float4?)\b/i;

function isInRange(field: FieldOverview, value: unknown): boolean {
  switch (field.type) {
    case 'integer':
    case 'bigInteger': {
      return isIntegerInRange(value, integerRange(field));
    }
    case 'decimal': {
      if (field.precision === null) return true;
      const digits = field.precision - (field.scale ?? 0);
      const rounded = Math.abs(Number(Number(value).toFixed(field.scale ?? 0)));
      return rounded < 10 ** digits;
    }
    case 'float': {
      const n = Number(value);
      if (!Number.isFinite(n)) return false;
      // SQLite's float holds a double but refuses what a 4-byte one cannot hold, so all agree.
      return !SINGLE_PRECISION.test(field.dbType ?? '') || fitsFloat32(n);
    }
    default:
      return true;
  }
}

function isObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null;
}
