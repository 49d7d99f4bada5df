import type { CollectionOverview, FieldType } from '../../../catalog/overview/types.js';
import { requireCollection } from '../../../catalog/overview/lookup.js';
import { FULL_READ_ACCESS, canReadCollection } from '../../access/read-access.js';
import { ForbiddenError, InvalidQueryError } from '../../errors.js';
import { isPlainObject } from '../parse/parse-values.js';
import type { Filter } from '../query.js';
import {
  booleanValue,
  checkOperator,
  coerceLiteral,
  isBooleanOperator,
  isListOperator,
  listValue,
  scalarValue,
} from '../validate/filter-values.js';
import type { FilterOperator } from '../validate/filter-operators.js';
import type { BuildContext } from './build-context.js';
import { isDynamicValue, resolveDynamicValue } from './dynamic-values.js';
import {
  DATE_FUNCTIONS,
  type Condition,
  type DateFunction,
  type Operand,
  type RelationRef,
  type Value,
} from './nodes.js';
import {
  a2oRef,
  isMasked,
  parseFunctionKey,
  refOf,
  requireField,
  resolveRelation,
  type ResolvedRelation,
} from './resolve.js';

/** AND of the given conditions, skipping absent ones; null when none is left. */
export function andConditions(...items: readonly (Condition | null)[]): Condition | null {
  const present = items.filter((c): c is Condition => c !== null);
  if (present.length === 0) return null;
  if (present.length === 1) return present[0] ?? null;
  return { kind: 'and', items: present };
}

/**
 * A filter object (reference/query.md grammar) as a condition on `collection`, checked on the
 * way: unknown keys, operators the field type lacks and values of the wrong type are 400
 * INVALID_QUERY naming the key; unknown or unreadable fields are 403 for non-admins.
 */
export function buildCondition(ctx: BuildContext, collection: string, filter: Filter): Condition | null {
  return new FilterBuilder(ctx).level(requireCollection(ctx.overview, collection), filter);
}

/**
 * A permission's row filter: written by an administrator, so it is trusted (no field-level
 * read checks), and it never recurses into other permissions. Non-admins read svc_activity
 * and svc_revisions rows only of items they may read (reference/auth.md: system collections
 * follow the same rules).
 */
export function buildRowFilter(ctx: BuildContext, collection: string): Condition | null {
  const filter = ctx.access.rowFilter(collection);
  const own =
    filter === null || Object.keys(filter).length === 0 ? null : buildCondition(trusted(ctx), collection, filter);
  if (!JOURNAL_COLLECTIONS.has(collection) || ctx.accountability.admin) return own;
  return andConditions(own, buildJournalCondition(ctx));
}

/** Collections whose rows name an item of another collection by `collection` and `item`. */
const JOURNAL_COLLECTIONS: ReadonlySet<string> = new Set(['svc_activity', 'svc_revisions']);

function trusted(ctx: BuildContext): BuildContext {
  return { ...ctx, access: FULL_READ_ACCESS, accountability: { ...ctx.accountability, admin: true } };
}

/**
 * The journal rows of items the caller may read: their collection is readable and, where the
 * read permission filters rows, the item is one of the rows it lets through (one uncorrelated
 * subquery per such collection).
 */
function buildJournalCondition(ctx: BuildContext): Condition {
  const collectionColumn: Operand = { kind: 'column', column: 'collection', type: 'string' };
  const itemColumn: Operand = { kind: 'column', column: 'item', type: 'string' };
  const unfiltered: Value[] = [];
  const items: Condition[] = [];
  for (const name of Object.keys(ctx.overview.collections)) {
    if (JOURNAL_COLLECTIONS.has(name) || !canReadCollection(ctx.access, name)) continue;
    const named: Value = { kind: 'literal', value: name, type: 'string' };
    const rows = buildRowFilter(ctx, name);
    if (rows === null) {
      unfiltered.push(named);
      continue;
    }
    items.push({
      kind: 'and',
      items: [
        { kind: 'compare', operand: collectionColumn, op: '=', value: named },
        { kind: 'keyIn', operand: itemColumn, target: refOf(ctx, name), condition: rows },
      ],
    });
  }
  if (unfiltered.length > 0)
    items.unshift({ kind: 'in', operand: collectionColumn, values: unfiltered, negated: false });
  if (items.length === 0) return { kind: 'constant', value: false };
  return items.length === 1 && items[0] !== undefined ? items[0] : { kind: 'or', items };
}

