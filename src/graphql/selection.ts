import {
  getArgumentValues,
  getDirectiveValues,
  getNamedType,
  GraphQLIncludeDirective,
  GraphQLSkipDirective,
  isAbstractType,
  isInputObjectType,
  isObjectType,
  isUnionType,
  Kind,
  type FieldNode,
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLResolveInfo,
  type SelectionSetNode,
} from 'graphql';
import type { SchemaOverview } from '../../catalog/overview/types.js';
import { invariant } from '../errors.js';
import { parseQuery, setOwn, type NestedQuery, type Query } from '../query/index.js';
import { toFilter } from './input-values.js';
import { collectionKey, functionAlias, PROBE_FIELD } from './item-values.js';
import './type-meta.js';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** What one level of a selection asks for, in the read side's terms. */
export interface LevelSelection {
  readonly fields: string[];
  readonly alias: Record<string, string>;
  readonly deep: Record<string, NestedQuery>;
  /** `__typename` by response key: the level's type name, a constant of the read (NestedQuery.constants). */
  readonly constants: Record<string, string>;
}

type WalkInfo = Pick<GraphQLResolveInfo, 'schema' | 'fragments' | 'variableValues'>;

/**
 * Turns a root field's whole selection set into one `Query` (one root
 * field, one statement): each selected field becomes a `fields` path keyed by its response
 * key (`alias` maps it to the field when they differ), arguments of relational fields become
 * `deep`, many-to-any fragments become `item:<collection>` scopes. Fragments, `@skip` and
 * `@include` are honoured as graphql-js executes them. With `typenames`, an item type's
 * `__typename` is read too, as a constant of its level (for answers the database writes whole,
 * json-answer.ts); without, it is left to graphql-js.
 */
export class SelectionWalker {
  constructor(
    private readonly info: WalkInfo,
    private readonly overview: SchemaOverview,
    private readonly typenames = false,
  ) {}

  /** The query of a root field returning items of `type`, with the field's arguments. */
  rootQuery(
    type: GraphQLObjectType,
    nodes: readonly FieldNode[],
    args: Readonly<Record<string, unknown>>,
    field: GraphQLField<unknown, unknown>,
  ): Query {
    return { ...argumentQuery(field, args), ...levelQuery(this.#nested(type, nodes)) };
  }

  /** One level: the fields of `type` the nodes select. */
  level(type: GraphQLObjectType, nodes: readonly FieldNode[]): LevelSelection {
    const selection: LevelSelection = { fields: [], alias: {}, deep: {}, constants: {} };
    const fieldDefs = type.getFields();
    for (const [key, fieldNodes] of this.collect(type, nodes)) {
      const [first] = fieldNodes;
      if (this.typenames && first?.name.value === '__typename') {
        selection.fields.push(key);
        setOwn(selection.constants, key, type.name);
        continue;
      }
      const def = first === undefined ? undefined : fieldDefs[first.name.value];
      const meta = def?.extensions.svcField;
      if (first === undefined || def === undefined || meta === undefined) continue;
      switch (meta.kind) {
        case 'value':
          this.#select(selection, key, meta.field);
          break;
        case 'm2o':
        case 'o2m': {
          const target = getNamedType(def.type);
          invariant(isObjectType(target), `${type.name}.${def.name} is an item type`);
          const nested = this.#nested(target, fieldNodes);
          this.#select(selection, key, meta.field, nested.fields);
          const query = {
            ...argumentQuery(def, getArgumentValues(def, first, this.info.variableValues)),
            ...levelQuery(nested),
          };
          if (Object.keys(query).length > 0) selection.deep[key] = query;
          break;
        }
        case 'a2o': {
          const union = getNamedType(def.type);
          invariant(isUnionType(union), `${type.name}.${def.name} is a union`);
          for (const member of union.getTypes()) {
            const collection = member.extensions.svcCollection;
            invariant(collection !== undefined, `${member.name} is an item type`);
            const nested = this.#nested(member, fieldNodes);
            selection.fields.push(...nested.fields.map((path) => `${key}:${collection}.${path}`));
            const query = levelQuery(nested);
            if (Object.keys(query).length > 0) selection.deep[`${key}:${collection}`] = query;
          }
          if (key !== meta.field) selection.alias[key] = meta.field;
          this.#select(selection, collectionKey(key), meta.collectionField);
          break;
        }
        case 'function': {
          const alias = functionAlias(key);
          selection.alias[alias] = meta.field;
          const functions = getNamedType(def.type);
          invariant(isObjectType(functions), `${type.name}.${def.name} is a function type`);
          for (const [, fnNodes] of this.collect(functions, fieldNodes)) {
            const fn = fnNodes[0]?.name.value;
            if (fn !== undefined && !fn.startsWith('__')) selection.fields.push(`${fn}(${alias})`);
          }
          break;
        }
        case 'aggregate':
          break;
      }
    }
    return selection;
  }

  /**
   * The fields the nodes' (or an operation's) selection sets select on `type`, by response key, in document order
   * (graphql-js CollectFields: same key = same field, merged).
   */
  collect(
    type: GraphQLObjectType,
    nodes: readonly { readonly selectionSet?: SelectionSetNode }[],
  ): Map<string, FieldNode[]> {
    const fields = new Map<string, FieldNode[]>();
    const visited = new Set<string>();
    for (const node of nodes) {
      if (node.selectionSet !== undefined) this.#collectSet(type, node.selectionSet, fields, visited);
    }
    return fields;
  }

  #collectSet(
    type: GraphQLObjectType,
    set: SelectionSetNode,
    fields: Map<string, FieldNode[]>,
    visited: Set<string>,
  ): void {
    for (const selection of set.selections) {
      if (!this.#isIncluded(selection)) continue;
      switch (selection.kind) {
        case Kind.FIELD: {
          const key = selection.alias?.value ?? selection.name.value;
          const list = fields.get(key);
          if (list === undefined) fields.set(key, [selection]);
          else list.push(selection);
          break;
        }
        case Kind.INLINE_FRAGMENT:
          if (this.#matches(type, selection.typeCondition?.name.value))
            this.#collectSet(type, selection.selectionSet, fields, visited);
          break;
        case Kind.FRAGMENT_SPREAD: {
          const name = selection.name.value;
          if (visited.has(name)) break;
          visited.add(name);
          const fragment = this.info.fragments[name];
          if (fragment !== undefined && this.#matches(type, fragment.typeCondition.name.value)) {
            this.#collectSet(type, fragment.selectionSet, fields, visited);
          }
          break;
        }
      }
    }
  }

  #isIncluded(node: Parameters<typeof getDirectiveValues>[1]): boolean {
    if (getDirectiveValues(GraphQLSkipDirective, node, this.info.variableValues)?.['if'] === true) return false;
    return getDirectiveValues(GraphQLIncludeDirective, node, this.info.variableValues)?.['if'] !== false;
  }

  #matches(type: GraphQLObjectType, condition: string | undefined): boolean {
    if (condition === undefined) return true;
    const conditionType = this.info.schema.getType(condition);
    if (conditionType === type) return true;
    return (
      conditionType !== undefined && isAbstractType(conditionType) && this.info.schema.isSubType(conditionType, type)
    );
  }

  /** A level to read; one that selects no field of its own reads a probe, so the row is still read. */
  #nested(type: GraphQLObjectType, nodes: readonly FieldNode[]): LevelSelection {
    const nested = this.level(type, nodes);
    if (nested.fields.length === 0) {
      nested.fields.push(PROBE_FIELD);
      nested.alias[PROBE_FIELD] = this.probeField(type);
    }
    return nested;
  }

