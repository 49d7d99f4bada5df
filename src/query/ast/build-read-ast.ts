import type { CollectionOverview } from '../../../catalog/overview/types.js';
import { findField, getFieldRelation, requireCollection } from '../../../catalog/overview/lookup.js';
import { canReadCollection, canReadField } from '../../access/read-access.js';
import { ForbiddenError, InvalidQueryError } from '../../errors.js';
import type { Deep, NestedQuery, Query } from '../query.js';
import type { BuildContext } from './build-context.js';
import { andConditions, buildCondition, buildRowFilter, functionOperand } from './build-condition.js';
import { buildLevel } from './build-level.js';
import { hiddenValuesOf } from './hidden-values.js';
import type { A2OBranch, Condition, ReadAst, ReadNode, Value } from './nodes.js';
import { coerceLiteral } from '../validate/filter-values.js';
import { checkRelationalDepth } from '../validate/relational-depth.js';
import { ownValue } from '../parse/parse-values.js';
import {
  a2oRef,
  collectionRef,
  functionKey,
  isMasked,
  parseFunctionKey,
  readableCollection,
  resolveRelation,
} from './resolve.js';

type Path = readonly string[];

/** One output key of a level and everything asked below it. */
interface FieldRequest {
  readonly key: string;
  /** The field it reads (the alias target for aliases). */
  readonly source: string;
  readonly fn: string | undefined;
  readonly subpaths: Path[];
  /** many-to-any `item:<collection>` scopes. */
  readonly scoped: Map<string, Path[]>;
  /** Only reached through a wildcard: unknown or unreadable fields are left out, not refused. */
  isLenient: boolean;
}

/**
 * The read tree of a list or item query (fields, alias, deep, filter,
 * search, sort, limit, offset, page), validated against the overview and the caller's read
 * access on the way.
 */
export function buildReadAst(ctx: BuildContext, collection: string, query: Query): ReadAst {
  const root = readableCollection(ctx, collection);
  checkRelationalDepth(query, ctx.limits.maxRelationalDepth);
  const paths = (query.fields ?? ['*']).map((f) => f.split('.'));
  const builder = new FieldsBuilder(ctx);
  return {
    kind: 'read',
    collection: collectionRef(root),
    children: builder.children(root, paths, query, false),
    level: buildLevel(ctx, root, query, root.sortField ?? root.primary),
  };
}

/** The primary keys to read, coerced to the key's type; keys that cannot exist are dropped. */
export function buildKeysCondition(ctx: BuildContext, collection: string, keys: readonly unknown[]): Condition {
  const ref = collectionRef(requireCollection(ctx.overview, collection));
  const values: Value[] = [];
  for (const key of keys) {
    if (typeof key !== 'string' && typeof key !== 'number') continue;
    try {
      values.push({ kind: 'literal', value: coerceLiteral(ref.primaryType, key, 'key'), type: ref.primaryType });
    } catch (error) {
      if (!(error instanceof InvalidQueryError)) throw error;
    }
  }
  if (values.length === 0) return { kind: 'constant', value: false };
  return {
    kind: 'in',
    operand: { kind: 'column', column: ref.primary, type: ref.primaryType },
    values,
    negated: false,
  };
}

class FieldsBuilder {
  constructor(private readonly ctx: BuildContext) {}

  children(
    collection: CollectionOverview,
    paths: readonly Path[],
    level: NestedQuery | undefined,
    isLenient: boolean,
  ): ReadNode[] {
    const requests = this.requests(collection, paths, level?.alias ?? {}, isLenient);
    const nodes: ReadNode[] = [];
    for (const request of requests.values()) {
      const constant = ownValue(level?.constants, request.key);
      if (constant !== undefined && request.fn === undefined && request.subpaths.length === 0) {
        nodes.push({ kind: 'constant', key: request.key, value: constant });
        continue;
      }
      const node = this.node(collection, request, level?.deep);
      if (node !== undefined) nodes.push(node);
    }
    return nodes;
  }

  /** Paths grouped by output key, wildcards expanded (in the overview's field order). */
  private requests(
    collection: CollectionOverview,
    paths: readonly Path[],
    alias: Readonly<Record<string, string>>,
    isLenient: boolean,
  ): Map<string, FieldRequest> {
    const requests = new Map<string, FieldRequest>();
    const add = (key: string, source: string, fn: string | undefined, rest: Path, lenient: boolean, scope?: string) => {
      let request = requests.get(key);
      if (request === undefined) {
        request = { key, source, fn, subpaths: [], scoped: new Map(), isLenient: lenient };
        requests.set(key, request);
      } else if (!lenient) {
        request.isLenient = false;
      }
      if (scope !== undefined) {
        const list = request.scoped.get(scope) ?? [];
        list.push(rest);
        request.scoped.set(scope, list);
      } else if (rest.length > 0) {
        request.subpaths.push(rest);
      }
    };
    for (const [head, ...rest] of paths) {
      if (head === undefined || head === '') continue;
      if (head === '*') {
        for (const field of Object.values(collection.fields)) {
          if (!canReadField(this.ctx.access, collection.collection, field.field)) continue;
          const relation = getFieldRelation(this.ctx.overview, collection.collection, field.field);
          if (field.isAlias && relation === undefined) continue;
          if (
            relation !== undefined &&
            rest.length > 0 &&
            relation.kind !== 'a2o' &&
            !canReadCollection(this.ctx.access, relation.related)
          )
            continue;
          add(field.field, field.field, undefined, relation === undefined ? [] : rest, true);
        }
        continue;
      }
      const fn = parseFunctionKey(head);
      if (fn !== undefined) {
        add(functionKey(fn.fn, fn.field), ownValue(alias, fn.field) ?? fn.field, fn.fn, [], isLenient);
        continue;
      }
      const scoped = /^([^:]+):(.+)$/.exec(head);
      const key = scoped?.[1] ?? head;
      add(key, ownValue(alias, key) ?? key, undefined, rest, isLenient, scoped?.[2]);
    }
    return requests;
  }

