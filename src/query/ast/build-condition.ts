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
import type { Condition, Operand, Value } from './nodes.js';
import {
  a2oRef,
  functionOperand,
  parseFunctionKey,
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
  return new FilterBuilder(ctx).level(requireCollection(ctx.overview, collection), filter, 0);
}

/**
 * A permission's row filter: written by an administrator, so it is trusted (no field-level
 * read checks), and it never recurses into other permissions.
 */
export function buildRowFilter(ctx: BuildContext, collection: string): Condition | null {
  const filter = ctx.access.rowFilter(collection);
  if (filter === null || Object.keys(filter).length === 0) return null;
  const trusted: BuildContext = { ...ctx, access: FULL_READ_ACCESS, accountability: { ...ctx.accountability, admin: true } };
  return buildCondition(trusted, collection, filter);
}

class FilterBuilder {
  constructor(private readonly ctx: BuildContext) {}

  level(collection: CollectionOverview, filter: Filter, depth: number): Condition | null {
    if (depth > this.ctx.limits.maxRelationalDepth) throw new InvalidQueryError('Max relational depth exceeded');
    const items: Condition[] = [];
    for (const [key, value] of Object.entries(filter)) {
      if (key === '_and' || key === '_or') {
        if (!Array.isArray(value) || !value.every(isPlainObject)) throw new InvalidQueryError('Invalid filter object');
        const group = value
          .map((item) => this.level(collection, item as Filter, depth))
          .filter((c): c is Condition => c !== null);
        if (group.length > 0) items.push({ kind: key === '_and' ? 'and' : 'or', items: group });
        continue;
      }
      items.push(this.key(collection, key, value, depth));
    }
    return andConditions(...items);
  }

  private key(collection: CollectionOverview, key: string, value: unknown, depth: number): Condition {
    const unknown = `Invalid filter key "${key}" on "${collection.collection}"`;
    const fn = parseFunctionKey(key);
    if (fn !== undefined) {
      const operand = functionOperand(this.ctx, collection, fn.fn, fn.field, unknown);
      return this.operators(operand, 'integer', value, key);
    }
    if (key.startsWith('_')) throw new InvalidQueryError(unknown);
    const scoped = /^([^:]+):(.+)$/.exec(key);
    if (scoped?.[1] !== undefined && scoped[2] !== undefined) return this.scoped(collection, scoped[1], scoped[2], value, depth);
    const field = requireField(this.ctx, collection, key, unknown);
    const relation = resolveRelation(this.ctx, collection, key);
    const column: Operand = { kind: 'column', column: key, type: field.type };
    if (relation === undefined) {
      if (field.isAlias) throw new InvalidQueryError(unknown);
      return this.operators(column, field.type, value, key);
    }
    const [operators, nested] = splitOperatorKeys(value);
    const items: Condition[] = [];
    switch (relation.kind) {
      case 'm2o': {
        if (operators !== null) items.push(this.operators(column, field.type, operators, key));
        if (nested !== null) {
          const target = requireCollection(this.ctx.overview, relation.target.collection);
          const condition = this.level(target, nested, depth + 1);
          if (condition !== null) items.push({ kind: 'related', relation, condition, negated: false });
        }
        break;
      }
      case 'o2m': {
        const target = requireCollection(this.ctx.overview, relation.target.collection);
        for (const [op, raw] of Object.entries(operators ?? {})) {
          if (op !== '_some' && op !== '_none') items.push(this.relatedPresence(relation, op, raw));
          else {
            if (!isPlainObject(raw)) throw new InvalidQueryError(`Invalid filter object for "${key}.${op}"`);
            const condition = this.level(target, raw, depth + 1) ?? { kind: 'constant', value: true };
            items.push({ kind: 'related', relation, condition, negated: op === '_none' });
          }
        }
        if (nested !== null) {
          const condition = this.level(target, nested, depth + 1);
          if (condition !== null) items.push({ kind: 'related', relation, condition, negated: false });
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
  private scoped(collection: CollectionOverview, name: string, scope: string, value: unknown, depth: number): Condition {
    const unknown = `Invalid filter key "${name}:${scope}" on "${collection.collection}"`;
    requireField(this.ctx, collection, name, unknown);
    const relation = resolveRelation(this.ctx, collection, name);
    if (relation?.kind !== 'a2o' || !relation.allowed.includes(scope) || !isPlainObject(value)) {
      throw new InvalidQueryError(unknown);
    }
    const target = requireCollection(this.ctx.overview, scope);
    if (!canReadCollection(this.ctx.access, scope)) throw new ForbiddenError();
    const condition = this.level(target, value, depth + 1) ?? { kind: 'constant', value: true };
    return { kind: 'related', relation: a2oRef(this.ctx, relation, scope), condition, negated: false };
  }

  /** `_null`/`_empty` (and negations) on an o2m alias: whether any related row exists. */
  private relatedPresence(relation: ResolvedRelation & { kind: 'o2m' }, op: string, raw: unknown): Condition {
    if (op !== '_null' && op !== '_nnull' && op !== '_empty' && op !== '_nempty') {
      throw new InvalidQueryError(`"alias" field type does not contain the "${op}" filter operator`);
    }
    const wantsNone = booleanValue(op as FilterOperator, raw) === (op === '_null' || op === '_empty');
    return { kind: 'related', relation, condition: { kind: 'constant', value: true }, negated: wantsNone };
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
  return [
    Object.keys(operators).length > 0 ? operators : null,
    Object.keys(nested).length > 0 ? nested : null,
  ];
}

function isTextType(type: FieldType): boolean {
  return type === 'string' || type === 'text' || type === 'csv' || type === 'hash' || type === 'binary';
}

function temporalType(type: FieldType): FieldType {
  return type === 'date' || type === 'dateTime' || type === 'timestamp' || type === 'time' ? type : 'timestamp';
}