/** A related row the caller may read (its row permission) that satisfies `condition`. */
function readableRelated(ctx: BuildContext, collection: string, condition: Condition | null): Condition {
  return andConditions(buildRowFilter(ctx, collection), condition) ?? { kind: 'constant', value: true };
}

const TEMPORAL_TYPES: ReadonlySet<FieldType> = new Set(['date', 'dateTime', 'timestamp', 'time']);

/**
 * The operand of a function key: date parts of date/time fields, `count` of o2m/m2m/m2a
 * aliases (the related rows the caller may read) and json/csv fields (reference/query.md,
 * fields: functions).
 */
export function functionOperand(
  ctx: BuildContext,
  collection: CollectionOverview,
  fn: string,
  fieldName: string,
  unknownReason: string,
): Operand {
  const field = requireField(ctx, collection, fieldName, unknownReason);
  if (fn === 'count') {
    const relation = resolveRelation(ctx, collection, fieldName);
    if (relation?.kind === 'o2m') {
      const target = relation.target.collection;
      // Counting rows of a collection the caller cannot read would reveal them.
      if (!canReadCollection(ctx.access, target)) throw new ForbiddenError();
      return { kind: 'countRelated', relation, filter: buildRowFilter(ctx, target) };
    }
    if (isMasked(field)) throw new ForbiddenError();
    if (field.type === 'json' || field.type === 'csv')
      return { kind: 'countElements', column: fieldName, type: field.type };
    throw new InvalidQueryError(`"count" can't be applied to "${fieldName}" on "${collection.collection}"`);
  }
  if (!(DATE_FUNCTIONS as readonly string[]).includes(fn)) {
    throw new InvalidQueryError(`Invalid function "${fn}"`);
  }
  if (!TEMPORAL_TYPES.has(field.type) || field.isAlias) {
    throw new InvalidQueryError(`"${fn}" can't be applied to "${fieldName}" on "${collection.collection}"`);
  }
  return { kind: 'datePart', fn: fn as DateFunction, column: fieldName };
}

class FilterBuilder {
  constructor(private readonly ctx: BuildContext) {}

  level(collection: CollectionOverview, filter: Filter): Condition | null {
    const items: Condition[] = [];
    for (const [key, value] of Object.entries(filter)) {
      if (key === '_and' || key === '_or') {
        if (!Array.isArray(value) || !value.every(isPlainObject)) throw new InvalidQueryError('Invalid filter object');
        const group = value
          .map((item) => this.level(collection, item as Filter))
          .filter((c): c is Condition => c !== null);
        if (group.length > 0) items.push({ kind: key === '_and' ? 'and' : 'or', items: group });
        continue;
      }
      items.push(this.key(collection, key, value));
    }
    return andConditions(...items);
  }

  private key(collection: CollectionOverview, key: string, value: unknown): Condition {
    const unknown = `Invalid filter key "${key}" on "${collection.collection}"`;
    const fn = parseFunctionKey(key);
    if (fn !== undefined) {
      const operand = functionOperand(this.ctx, collection, fn.fn, fn.field, unknown);
      return this.operators(operand, 'integer', value, key);
    }
    if (key.startsWith('_')) throw new InvalidQueryError(unknown);
    const scoped = /^([^:]+):(.+)$/.exec(key);
    if (scoped?.[1] !== undefined && scoped[2] !== undefined)
      return this.scoped(collection, scoped[1], scoped[2], value);
    const field = requireField(this.ctx, collection, key, unknown);
    const relation = resolveRelation(this.ctx, collection, key);
    const column: Operand = { kind: 'column', column: key, type: field.type };
    if (relation === undefined) {
      if (field.isAlias) throw new InvalidQueryError(unknown);
      // reference/system-collections.md: masked values are never revealed, not even by a filter.
      return this.operators(column, isMasked(field) ? 'hash' : field.type, value, key);
    }
    const [operators, nested] = splitOperatorKeys(value);
    const items: Condition[] = [];
    switch (relation.kind) {
      case 'm2o': {
        if (operators !== null) items.push(this.operators(column, field.type, operators, key));
        if (nested !== null) {
          const target = requireCollection(this.ctx.overview, relation.target.collection);
          const condition = this.level(target, nested);
          if (condition !== null) items.push(this.related(relation, condition, false));
        }
        break;
      }
      case 'o2m': {
        const target = requireCollection(this.ctx.overview, relation.target.collection);
        for (const [op, raw] of Object.entries(operators ?? {})) {
          if (op !== '_some' && op !== '_none') items.push(this.relatedPresence(relation, op, raw));
          else {
            if (!isPlainObject(raw)) throw new InvalidQueryError(`Invalid filter object for "${key}.${op}"`);
            items.push(this.related(relation, this.level(target, raw), op === '_none'));
          }
        }
        if (nested !== null) {
          const condition = this.level(target, nested);
          if (condition !== null) items.push(this.related(relation, condition, false));
        }
        break;
      }
      case 'a2o':
        // The item column itself compares as its stored text; related rows need a scope.
        if (nested !== null) throw new InvalidQueryError(`Invalid filter key "${key}" on "${collection.collection}"`);
        if (operators !== null) items.push(this.operators(column, field.type, operators, key));
        break;
    }
    return andConditions(...items) ?? { kind: 'constant', value: true };
  }

