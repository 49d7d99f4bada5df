import type { CollectionOverview, FilterObject, SchemaOverview } from '../../catalog/overview/types.js';
import type { DbClient } from '../db-client.js';
import { databaseDialect } from '../db/dialects/index.js';
import type { Query } from '../query/index.js';

/** Whether a filter or selection names `$CURRENT_USER` (so what it reads depends on the user). */
export function mentionsCurrentUser(value: unknown): boolean {
  return value !== undefined && value !== null && JSON.stringify(value).includes('$CURRENT_USER');
}

/**
 * How a read rule naming `$CURRENT_USER` is shared by every user of its role at a delivery:
 * its conjuncts that do not name the user go into the one read (SQL, as for anyone), those that
 * do are checked per user on the rows read. `fields`: what they compare, read with the rows.
 */
export interface UserRulePlan {
  /** Positions (in {@link conjuncts}) of the conjuncts checked in memory. */
  readonly inMemory: ReadonlySet<number>;
  readonly fields: readonly string[];
}

/** A filter's top-level conjuncts: each key of the object, the entries of `_and` one by one. */
export function conjuncts(filter: FilterObject): FilterObject[] {
  const out: FilterObject[] = [];
  for (const [key, value] of Object.entries(filter)) {
    if (key === '_and' && Array.isArray(value)) for (const part of value) out.push(part as FilterObject);
    else out.push({ [key]: value });
  }
  return out;
}

/**
 * The operators checked in memory: no negation among them, so a comparison stricter than the
 * database's (see `same`) can only miss a row, never let one through. Anything else (`_neq`,
 * relational paths, `_some`, functions, substrings, ranges): the role's users are read one by one.
 */
const OPERATORS = new Set(['_eq', '_in', '_null', '_nnull']);

/**
 * Field types compared in memory. Text only where the database compares it byte for byte:
 * MySQL's default collations ignore case and trailing spaces, which memory would not.
 */
function comparable(type: string, client: DbClient): boolean {
  if (type === 'uuid' || type === 'integer' || type === 'bigInteger') return true;
  return (type === 'string' || type === 'text') && databaseDialect(client).comparesTextExactly;
}

/**
 * The plan for `collection`'s read rule `filter` (as stored, variables unresolved), or
 * undefined when its user part cannot be checked in memory exactly as the database would, or
 * when the collection relates to itself (its nested levels would read under the shared filter).
 */
export function userRulePlan(
  filter: FilterObject | null,
  overview: SchemaOverview,
  collection: string,
  client: DbClient,
): UserRulePlan | undefined {
  const info = overview.collections[collection];
  if (filter === null || info === undefined || relatesToItself(overview, collection)) return undefined;
  const inMemory = new Set<number>();
  const fields = new Set<string>();
  const parts = conjuncts(filter);
  for (const [i, part] of parts.entries()) {
    if (!mentionsCurrentUser(part)) continue;
    if (!evaluable(part, info, client, fields)) return undefined;
    inMemory.add(i);
  }
  return inMemory.size === 0 ? undefined : { inMemory, fields: [...fields] };
}

function evaluable(filter: unknown, info: CollectionOverview, client: DbClient, fields: Set<string>): boolean {
  if (typeof filter !== 'object' || filter === null || Array.isArray(filter)) return false;
  const entries = Object.entries(filter as Record<string, unknown>);
  if (entries.length === 0) return false;
  return entries.every(([key, value]) => {
    if (key === '_and' || key === '_or')
      return Array.isArray(value) && value.length > 0 && value.every((p) => evaluable(p, info, client, fields));
    const field = Object.hasOwn(info.fields, key) ? info.fields[key] : undefined;
    if (field === undefined || field.isAlias || !comparable(field.type, client)) return false;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
    const ops = Object.entries(value as Record<string, unknown>);
    if (ops.length !== 1 || !ops.every(([op, operand]) => OPERATORS.has(op) && operandFits(op, operand))) return false;
    fields.add(key);
    return true;
  });
}

function operandFits(op: string, operand: unknown): boolean {
  if (op === '_in') return Array.isArray(operand) && operand.every(isScalar);
  if (op === '_null' || op === '_nnull') return typeof operand === 'boolean';
  return isScalar(operand) || operand === null;
}

function isScalar(value: unknown): value is string | number {
  return typeof value === 'string' || typeof value === 'number';
}

/** A relation from `collection` back to it (m2o/o2m on itself, an m2m junction or m2a naming it twice). */
function relatesToItself(overview: SchemaOverview, collection: string): boolean {
  const pointing = new Map<string, number>();
  for (const relation of overview.relations) {
    const targets = relation.relatedCollection ?? relation.meta?.oneAllowedCollections ?? [];
    const names = typeof targets === 'string' ? [targets] : targets;
    if (!names.includes(collection)) continue;
    if (relation.collection === collection || relation.relatedCollection === null) return true;
    pointing.set(relation.collection, (pointing.get(relation.collection) ?? 0) + 1);
  }
  return [...pointing.values()].some((n) => n > 1);
}

/**
 * Whether a subscriber's selection can be read with the rule's fields added (then taken out):
 * not when it expands one of them (`owner.name`, `*.*`) or aliases its name.
 */
export function selectionFits(query: Query, plan: UserRulePlan): boolean {
  const expanded = (query.fields ?? []).some(
    (f) => f.startsWith('*.') || plan.fields.some((rule) => f.startsWith(`${rule}.`)),
  );
  const aliased = query.alias !== undefined && plan.fields.some((rule) => Object.hasOwn(query.alias ?? {}, rule));
  return !expanded && !aliased && query.deep === undefined;
}

/**
 * A user's part of the rule (the {@link UserRulePlan.inMemory} conjuncts, variables resolved)
 * on one row's values, as the database would answer it.
 */
export function matchesRow(parts: readonly FilterObject[], row: Readonly<Record<string, unknown>>): boolean {
  return parts.every((part) => matches(part, row));
}

function matches(filter: unknown, row: Readonly<Record<string, unknown>>): boolean {
  if (typeof filter !== 'object' || filter === null) return false;
  return Object.entries(filter).every(([key, value]) => {
    if (key === '_and') return (value as unknown[]).every((p) => matches(p, row));
    if (key === '_or') return (value as unknown[]).some((p) => matches(p, row));
    const [op, operand] = Object.entries(value as object)[0] ?? [];
    return compare(op, Object.hasOwn(row, key) ? row[key] : undefined, operand);
  });
}

function compare(op: string | undefined, value: unknown, operand: unknown): boolean {
  const isNull = value === null || value === undefined;
  switch (op) {
    case '_null':
      return operand === isNull;
    case '_nnull':
      return operand !== isNull;
    case '_eq':
      return operand === null ? isNull : !isNull && same(value, operand);
    case '_in':
      return !isNull && Array.isArray(operand) && operand.some((o) => same(value, o));
    default:
      return false;
  }
}

/**
 * Equal as the database would find them, never more: numbers and their text alike (the
 * compiler coerces a value to its column's type), text byte for byte (a uuid written in
 * capitals, which PostgreSQL would match, is missed rather than a row shown to one who may not
 * see it); a resolved variable that is not a scalar (a missing `$CURRENT_USER.path`) equals nothing.
 */
function same(value: unknown, operand: unknown): boolean {
  if (!isScalar(operand) || !(isScalar(value) || typeof value === 'bigint')) return false;
  return String(value) === String(operand);
}
