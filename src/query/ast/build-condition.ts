import type { CollectionOverview, FieldOverview, FieldType } from '../../../catalog/overview/types.js';
import { requireCollection } from '../../../catalog/overview/lookup.js';
import { claimsDynamicValue } from '../../access/dynamic-values.js';
import { FULL_READ_ACCESS, canReadCollection } from '../../access/read-access.js';
import { ForbiddenError, InvalidQueryError } from '../../errors.js';
import type { Filter } from '../query.js';
import { booleanValue, checkOperator, coerceLiteral, listValue, scalarValue } from '../validate/filter-values.js';
import {
  hasShape,
  isLogicalOperator,
  LOGICAL_OPERATORS,
  isFilterOperator,
  operatorSpec,
  type FilterOperator,
} from '../../../catalog/overview/filter-operators.js';
import { OPERATOR_CONDITIONS } from '../compile/operator-conditions.js';
import { requireWholeValues } from './hidden-values.js';
import type { BuildContext } from './build-context.js';
import { resolveDynamicValue } from './dynamic-values.js';
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
  collectionRef,
  isMasked,
  parseFunctionKey,
  readableCollection,
  refOf,
  requireField,
  resolveRelation,
  type ResolvedRelation,
} from './resolve.js';
import { isPlainObject } from '../../is-plain-object.js';

/** AND of the given conditions, skipping absent ones; null when none is left. */
export function andConditions(...items: readonly (Condition | null)[]): Condition | null {
  const present = items.filter((c): c is Condition => c !== null);
  if (present.length === 0) return null;
  if (present.length === 1) return present[0] ?? null;
  return { kind: 'and', items: present };
}

/**
 * A filter object as a condition on `collection`, checked on the
 * way: unknown keys, operators the field type lacks and values of the wrong type are 400
 * INVALID_QUERY naming the key; unknown or unreadable fields are 403 for non-admins.
 */
export function buildCondition(ctx: BuildContext, collection: string, filter: Filter): Condition | null {
  return new FilterBuilder(ctx).level(requireCollection(ctx.overview, collection), filter);
}

/**
 * A permission's row filter: written by an administrator, so it is trusted (no field-level
 * read checks), and it never recurses into other permissions. Non-admins read svc_activity,
 * svc_revisions and svc_versions rows only of items they may read (system collections
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
const JOURNAL_COLLECTIONS: ReadonlySet<string> = new Set(['svc_activity', 'svc_revisions', 'svc_versions']);

function trusted(ctx: BuildContext): BuildContext {
  return { ...ctx, access: FULL_READ_ACCESS, accountability: { ...ctx.accountability, admin: true } };
}

/**
 * The journal rows of items the caller may read: their collection is readable and, where the
 * read permission filters rows, the item is one of the rows it lets through (one uncorrelated
 * subquery per such collection). svc_versions rows too: a version's `delta` is a draft of its
 * item, seen only by those who may read the item (issue 36).
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

const DATE_PARTS: readonly DateFunction[] = ['year', 'month', 'week', 'day', 'weekday'];
const TIME_PARTS: readonly DateFunction[] = ['hour', 'minute', 'second'];

/**
 * The date functions of each temporal type (Directus 10, getFunctionsForType): a date has no
 * hour and a time no year, which the databases would answer with an error or a made-up value.
 */
const DATE_FUNCTIONS_OF_TYPE: Readonly<Partial<Record<FieldType, readonly DateFunction[]>>> = {
  date: DATE_PARTS,
  time: TIME_PARTS,
  dateTime: DATE_FUNCTIONS,
  timestamp: DATE_FUNCTIONS,
};