  /** `item:<collection>` on a many-to-any junction: the related row in that collection matches. */
  private scoped(collection: CollectionOverview, name: string, scope: string, value: unknown): Condition {
    const unknown = `Invalid filter key "${name}:${scope}" on "${collection.collection}"`;
    requireField(this.ctx, collection, name, unknown);
    const relation = resolveRelation(this.ctx, collection, name);
    if (relation?.kind !== 'a2o' || !relation.allowed.includes(scope) || !isPlainObject(value)) {
      throw new InvalidQueryError(unknown);
    }
    const target = requireCollection(this.ctx.overview, scope);
    if (!canReadCollection(this.ctx.access, scope)) throw new ForbiddenError();
    return this.related(a2oRef(this.ctx, relation, scope), this.level(target, value), false);
  }

  /**
   * Some related row satisfies `condition` (none, when `negated`): only rows the caller may
   * read count, so a filter never reveals what a read would not.
   */
  private related(relation: RelationRef, condition: Condition | null, negated: boolean): Condition {
    return {
      kind: 'related',
      relation,
      condition: readableRelated(this.ctx, relation.target.collection, condition),
      negated,
    };
  }

  /** `_null`/`_empty` (and negations) on an o2m alias: whether any related row exists. */
  private relatedPresence(relation: ResolvedRelation & { kind: 'o2m' }, op: string, raw: unknown): Condition {
    if (op !== '_null' && op !== '_nnull' && op !== '_empty' && op !== '_nempty') {
      throw new InvalidQueryError(`"alias" field type does not contain the "${op}" filter operator`);
    }
    const wantsNone = booleanValue(op as FilterOperator, raw) === (op === '_null' || op === '_empty');
    return this.related(relation, null, wantsNone);
  }

  /** `{_op: value, ...}` (or a bare value = `_eq`) on one operand. */
  private operators(operand: Operand, type: FieldType, value: unknown, key: string): Condition {
    if (!isPlainObject(value)) return this.operator(operand, type, '_eq', value, key);
    const items = Object.entries(value).map(([op, raw]) => this.operator(operand, type, op, raw, key));
    return andConditions(...items) ?? { kind: 'constant', value: true };
  }

