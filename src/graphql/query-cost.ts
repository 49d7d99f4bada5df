import {
  getNamedType,
  getNullableType,
  GraphQLError,
  isInterfaceType,
  isListType,
  isObjectType,
  Kind,
  valueFromASTUntyped,
  type ASTVisitor,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLNamedType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';

export interface QueryCostLimits {
  /** GRAPHQL_QUERY_COST_LIMIT: the most rows an operation may ask for (see {@link queryCostRule}). */
  readonly costLimit: number;
  /** GRAPHQL_QUERY_ALIAS_LIMIT: the most aliased fields an operation may have. */
  readonly aliasLimit: number;
  /** QUERY_LIMIT_DEFAULT: the rows of a list without `limit`. */
  readonly queryLimitDefault: number;
  /** QUERY_LIMIT_MAX: the rows of `limit: -1` when finite. */
  readonly queryLimitMax: number;
}

/**
 * The rows one level of a selection is budgeted at across all its parents, unless its own
 * `limit` asks more: a related row belongs to one parent, so an o2m or junction level reads at
 * most its table, whatever the parents (tables are assumed this size; see queryCostRule).
 */
const TABLE_ROWS_BUDGET = 10_000;

interface Cost {
  /** Rows the selection may read. */
  readonly rows: number;
  /** Aliased fields, as written (a fragment counts at each spread). */
  readonly aliases: number;
}

const FREE: Cost = { rows: 0, aliases: 0 };

/**
 * Bounds the work of an operation before it runs, in rows read. A list field reads its
 * `limit` rows per parent row, as asked (QUERY_LIMIT_DEFAULT without one; for -1
 * QUERY_LIMIT_MAX, unlimited when that is), an object field one per parent row, so nested
 * lists multiply; but one level of nested rows counts at most {@link TABLE_ROWS_BUDGET} (or
 * QUERY_LIMIT_MAX when larger) across its parents, never less than its own limit. A list's
 * own limit is never counted lower than asked: `limit: 2000000000` counts 2000000000 rows
 * however small the table is today, and an unlimited list counts as unlimited, so it is
 * refused unless GRAPHQL_QUERY_COST_LIMIT is unlimited too (an unlimited read streams through
 * REST `limit=-1` instead, where memory stays flat). Every field is counted, so aliases
 * repeating a read add up; `C_aggregated` counts its groups like any list. Above
 * GRAPHQL_QUERY_COST_LIMIT rows, or GRAPHQL_QUERY_ALIAS_LIMIT aliases, the document is
 * refused (GRAPHQL_VALIDATION). A `limit` given as a variable counts at its value in
 * `variables`. Scalars and introspection read no rows.
 */
export function queryCostRule(
  limits: QueryCostLimits,
  variables: Readonly<Record<string, unknown>> | undefined,
): ValidationRule {
  return (context: ValidationContext): ASTVisitor => {
    const fragments = new Map<string, FragmentDefinitionNode>();
    for (const definition of context.getDocument().definitions) {
      if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
    }
    return {
      OperationDefinition(operation) {
        const root = context.getSchema().getRootType(operation.operation);
        if (root === undefined || root === null) return;
        const counter = new CostCounter(context.getSchema(), fragments, limits, variablesOf(operation, variables));
        const { rows, aliases } = counter.selectionCost(root, operation.selectionSet, 1);
        const name = operation.name === undefined ? 'The operation' : `Operation "${operation.name.value}"`;
        if (aliases > limits.aliasLimit) {
          context.reportError(
            new GraphQLError(`${name} has ${aliases} aliases, more than the limit of ${limits.aliasLimit}.`, {
              nodes: operation,
            }),
          );
        }
        if (rows > limits.costLimit) {
          context.reportError(
            new GraphQLError(`${name} may read ${formatRows(rows)}, more than the limit of ${limits.costLimit}.`, {
              nodes: operation,
            }),
          );
        }
      },
    };
  };
}

/** The request's variables, with the defaults of the operation's variable definitions. */
function variablesOf(
  operation: OperationDefinitionNode,
  given: Readonly<Record<string, unknown>> | undefined,
): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const definition of operation.variableDefinitions ?? []) {
    const name = definition.variable.name.value;
    if (given !== undefined && Object.hasOwn(given, name)) values[name] = given[name];
    else if (definition.defaultValue !== undefined) values[name] = valueFromASTUntyped(definition.defaultValue);
  }
  return values;
}