/**
 * The operand of a function key: date parts of temporal fields (those of their type,
 * DATE_FUNCTIONS_OF_TYPE), `count` of o2m/m2m/m2a aliases (the related rows the caller may
 * read) and json/csv fields.
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
    requireWholeValues(ctx, collection.collection, field);
    if (field.type === 'json' || field.type === 'csv')
      return { kind: 'countElements', column: fieldName, type: field.type };
    throw new InvalidQueryError(`"count" can't be applied to "${fieldName}" on "${collection.collection}"`);
  }
  if (!isDateFunction(fn)) throw new InvalidQueryError(`Invalid function "${fn}"`);
  if (!dateFunctionsOf(field.type).includes(fn) || field.isAlias) {
    throw new InvalidQueryError(`"${fn}" can't be applied to "${fieldName}" on "${collection.collection}"`);
  }
  return { kind: 'datePart', fn, column: fieldName };
}

/** The date functions a field of `type` has (none outside the temporal types). */
export function dateFunctionsOf(type: FieldType): readonly DateFunction[] {
  return DATE_FUNCTIONS_OF_TYPE[type] ?? [];
}

function isDateFunction(fn: string): fn is DateFunction {
  return (DATE_FUNCTIONS as readonly string[]).includes(fn);
}

class FilterBuilder {
  constructor(private readonly ctx: BuildContext) {}

  level(collection: CollectionOverview, filter: Filter): Condition | null {
    const items: Condition[] = [];
    for (const [key, value] of Object.entries(filter)) {
      if (isLogicalOperator(key)) {
        if (!Array.isArray(value) || !value.every(isPlainObject)) throw new InvalidQueryError('Invalid filter object');
        const group = value.map((item) => this.level(collection, item)).filter((c): c is Condition => c !== null);
        if (group.length > 0) items.push({ kind: LOGICAL_OPERATORS[key], items: group });
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
    const follow = parseFollowKey(key);
    if (follow !== undefined) return this.followed(collection, follow, value, key);
    if (key.startsWith('_')) throw new InvalidQueryError(unknown);
    const scoped = /^([^:]+):(.+)$/.exec(key);
    if (scoped?.[1] !== undefined && scoped[2] !== undefined)
      return this.scoped(collection, scoped[1], scoped[2], value);
    const field = requireField(this.ctx, collection, key, unknown);
    const relation = resolveRelation(this.ctx, collection, key);
    const column: Operand = {
      kind: 'column',
      column: key,
      type: field.type,
      ...(isSingleFloat(field) ? { singleFloat: true } : {}),
    };
    if (relation === undefined) {
      if (field.isAlias) throw new InvalidQueryError(unknown);
      // Masked values are never revealed, not even by a filter.
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
          if (condition !== null) items.push(this.related(relation, condition, '_some'));
        }
        break;
      }
      case 'o2m':
        items.push(this.toMany(relation, operators, nested, key));
        break;
      case 'a2o':
        // The item column itself compares as its stored text; related rows need a scope.
        if (nested !== null) throw new InvalidQueryError(`Invalid filter key "${key}" on "${collection.collection}"`);
        if (operators !== null) items.push(this.operators(column, field.type, operators, key));
        break;
    }
    return andConditions(...items) ?? { kind: 'constant', value: true };
  }

  /**
   * The filter on a one-to-many hop: quantifiers (`_some`, `_none`), presence flags (`_null`,
   * `_empty` and negations) and nested keys (some related row matches them).
   */
  private toMany(
    relation: ResolvedRelation & { kind: 'o2m' },
    operators: Readonly<Record<string, unknown>> | null,
    nested: Filter | null,
    key: string,
  ): Condition {
    const target = requireCollection(this.ctx.overview, relation.target.collection);
    const items: Condition[] = [];
    for (const [op, raw] of Object.entries(operators ?? {})) {
      if (!isFilterOperator(op) || !hasShape(op, 'quantifier')) items.push(this.relatedPresence(relation, op, raw));
      else {
        if (!isPlainObject(raw)) throw new InvalidQueryError(`Invalid filter object for "${key}.${op}"`);
        items.push(this.related(relation, this.level(target, raw), op));
      }
    }
    if (nested !== null) {
      const condition = this.level(target, nested);
      if (condition !== null) items.push(this.related(relation, condition, '_some'));
    }
    return andConditions(...items) ?? { kind: 'constant', value: true };
  }