  private operator(operand: Operand, type: FieldType, opKey: string, raw: unknown, key: string): Condition {
    const op = checkOperator(type, opKey);
    const where = `"${op}" on "${key}"`;
    if (isBooleanOperator(op)) {
      const flag = booleanValue(op, raw);
      const isNullOp = op === '_null' || op === '_nnull';
      const negated = (op === '_nnull' || op === '_nempty') === flag;
      if (isNullOp) return { kind: 'null', operand, negated };
      return { kind: 'empty', operand, isText: isTextType(type), negated };
    }
    if (isListOperator(op)) {
      const values = listValue(op, raw).map((item) => this.value(type, op, item, where));
      if (op === '_in' || op === '_nin') return { kind: 'in', operand, values, negated: op === '_nin' };
      const [low, high] = values;
      if (low === undefined || high === undefined) throw new InvalidQueryError(`"${op}" has to be an array of values`);
      return { kind: 'between', operand, low, high, negated: op === '_nbetween' };
    }
    if (op === '_intersects' || op === '_nintersects' || op === '_intersects_bbox' || op === '_nintersects_bbox') {
      const geojson = typeof raw === 'string' ? raw : isPlainObject(raw) ? JSON.stringify(raw) : undefined;
      if (geojson === undefined) throw new InvalidQueryError(`The filter value for "${op}" has to be a GeoJSON object`);
      return {
        kind: 'geo',
        operand,
        mode: op.includes('bbox') ? 'bbox' : 'intersects',
        geojson,
        negated: op.startsWith('_n'),
      };
    }
    const value = this.value(type, op, scalarValue(op, raw), where);
    if (value.kind === 'literal' && value.value === null) {
      if (op === '_eq') return { kind: 'null', operand, negated: false };
      if (op === '_neq') return { kind: 'null', operand, negated: true };
      throw new InvalidQueryError(`The filter value for "${op}" has to be a string, number, or boolean`);
    }
    switch (op) {
      case '_eq':
        return { kind: 'compare', operand, op: '=', value };
      case '_neq':
        return { kind: 'compare', operand, op: '<>', value };
      case '_lt':
        return { kind: 'compare', operand, op: '<', value };
      case '_lte':
        return { kind: 'compare', operand, op: '<=', value };
      case '_gt':
        return { kind: 'compare', operand, op: '>', value };
      case '_gte':
        return { kind: 'compare', operand, op: '>=', value };
      default:
        return this.match(operand, type, op, value);
    }
  }

  private match(operand: Operand, type: FieldType, op: FilterOperator, value: Value): Condition {
    if (value.kind !== 'literal' || value.value === null) {
      throw new InvalidQueryError(`The filter value for "${op}" has to be a string, number, or boolean`);
    }
    const text = value.value instanceof Date ? value.value.toISOString() : String(value.value);
    const negated = op.startsWith('_n');
    if (type === 'csv' && (op === '_contains' || op === '_ncontains')) {
      return { kind: 'csvContains', operand, element: text, negated };
    }
    const base = op.replace(/^_n?i?/, '');
    const caseInsensitive = /^_n?i/.test(op) && op !== '_in';
    const mode = base === 'contains' ? 'contains' : base === 'starts_with' ? 'starts' : 'ends';
    return { kind: 'match', operand, mode, caseInsensitive, text, negated };
  }

  private value(type: FieldType, op: FilterOperator, raw: unknown, where: string): Value {
    if (isDynamicValue(raw)) {
      const value = resolveDynamicValue(this.ctx, raw);
      if (value.kind === 'literal' && value.value instanceof Date) return { ...value, type: temporalType(type) };
      return value;
    }
    const scalar = isListOperator(op) ? listItem(op, raw) : (raw as string | number | boolean | null);
    if (scalar === null) return { kind: 'literal', value: null, type };
    return { kind: 'literal', value: coerceLiteral(type, scalar, where), type };
  }
}

function listItem(op: FilterOperator, raw: unknown): string | number | boolean {
  if (typeof raw === 'string') return raw.trim();
  if (typeof raw === 'number' || typeof raw === 'boolean') return raw;
  throw new InvalidQueryError(`"${op}" has to be an array of values`);
}

/** Separates `_op` keys (operators on the field itself) from nested field keys. */
function splitOperatorKeys(value: unknown): [Readonly<Record<string, unknown>> | null, Filter | null] {
  if (!isPlainObject(value)) return [{ _eq: value }, null];
  const operators: Record<string, unknown> = {};
  const nested: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (key.startsWith('_') && !key.startsWith('__')) operators[key] = v;
    else nested[key] = v;
  }
  return [Object.keys(operators).length > 0 ? operators : null, Object.keys(nested).length > 0 ? nested : null];
}

function isTextType(type: FieldType): boolean {
  return type === 'string' || type === 'text' || type === 'csv' || type === 'hash' || type === 'binary';
}

function temporalType(type: FieldType): FieldType {
  return type === 'date' || type === 'dateTime' || type === 'timestamp' || type === 'time' ? type : 'timestamp';
}
