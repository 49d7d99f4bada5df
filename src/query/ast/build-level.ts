import type { CollectionOverview } from '../../../catalog/overview/types.js';
import { canReadCollection, canReadField } from '../../access/read-access.js';
import { assertNever, ForbiddenError, InvalidQueryError } from '../../errors.js';
import type { NestedQuery } from '../query.js';
import { isUuid } from '../validate/filter-values.js';
import { MAX_QUERY_INTEGER } from '../validate/numbers.js';
import { requireWholeValues } from './hidden-values.js';
import type { BuildContext, QueryLimits } from './build-context.js';
import { andConditions, buildCondition, buildRowFilter, functionOperand } from './build-condition.js';
import type { Condition, LevelQuery, Operand, RelationRef, SortNode } from './nodes.js';
import {
  a2oRef,
  isMasked,
  parseFunctionKey,
  requireField,
  requireUnmasked,
  resolveRelation,
  type ResolvedRelation,
} from './resolve.js';

/**
 * One level's filter (row permission AND query filter AND search), sort and window.
 * `defaultSort` applies when the query names none.
 */
export function buildLevel(
  ctx: BuildContext,
  collection: CollectionOverview,
  query: NestedQuery | undefined,
  defaultSort: string | null,
): LevelQuery {
  const filter = andConditions(
    buildRowFilter(ctx, collection.collection),
    query?.filter === undefined ? null : buildCondition(ctx, collection.collection, query.filter),
    query?.search === undefined || query.search === '' ? null : buildSearch(ctx, collection, query.search),
  );
  const limit = resolveLimit(query?.limit, ctx.limits);
  const offset = query?.page !== undefined && limit !== null ? limit * (query.page - 1) : (query?.offset ?? 0);
  if (offset > MAX_QUERY_INTEGER)
    throw new InvalidQueryError(
      `"page" must be less than or equal to ${Math.floor(MAX_QUERY_INTEGER / Math.max(limit ?? 1, 1)) + 1}`,
    );
  const sort =
    query?.sort === undefined ? defaultSortNodes(collection, defaultSort) : buildSort(ctx, collection, query.sort);
  return { filter, sort, limit, offset };
}

/**
 * The order a query that names none gets (the sort field, else the primary key): the service's
 * choice, not the caller's, so it is not held to the caller's readable fields (as in Directus
 * 10); a role allowed only some fields, the key not among them, still reads a list.
 */
function defaultSortNodes(collection: CollectionOverview, name: string | null): SortNode[] {
  const field = name === null ? undefined : collection.fields[name];
  if (name === null || field === undefined || field.isAlias) return [];
  const operand: Operand = { kind: 'column', column: name, type: field.type };
  return [{ operand, descending: false, canBeNull: canBeNull(collection, operand) }];
}

/**
 * limit: default QUERY_LIMIT_DEFAULT; -1 = all, or QUERY_LIMIT_MAX when
 * set; above the max is INVALID_QUERY. null = no limit.
 */
export function resolveLimit(limit: number | undefined, limits: QueryLimits): number | null {
  const max = limits.queryLimitMax;
  if (limit === undefined) return Math.min(limits.queryLimitDefault, max);
  if (limit === -1) return Number.isFinite(max) ? max : null;
  if (limit > max) throw new InvalidQueryError(`"limit" must be less than or equal to ${max}`);
  return limit;
}

function buildSort(ctx: BuildContext, collection: CollectionOverview, entries: readonly string[]): SortNode[] {
  return entries.map((entry) => {
    const descending = entry.startsWith('-');
    const name = descending ? entry.slice(1) : entry;
    const segments = name.split('.');
    const operand = sortOperand(ctx, collection, segments, entry, descending);
    return { operand, descending, canBeNull: canBeNull(collection, operand) };
  });
}

/** Whether a sort value may be NULL: a nullable column (primary keys never), any relational path. */
export function canBeNull(collection: CollectionOverview, operand: Operand): boolean {
  switch (operand.kind) {
    case 'column':
    case 'datePart': {
      const field = collection.fields[operand.column];
      return field === undefined || (field.nullable && !field.isPrimaryKey);
    }
    case 'path':
      return true;
    case 'countRelated':
    case 'countElements':
      return false;
    default:
      return assertNever(operand);
  }
}