  /**
   * `$FOLLOW(<collection>, <field>)` (Directus 10): the rows of `collection` whose `field`
   * holds this row's primary key, as a one-to-many alias would reach them, whether or not a
   * relation is defined; `$FOLLOW(<collection>, <item>, <collection_field>)`: the rows of a
   * many-to-any junction that name this collection and hold this row's key as text. The caller
   * needs read access to that collection and those fields, as for any field a filter names;
   * the fields must be able to hold this collection's keys (and its name).
   */
  private followed(collection: CollectionOverview, follow: FollowKey, value: unknown, key: string): Condition {
    const target = readableCollection(this.ctx, follow.collection);
    const unknown = `Invalid filter key "${key}" on "${collection.collection}"`;
    const field = requireField(this.ctx, target, follow.field, unknown);
    const primary = collectionRef(collection);
    const refuse = (name: string): never => {
      throw new InvalidQueryError(
        `"${key}": "${name}" of "${follow.collection}" can't hold keys of "${collection.collection}"`,
      );
    };
    const base = {
      kind: 'o2m',
      foreignKey: follow.field,
      parentKey: collection.primary,
      target: collectionRef(target),
    } as const;
    let relation: ResolvedRelation & { kind: 'o2m' } = base;
    if (follow.collectionField === undefined) {
      if (field.isAlias || !holdsKeysOf(field.type, primary.primaryType)) refuse(follow.field);
    } else {
      const scopeField = requireField(this.ctx, target, follow.collectionField, unknown);
      if (field.isAlias || !holdsText(field.type)) refuse(follow.field);
      if (scopeField.isAlias || !holdsText(scopeField.type)) refuse(follow.collectionField);
      relation = { ...base, scope: { collectionColumn: follow.collectionField, collection: collection.collection } };
    }
    const [operators, nested] = splitOperatorKeys(value);
    return this.toMany(relation, operators, nested, key);
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
    return this.related(a2oRef(this.ctx, relation, scope), this.level(target, value), '_some');
  }

  /**
   * Some related row satisfies `condition` (none, for `_none`): only rows the caller may
   * read count, so a filter never reveals what a read would not.
   */
  private related(relation: RelationRef, condition: Condition | null, quantifier: '_some' | '_none'): Condition {
    return OPERATOR_CONDITIONS[quantifier](relation, readableRelated(this.ctx, relation.target.collection, condition));
  }

  /** `flag` operators (`_null`, `_empty` and negations) on an o2m alias: whether any related row exists. */
  private relatedPresence(relation: ResolvedRelation & { kind: 'o2m' }, op: string, raw: unknown): Condition {
    if (!isFilterOperator(op) || !hasShape(op, 'flag')) {
      throw new InvalidQueryError(`"alias" field type does not contain the "${op}" filter operator`);
    }
    const wantsNone = booleanValue(op, raw) !== operatorSpec(op).negated;
    return this.related(relation, null, wantsNone ? '_none' : '_some');
  }

  /** `{_op: value, ...}` (or a bare value = `_eq`) on one operand. */
  private operators(operand: Operand, type: FieldType, value: unknown, key: string): Condition {
    if (!isPlainObject(value)) return this.operator(operand, type, '_eq', value, key);
    const items = Object.entries(value).map(([op, raw]) => this.operator(operand, type, op, raw, key));
    return andConditions(...items) ?? { kind: 'constant', value: true };
  }

