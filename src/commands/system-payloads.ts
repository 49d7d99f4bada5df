import type { Knex } from 'knex';
import type { CollectionOverview } from '../../catalog/overview/types.js';
import { isFilterOperator, operatorSpec } from '../../catalog/overview/filter-operators.js';
import { PERMISSION_ACTIONS } from '../access/permission-rules.js';
import { FULL_READ_ACCESS } from '../access/read-access.js';
import { isAddressOrRange } from '../config/trusted-proxies.js';
import { FailedValidationError, ForbiddenError, InvalidQueryError } from '../errors.js';
import { buildCondition } from '../query/ast/build-condition.js';
import type { Filter } from '../query/index.js';
import type { CommentTargetContext } from './comment-target.js';
import type { Item, PrimaryKey } from './types.js';

/*
 * What svc_permissions, svc_presets and svc_roles items must hold to be usable, checked when
 * they are written (collection-rules.ts) rather than found out by every later request: JSON
 * objects where the service reads objects, filters that parse against their collection
 * exactly as a read's `filter` does (query/ast/build-condition.ts), collections and fields
 * that exist, known actions, IP addresses and ranges. A failure is FAILED_VALIDATION naming
 * the field (docs/errors.md).
 */

export const PERMISSIONS_COLLECTION = 'svc_permissions';
export const PRESETS_COLLECTION = 'svc_presets';
export const ROLES_COLLECTION = 'svc_roles';

/**
 * A svc_permissions payload: `action` one of PERMISSION_ACTIONS, `collection` an existing
 * one, `permissions` and `validation` filters of that collection (or null), `presets` an
 * object (or null), `fields` `*` or names of its fields. An update that moves the row to
 * another collection has its stored filters and fields checked against the new one.
 */
export async function checkPermissionPayload(
  trx: Knex.Transaction,
  ctx: CommentTargetContext,
  system: CollectionOverview,
  data: Item,
  key: PrimaryKey | undefined,
): Promise<void> {
  const watched = ['action', 'collection', 'permissions', 'validation', 'presets', 'fields'];
  if (!watched.some((name) => name in data)) return;
  if ('action' in data && !(PERMISSION_ACTIONS as readonly unknown[]).includes(data['action'])) {
    throw invalid('action', 'in', `Value has to be one of ${PERMISSION_ACTIONS.join(', ')}.`, {
      valid: PERMISSION_ACTIONS,
    });
  }
  const stored = await storedRow(trx, system, key, ['collection', 'permissions', 'validation', 'fields']);
  const row = { ...stored, ...data };
  // Moved to another collection: what was written for the old one must fit the new one.
  const recheck = (name: string) => name in data || 'collection' in data;
  const target = requireTargetCollection(
    ctx,
    row['collection'],
    'collection',
    key === undefined || recheck('collection'),
  );
  if ('presets' in data) requireObjectOrNull('presets', data['presets']);
  for (const name of ['permissions', 'validation'] as const) {
    if (!recheck(name)) continue;
    const filter = name in data ? data[name] : parseStoredJson(row[name]);
    if (target !== undefined) checkFilter(ctx, target, name, filter, { validation: name === 'validation' });
  }
  if (target !== undefined && recheck('fields')) checkFieldNames(target, 'fields', row['fields']);
}

/**
 * A svc_presets payload: `collection` an existing one (or null), `filter` a filter of it,
 * `layout_query` and `layout_options` objects (or null).
 */
export async function checkPresetPayload(
  trx: Knex.Transaction,
  ctx: CommentTargetContext,
  system: CollectionOverview,
  data: Item,
  key: PrimaryKey | undefined,
): Promise<void> {
  for (const name of ['layout_query', 'layout_options']) if (name in data) requireObjectOrNull(name, data[name]);
  if (!('collection' in data) && !('filter' in data)) return;
  const stored = await storedRow(trx, system, key, ['collection', 'filter']);
  const row = { ...stored, ...data };
  const target =
    row['collection'] === null || row['collection'] === undefined
      ? undefined
      : requireTargetCollection(ctx, row['collection'], 'collection', 'collection' in data);
  const filter = 'filter' in data ? data['filter'] : parseStoredJson(row['filter']);
  requireObjectOrNull('filter', filter);
  if (target !== undefined) checkFilter(ctx, target, 'filter', filter, { validation: false });
}

/** A svc_roles payload: `ip_access` a list (or comma text) of IP addresses and CIDR ranges. */
export function checkRolePayload(data: Item): void {
  if (!('ip_access' in data)) return;
  const value = data['ip_access'];
  if (value === null) return;
  const entries = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : undefined;
  if (entries === undefined) throw invalid('ip_access', 'type', 'Value has to be a list of IP addresses.');
  for (const entry of entries) {
    const text = typeof entry === 'string' ? entry.trim() : undefined;
    if (text === '') continue;
    if (text === undefined || !isAddressOrRange(text)) {
      throw invalid('ip_access', 'ip', `"${String(entry)}" is not an IP address or CIDR range.`);
    }
  }
}