/**
 * The value a sort entry names: a column or function here, or one reached through relations.
 * To-many hops (o2m, m2m, m2a: `children.item:circles.name`) pick
 * the smallest related value ascending and the largest descending (Directus sorts a parent by
 * its first related row in the requested order); a2o hops need the `field:collection` scope.
 * Fields are checked as a filter checks them: unknown or unreadable is refused alike.
 */
function sortOperand(
  ctx: BuildContext,
  collection: CollectionOverview,
  segments: readonly string[],
  entry: string,
  descending: boolean,
): Operand {
  const [head, ...rest] = segments;
  const reason = `Invalid sort field "${entry}" on "${collection.collection}"`;
  if (head === undefined || head === '') throw new InvalidQueryError(reason);
  const fn = parseFunctionKey(head);
  if (fn !== undefined && rest.length === 0) return functionOperand(ctx, collection, fn.fn, fn.field, reason);
  const scoped = /^([^:]+):(.+)$/.exec(head);
  const name = scoped?.[1] ?? head;
  const field = requireField(ctx, collection, name, reason);
  const relation = resolveRelation(ctx, collection, name);
  if (rest.length === 0) {
    if (field.isAlias || scoped !== null) throw new InvalidQueryError(reason);
    requireWholeValues(ctx, collection.collection, requireUnmasked(field));
    return { kind: 'column', column: head, type: field.type };
  }
  const hop = sortHop(ctx, relation, scoped?.[2]);
  if (hop === undefined) throw new InvalidQueryError(reason);
  const target = ctx.overview.collections[hop.target.collection];
  if (target === undefined) throw new InvalidQueryError(reason);
  // Rows the caller may not read sort as if they had no value.
  const filter = buildRowFilter(ctx, target.collection);
  const operand = sortOperand(ctx, target, rest, entry, descending);
  const pick = hop.kind === 'o2m' ? (descending ? 'max' : 'min') : null;
  return { kind: 'path', relation: hop, operand, filter, pick };
}

/** The relation one sort hop follows: m2o and o2m as they are, a2o only into a scoped collection. */
function sortHop(
  ctx: BuildContext,
  relation: ResolvedRelation | undefined,
  scope: string | undefined,
): RelationRef | undefined {
  if (relation === undefined) return undefined;
  if (relation.kind !== 'a2o') return scope === undefined ? relation : undefined;
  if (scope === undefined || !relation.allowed.includes(scope)) return undefined;
  if (!canReadCollection(ctx.access, scope)) throw new ForbiddenError();
  return a2oRef(ctx, relation, scope);
}

const INTEGER = /^-?\d+$/;
const NUMBER = /^-?(\d+\.?\d*|\.\d+)$/;

/**
 * search: case-insensitive substring on string/text fields, equality on
 * numeric fields when the term is a number and on uuid fields when it is a UUID. Unreadable
 * and masked fields are never searched.
 */
export function buildSearch(ctx: BuildContext, collection: CollectionOverview, term: string): Condition {
  const items: Condition[] = [];
  for (const field of Object.values(collection.fields)) {
    if (field.isAlias || isMasked(field) || !canReadField(ctx.access, collection.collection, field.field)) continue;
    const operand: Operand = { kind: 'column', column: field.field, type: field.type };
    switch (field.type) {
      case 'string':
      case 'text':
        items.push({ kind: 'match', operand, mode: 'contains', caseInsensitive: true, text: term, negated: false });
        break;
      case 'integer':
      case 'bigInteger':
        if (INTEGER.test(term)) {
          const n = Number(term);
          const value = Number.isSafeInteger(n) ? n : term;
          items.push({ kind: 'compare', operand, op: '=', value: { kind: 'literal', value, type: field.type } });
        }
        break;
      case 'float':
      case 'decimal':
        if (NUMBER.test(term)) {
          const value = field.type === 'float' ? Number(term) : term;
          items.push({ kind: 'compare', operand, op: '=', value: { kind: 'literal', value, type: field.type } });
        }
        break;
      case 'uuid':
        if (isUuid(term)) {
          const value = term.toLowerCase();
          items.push({ kind: 'compare', operand, op: '=', value: { kind: 'literal', value, type: 'uuid' } });
        }
        break;
      default:
        break;
    }
  }
  if (items.length === 0) return { kind: 'constant', value: false };
  return items.length === 1 && items[0] !== undefined ? items[0] : { kind: 'or', items };
}