  private node(collection: CollectionOverview, request: FieldRequest, deep: Deep | undefined): ReadNode | undefined {
    const { ctx } = this;
    const name = collection.collection;
    const field = findField(ctx.overview, name, request.source);
    if (field === undefined) {
      // fields: unknown names are dropped for admins, refused otherwise.
      if (ctx.accountability.admin || request.isLenient) return undefined;
      throw new ForbiddenError();
    }
    if (!canReadField(ctx.access, name, request.source)) {
      if (request.isLenient) return undefined;
      throw new ForbiddenError();
    }
    if (request.fn !== undefined) {
      const reason = `Invalid field "${request.fn}(${request.source})" on "${name}"`;
      return {
        kind: 'function',
        key: request.key,
        operand: functionOperand(ctx, collection, request.fn, request.source, reason),
      };
    }
    const relation = resolveRelation(ctx, collection, request.source);
    const nested = ownValue(deep, request.key);
    if (relation === undefined) {
      if (field.isAlias) return undefined;
      const hidden = hiddenValuesOf(ctx, name, request.source);
      return {
        kind: 'field',
        key: request.key,
        column: request.source,
        type: field.type,
        masked: isMasked(field),
        scale: field.scale,
        ...(hidden === undefined ? {} : { hidden }),
      };
    }
    switch (relation.kind) {
      case 'm2o': {
        if (request.subpaths.length === 0) {
          return {
            kind: 'field',
            key: request.key,
            column: request.source,
            type: field.type,
            masked: false,
            scale: null,
          };
        }
        const target = this.target(relation.target.collection, request);
        if (target === undefined) return undefined;
        return {
          kind: 'm2o',
          key: request.key,
          relation,
          children: this.children(target, request.subpaths, nested, request.isLenient),
          filter: this.relatedFilter(target, nested),
        };
      }
      case 'o2m': {
        const target = this.target(relation.target.collection, request);
        if (target === undefined) return undefined;
        const sortField = getFieldRelation(ctx.overview, name, request.source)?.relation.meta?.sortField ?? null;
        return {
          kind: 'o2m',
          key: request.key,
          relation,
          children:
            request.subpaths.length === 0 ? null : this.children(target, request.subpaths, nested, request.isLenient),
          level: buildLevel(ctx, target, nested, sortField ?? target.primary),
        };
      }
      case 'a2o': {
        const branches: A2OBranch[] = [];
        for (const scope of request.scoped.keys()) {
          if (!relation.allowed.includes(scope)) {
            throw new InvalidQueryError(`"${scope}" is not an allowed collection of "${name}.${request.source}"`);
          }
        }
        for (const allowed of relation.allowed) {
          const scopedPaths = request.scoped.get(allowed) ?? [];
          const paths = [...request.subpaths, ...scopedPaths];
          if (paths.length === 0) continue;
          const isLenient = scopedPaths.length === 0 || request.isLenient;
          const target = this.target(allowed, { ...request, isLenient });
          if (target === undefined) continue;
          const branchDeep = ownValue(deep, `${request.key}:${allowed}`) ?? nested;
          branches.push({
            relation: a2oRef(ctx, relation, allowed),
            children: this.children(target, paths, branchDeep, isLenient),
            filter: this.relatedFilter(target, branchDeep),
          });
        }
        if (branches.length === 0) {
          return {
            kind: 'field',
            key: request.key,
            column: request.source,
            type: field.type,
            masked: false,
            scale: null,
          };
        }
        return {
          kind: 'a2o',
          key: request.key,
          branches,
          column: relation.column,
          collectionColumn: relation.collectionColumn,
        };
      }
    }
  }

  /** The related collection when readable; unreadable is refused unless reached by a wildcard. */
  private target(collection: string, request: Pick<FieldRequest, 'isLenient'>): CollectionOverview | undefined {
    if (!canReadCollection(this.ctx.access, collection)) {
      if (request.isLenient) return undefined;
      throw new ForbiddenError();
    }
    return requireCollection(this.ctx.overview, collection);
  }

  /** m2o and a2o rows: the row permission and `deep[<field>][_filter]`; failing rows read as null. */
  private relatedFilter(target: CollectionOverview, nested: NestedQuery | undefined): Condition | null {
    return andConditions(
      buildRowFilter(this.ctx, target.collection),
      nested?.filter === undefined ? null : buildCondition(this.ctx, target.collection, nested.filter),
    );
  }
}