/** The columns of the item updated (none for a create), to check a partial payload against. */
async function storedRow(
  trx: Knex.Transaction,
  system: CollectionOverview,
  key: PrimaryKey | undefined,
  columns: readonly string[],
): Promise<Record<string, unknown>> {
  if (key === undefined) return {};
  const row = await trx(system.collection)
    .where(system.primary, key)
    .first<Record<string, unknown> | undefined>([...columns]);
  return row ?? {};
}

/** JSON columns come back as text on SQLite and MariaDB. Unreadable text: null (left alone). */
function parseStoredJson(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return null;
  }
}

function requireTargetCollection(
  ctx: CommentTargetContext,
  name: unknown,
  field: string,
  check: boolean,
): CollectionOverview | undefined {
  const collection =
    typeof name === 'string' && Object.hasOwn(ctx.overview.collections, name)
      ? ctx.overview.collections[name]
      : undefined;
  if (collection === undefined && check) {
    throw invalid(field, 'collection', `Collection "${String(name)}" doesn't exist.`);
  }
  return collection;
}

function requireObjectOrNull(field: string, value: unknown): void {
  if (value === null || value === undefined) return;
  if (typeof value !== 'object' || Array.isArray(value)) throw invalid(field, 'type', 'Value has to be an object.');
}

/**
 * `filter` read against `target` by the read side's own check (build-condition.ts): unknown
 * fields, operators the field type lacks, values of the wrong type and malformed dynamic
 * variables are refused with the read's reason. A validation filter may also use the
 * validation-only operators (`_regex`, `_submitted`), which no read accepts.
 */
function checkFilter(
  ctx: CommentTargetContext,
  target: CollectionOverview,
  field: string,
  filter: unknown,
  options: { readonly validation: boolean },
): void {
  requireObjectOrNull(field, filter);
  if (filter === null || filter === undefined) return;
  const readable = options.validation ? withoutValidationOperators(field, filter) : filter;
  try {
    buildCondition(
      {
        overview: ctx.overview,
        access: FULL_READ_ACCESS,
        accountability: { user: ctx.accountability.user, role: ctx.accountability.role, admin: true },
        limits: ctx.readLimits,
        now: new Date(),
      },
      target.collection,
      readable as Filter,
    );
  } catch (error) {
    if (!(error instanceof InvalidQueryError || error instanceof ForbiddenError)) throw error;
    const reason = error instanceof InvalidQueryError ? error.extensions.reason : 'Forbidden';
    throw invalid(field, 'filter', `${reason}.`);
  }
}

/** The filter without `_regex` and `_submitted` rules, each checked for a usable value. */
function withoutValidationOperators(field: string, filter: unknown): unknown {
  if (Array.isArray(filter)) return filter.map((item) => withoutValidationOperators(field, item));
  if (typeof filter !== 'object' || filter === null) return filter;
  const kept: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(filter as Record<string, unknown>)) {
    if (isFilterOperator(key) && ['pattern', 'presence'].includes(operatorSpec(key).shape)) {
      if (key === '_regex' && typeof value !== 'string') {
        throw invalid(field, 'filter', '"_regex" has to be a regular expression.');
      }
      continue;
    }
    kept[key] = withoutValidationOperators(field, value);
  }
  // A field whose rules were all validation-only: `_nnull: false` keeps its name checked.
  return Object.keys(kept).length === 0 && Object.keys(filter).length > 0 ? { _nnull: false } : kept;
}

/** `*` or names of `target`'s fields, as a list or comma text; null or empty: none. */
function checkFieldNames(target: CollectionOverview, field: string, value: unknown): void {
  if (value === null || value === undefined) return;
  const names = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : undefined;
  if (names === undefined) throw invalid(field, 'type', 'Value has to be a list of field names.');
  for (const name of names) {
    const text = typeof name === 'string' ? name.trim() : undefined;
    if (text === '' || text === '*') continue;
    if (text === undefined || !Object.hasOwn(target.fields, text)) {
      throw invalid(field, 'field', `Field "${String(name)}" doesn't exist in collection "${target.collection}".`);
    }
  }
}

function invalid(
  field: string,
  type: string,
  detail: string,
  extra: { readonly valid?: unknown } = {},
): FailedValidationError {
  return new FailedValidationError({ field, type, ...extra }, `Validation failed for field "${field}". ${detail}`);
}