  #select(selection: LevelSelection, key: string, field: string, subpaths?: readonly string[]): void {
    if (key !== field) selection.alias[key] = field;
    if (subpaths === undefined) selection.fields.push(key);
    else selection.fields.push(...subpaths.map((path) => `${key}.${path}`));
  }

  /** The primary key when the type shows it, else its first plain field. */
  probeField(type: GraphQLObjectType): string {
    const collection = type.extensions.svcCollection;
    const primary = collection === undefined ? undefined : this.overview.collections[collection]?.primary;
    const values = Object.values(type.getFields()).flatMap((f) => {
      const meta = f.extensions.svcField;
      return meta?.kind === 'value' ? [meta.field] : [];
    });
    const probe = values.find((f) => f === primary) ?? values[0];
    invariant(probe !== undefined, `${type.name} has a plain field`);
    return probe;
  }
}

/** `alias` and `deep` of a level, when it has any. */
export function levelQuery(level: LevelSelection): Query {
  const query: Mutable<Query> = { fields: level.fields };
  if (Object.keys(level.alias).length > 0) query.alias = level.alias;
  if (Object.keys(level.deep).length > 0) query.deep = level.deep;
  if (Object.keys(level.constants).length > 0) query.constants = level.constants;
  return query;
}

const ARGUMENT_PARAMETERS = ['sort', 'limit', 'offset', 'page', 'search', 'groupBy'] as const;

/**
 * filter, sort, limit, offset, page, search (and groupBy) arguments as a query, checked by
 * the read side's parser so the INVALID_QUERY reasons are REST's.
 */
export function argumentQuery(field: GraphQLField<unknown, unknown>, args: Readonly<Record<string, unknown>>): Query {
  const raw: Record<string, unknown> = {};
  for (const name of ARGUMENT_PARAMETERS) {
    const value = args[name];
    if (value !== null && value !== undefined) raw[name] = value;
  }
  const filter = args['filter'];
  if (filter !== null && filter !== undefined) {
    const type = field.args.find((a) => a.name === 'filter')?.type;
    const filterType = type === undefined ? undefined : getNamedType(type);
    invariant(isInputObjectType(filterType), `${field.name}(filter) is a filter input`);
    raw['filter'] = toFilter(filterType, filter as Readonly<Record<string, unknown>>);
  }
  const { fields: _fields, ...query } = parseQuery(raw);
  return query;
}
