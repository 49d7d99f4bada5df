import type { CollectionOverview, FieldType } from '../../../catalog/overview/types.js';
import { InvalidQueryError } from '../../errors.js';
import type { AggregateFunction, Query } from '../query.js';
import { checkRelationalDepth } from '../validate/relational-depth.js';
import { requireWholeValues } from './hidden-values.js';
import type { BuildContext } from './build-context.js';
import { andConditions, buildCondition, buildRowFilter, functionOperand } from './build-condition.js';
import { buildSearch, canBeNull, resolveLimit } from './build-level.js';
import type { AggregateAst, AggregateNode, CountAst, GroupNode } from './nodes.js';
import {
  collectionRef,
  functionKey,
  parseFunctionKey,
  readableCollection,
  requireField,
  requireUnmasked,
} from './resolve.js';

/** Functions that count rows when given `*`. */
const ROW_COUNTS: ReadonlySet<AggregateFunction> = new Set(['count', 'countAll']);
/** Aggregates of numbers: sum() of text fails on PostgreSQL and answers 0 elsewhere. */
const NUMERIC_AGGREGATES: ReadonlySet<AggregateFunction> = new Set(['sum', 'sumDistinct', 'avg', 'avgDistinct']);
const NUMERIC_TYPES: ReadonlySet<FieldType> = new Set(['integer', 'bigInteger', 'float', 'decimal']);
/** Types min() and max() order on every dialect (PostgreSQL has none for boolean, uuid, json, bytea). */
const ORDERED_TYPES: ReadonlySet<FieldType> = new Set([
  ...NUMERIC_TYPES,
  'string',
  'text',
  'csv',
  'hash',
  'date',
  'dateTime',
  'timestamp',
  'time',
]);
/** Aggregates that are never NULL (the others are over no non-NULL value). */
const COUNTS: ReadonlySet<AggregateFunction> = new Set(['count', 'countDistinct', 'countAll']);

/**
 * aggregate and groupBy: group keys (fields or date functions) and
 * aggregate functions over readable fields of the root collection; filter, search, sort (on
 * group keys or `count`, `<fn>.<field>`), limit and offset apply.
 */
export function buildAggregateAst(ctx: BuildContext, collection: string, query: Query): AggregateAst {
  checkRelationalDepth(query, ctx.limits.maxRelationalDepth);
  const root = readableCollection(ctx, collection);
  const groups = (query.groupBy ?? []).map((name) => groupNode(ctx, root, name));
  const aggregates: AggregateNode[] = [];
  for (const [fn, fields] of Object.entries(query.aggregate ?? {}) as [AggregateFunction, readonly string[]][]) {
    for (const name of fields) aggregates.push(aggregateNode(ctx, root, fn, name));
  }
  const outputs = [
    ...groups.map((g) => g.key),
    ...aggregates.map((a) => (a.field === null ? a.fn : `${a.fn}.${a.field}`)),
  ];
  const sortEntries = query.sort ?? groups.map((g) => g.key);
  const sort = sortEntries.map((entry) => {
    const descending = entry.startsWith('-');
    const name = descending ? entry.slice(1) : entry;
    const output = outputs.indexOf(name);
    if (output < 0) throw new InvalidQueryError(`Invalid sort field "${entry}" on "${collection}"`);
    const group = groups[output];
    const aggregate = aggregates[output - groups.length];
    const isNullable =
      group === undefined ? aggregate !== undefined && !COUNTS.has(aggregate.fn) : canBeNull(root, group.operand);
    return { output, descending, canBeNull: isNullable };
  });
  const limit = resolveLimit(query.limit, ctx.limits);
  return {
    kind: 'aggregate',
    collection: collectionRef(root),
    groups,
    aggregates,
    filter: andConditions(
      buildRowFilter(ctx, collection),
      query.filter === undefined ? null : buildCondition(ctx, collection, query.filter),
      query.search === undefined || query.search === '' ? null : buildSearch(ctx, root, query.search),
    ),
    sort,
    limit,
    offset: query.page !== undefined && limit !== null ? limit * (query.page - 1) : (query.offset ?? 0),
  };
}

function groupNode(ctx: BuildContext, collection: CollectionOverview, name: string): GroupNode {
  const reason = `Invalid groupBy field "${name}" on "${collection.collection}"`;
  const fn = parseFunctionKey(name);
  if (fn !== undefined) {
    const operand = functionOperand(ctx, collection, fn.fn, fn.field, reason);
    return { key: functionKey(fn.fn, fn.field), operand, type: 'integer', scale: null };
  }
  const field = requireWholeValues(
    ctx,
    collection.collection,
    requireUnmasked(requireField(ctx, collection, name, reason)),
  );
  if (field.isAlias) throw new InvalidQueryError(reason);
  return {
    key: name,
    operand: { kind: 'column', column: name, type: field.type },
    type: field.type,
    scale: field.scale,
  };
}

function aggregateNode(
  ctx: BuildContext,
  collection: CollectionOverview,
  fn: AggregateFunction,
  name: string,
): AggregateNode {
  if (name === '*' || fn === 'countAll') {
    if (!ROW_COUNTS.has(fn)) throw new InvalidQueryError(`Invalid aggregate field "*" for "${fn}"`);
    return { fn, column: null, field: null, type: 'integer', scale: null };
  }
  const reason = `Invalid aggregate field "${name}" on "${collection.collection}"`;
  const named = requireField(ctx, collection, name, reason);
  // Counting values reveals nothing of them; any other function would.
  const field = fn === 'count' ? named : requireWholeValues(ctx, collection.collection, requireUnmasked(named));
  if (field.isAlias) throw new InvalidQueryError(reason);
  const types = NUMERIC_AGGREGATES.has(fn) ? NUMERIC_TYPES : fn === 'min' || fn === 'max' ? ORDERED_TYPES : undefined;
  if (types !== undefined && !types.has(field.type)) {
    throw new InvalidQueryError(`"${fn}" can't be applied to the ${field.type} field "${name}"`);
  }
  return { fn, column: name, field: name, type: field.type, scale: field.scale };
}

/** meta counts: total_count = rows the caller may read; filter_count = plus filter and search. */
export function buildCountAst(ctx: BuildContext, collection: string, query: Query): CountAst {
  checkRelationalDepth(query, ctx.limits.maxRelationalDepth);
  const root = readableCollection(ctx, collection);
  const rowFilter = buildRowFilter(ctx, collection);
  const counts = (query.meta ?? []).map((key) => {
    if (key === 'total_count') return { key, filter: rowFilter };
    return {
      key,
      filter: andConditions(
        rowFilter,
        query.filter === undefined ? null : buildCondition(ctx, collection, query.filter),
        query.search === undefined || query.search === '' ? null : buildSearch(ctx, root, query.search),
      ),
    };
  });
  return { kind: 'count', collection: collectionRef(root), counts };
}