  /** One operator, its value read by the operator's shape, compiled by OPERATOR_CONDITIONS. */
  private operator(operand: Operand, type: FieldType, opKey: string, raw: unknown, key: string): Condition {
    const op = checkOperator(type, opKey);
    const target = { operand, type };
    const where = `"${op}" on "${key}"`;
    if (hasShape(op, 'flag')) return OPERATOR_CONDITIONS[op](target, booleanValue(op, raw));
    if (hasShape(op, 'list')) return OPERATOR_CONDITIONS[op](target, this.values(type, op, raw, where));
    if (hasShape(op, 'pair')) {
      const [low, high] = this.values(type, op, raw, where);
      if (low === undefined || high === undefined) throw new InvalidQueryError(`"${op}" has to be an array of values`);
      return OPERATOR_CONDITIONS[op](target, low, high);
    }
    if (hasShape(op, 'geometry')) {
      const geojson = typeof raw === 'string' ? raw : isPlainObject(raw) ? JSON.stringify(raw) : undefined;
      if (geojson === undefined) throw new InvalidQueryError(`The filter value for "${op}" has to be a GeoJSON object`);
      return OPERATOR_CONDITIONS[op](target, geojson);
    }
    if (hasShape(op, 'scalar')) return OPERATOR_CONDITIONS[op](target, this.value(type, scalarValue(op, raw), where));
    // Validation-only and relational operators: no field type offers them, checkOperator refused them.
    throw new InvalidQueryError(`"${type}" field type does not contain the "${op}" filter operator`);
  }

  private values(type: FieldType, op: FilterOperator, raw: unknown, where: string): Value[] {
    return listValue(op, raw).map((item) => this.value(type, item, where, op));
  }

  /** A scalar value, or an entry of the list of `listOf`. */
  private value(type: FieldType, raw: unknown, where: string, listOf?: FilterOperator): Value {
    if (claimsDynamicValue(raw)) {
      const value = resolveDynamicValue(this.ctx, raw);
      if (value.kind === 'literal' && value.value instanceof Date) return { ...value, type: temporalType(type) };
      return value;
    }
    const scalar = listOf !== undefined ? listItem(listOf, raw) : (raw as string | number | boolean | null);
    if (scalar === null) return { kind: 'literal', value: null, type };
    return { kind: 'literal', value: coerceLiteral(type, scalar, where), type };
  }
}

function listItem(op: FilterOperator, raw: unknown): string | number | boolean {
  if (typeof raw === 'string') return raw.trim();
  if (typeof raw === 'number' || typeof raw === 'boolean') return raw;
  throw new InvalidQueryError(`"${op}" has to be an array of values`);
}

/** The parts of a `$FOLLOW(collection, field[, collectionField])` filter key. */
interface FollowKey {
  readonly collection: string;
  readonly field: string;
  readonly collectionField: string | undefined;
}

/** Longer `$FOLLOW(...)` keys are not parsed (Directus refuses them likewise). */
const FOLLOW_KEY_MAX_LENGTH = 500;

function parseFollowKey(key: string): FollowKey | undefined {
  if (!key.startsWith('$FOLLOW') || key.length > FOLLOW_KEY_MAX_LENGTH) return undefined;
  const match = /^\$FOLLOW\(([^,()]+),([^,()]+)(?:,([^,()]+))?\)$/.exec(key);
  const [, collection, field, collectionField] = match ?? [];
  if (collection === undefined || field === undefined) return undefined;
  return { collection: collection.trim(), field: field.trim(), collectionField: collectionField?.trim() };
}

/** Whether a column of type `type` can hold keys of a primary key of type `primary`. */
function holdsKeysOf(type: FieldType, primary: FieldType): boolean {
  const integers: readonly FieldType[] = ['integer', 'bigInteger'];
  return type === primary || (integers.includes(type) && integers.includes(primary));
}

/** Column types that hold keys and collection names as text (a many-to-any's item and collection fields). */
function holdsText(type: FieldType): boolean {
  return type === 'string' || type === 'text';
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

/** Column types of 4 bytes (MariaDB and SQLite spell theirs `float`; SQLite stores 8 anyway). */
const SINGLE_FLOAT_TYPES: ReadonlySet<string> = new Set(['float', 'real', 'float4']);

function isSingleFloat(field: FieldOverview): boolean {
  return field.type === 'float' && field.dbType !== null && SINGLE_FLOAT_TYPES.has(field.dbType.toLowerCase());
}

function temporalType(type: FieldType): FieldType {
  return type === 'date' || type === 'dateTime' || type === 'timestamp' || type === 'time' ? type : 'timestamp';
}