function formatRows(rows: number): string {
  return Number.isFinite(rows) ? `${rows} rows` : 'unlimited rows (a list with `limit: -1`)';
}

class CostCounter {
  /** Per fragment and parent rows, its cost once: a fragment spread many times is not walked again. */
  readonly #fragmentCosts = new Map<string, Cost>();
  readonly #walking = new Set<string>();
  readonly #tableRows: number;

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly fragments: ReadonlyMap<string, FragmentDefinitionNode>,
    private readonly limits: QueryCostLimits,
    private readonly variables: Readonly<Record<string, unknown>>,
  ) {
    this.#tableRows = Number.isFinite(limits.queryLimitMax)
      ? Math.max(limits.queryLimitMax, TABLE_ROWS_BUDGET)
      : TABLE_ROWS_BUDGET;
  }

  /** The cost of `set`, selected on each of `parentRows` objects of `type` (1 for the root). */
  selectionCost(type: GraphQLNamedType, set: SelectionSetNode, parentRows: number): Cost {
    let rows = 0;
    let aliases = 0;
    for (const selection of set.selections) {
      let cost: Cost;
      if (selection.kind === Kind.FIELD) cost = this.#fieldCost(type, selection, parentRows);
      else if (selection.kind === Kind.INLINE_FRAGMENT) {
        const condition =
          selection.typeCondition === undefined ? type : this.schema.getType(selection.typeCondition.name.value);
        cost = condition === undefined ? FREE : this.selectionCost(condition, selection.selectionSet, parentRows);
      } else cost = this.#fragmentCost(selection.name.value, parentRows);
      rows += cost.rows;
      aliases += cost.aliases;
    }
    return { rows, aliases };
  }

  #fieldCost(parent: GraphQLNamedType, field: FieldNode, parentRows: number): Cost {
    const aliases = field.alias === undefined ? 0 : 1;
    // Unknown fields are other rules' errors; introspection reads the schema, not rows.
    const definition =
      isObjectType(parent) || isInterfaceType(parent) ? parent.getFields()[field.name.value] : undefined;
    if (definition === undefined || field.selectionSet === undefined || field.name.value.startsWith('__'))
      return { rows: 0, aliases };
    const perParent = isListType(getNullableType(definition.type)) ? this.#listRows(field) : 1;
    // At most a table across the parents, never less than the list's own limit (0 x Infinity is no row).
    const rows =
      parentRows === 0 || perParent === 0 ? 0 : Math.min(parentRows * perParent, Math.max(perParent, this.#tableRows));
    const below = this.selectionCost(getNamedType(definition.type), field.selectionSet, rows);
    return { rows: rows + below.rows, aliases: aliases + below.aliases };
  }

  /**
   * limit: QUERY_LIMIT_DEFAULT when absent, -1 = all (QUERY_LIMIT_MAX, Infinity when unset).
   * A limit above QUERY_LIMIT_MAX is the read's own error (INVALID_QUERY): counted at the max.
   */
  #listRows(field: FieldNode): number {
    const { queryLimitDefault, queryLimitMax } = this.limits;
    const argument = field.arguments?.find((a) => a.name.value === 'limit');
    const limit: unknown = argument === undefined ? undefined : valueFromASTUntyped(argument.value, this.variables);
    if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < -1)
      return Math.min(queryLimitDefault, queryLimitMax);
    if (limit === -1) return queryLimitMax;
    return Math.min(limit, queryLimitMax);
  }

  #fragmentCost(name: string, parentRows: number): Cost {
    const key = `${parentRows}:${name}`;
    const known = this.#fragmentCosts.get(key);
    if (known !== undefined) return known;
    const fragment = this.fragments.get(name);
    // Unknown and cyclic spreads are other rules' errors.
    if (fragment === undefined || this.#walking.has(name)) return FREE;
    const type = this.schema.getType(fragment.typeCondition.name.value);
    this.#walking.add(name);
    const cost = type === undefined ? FREE : this.selectionCost(type, fragment.selectionSet, parentRows);
    this.#walking.delete(name);
    this.#fragmentCosts.set(key, cost);
    return cost;
  }
}
