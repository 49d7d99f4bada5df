import {
  getOperationAST,
  GraphQLError,
  Kind,
  NoSchemaIntrospectionCustomRule,
  parse,
  specifiedRules,
  validate,
  type ASTVisitor,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  type OperationTypeNode,
  type SelectionSetNode,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';
import type { Config } from '../config/index.js';
import { GraphqlExecutionError, GraphqlValidationError } from '../errors.js';
import { MAX_DOCUMENT_DEPTH, nestsDeeperThan, tooDeepMessage } from '../query/index.js';
import { queryCostRule, type QueryCostLimits } from './query-cost.js';

export interface OperationLimits {
  /** GRAPHQL_QUERY_TOKEN_LIMIT */
  readonly tokenLimit: number;
  /** Fields nested below a root field, as MAX_RELATIONAL_DEPTH allows for a REST `fields` path. */
  readonly maxDepth: number;
  /** GRAPHQL_INTROSPECTION */
  readonly introspection: boolean;
  /** GRAPHQL_QUERY_COST_LIMIT, GRAPHQL_QUERY_ALIAS_LIMIT and the list sizes they count with. */
  readonly cost: QueryCostLimits;
}

/**
 * The limits of the configuration. `extraDepth`: the levels a document may nest beyond a REST
 * `fields` path's MAX_RELATIONAL_DEPTH (the function and aggregate objects; a subscription's
 * payload object).
 */
export function configuredLimits(config: Config, extraDepth: number): OperationLimits {
  return {
    tokenLimit: config.graphqlQueryTokenLimit,
    maxDepth: config.maxRelationalDepth + extraDepth,
    introspection: config.graphqlIntrospection,
    cost: {
      costLimit: config.graphqlQueryCostLimit,
      aliasLimit: config.graphqlQueryAliasLimit,
      queryLimitDefault: config.queryLimitDefault,
      queryLimitMax: config.queryLimitMax,
    },
  };
}

export interface PreparedOperation {
  readonly document: DocumentNode;
  readonly operation: OperationTypeNode;
}

/** Valid documents kept per schema: a client repeats its few queries, each parsed and validated once. */
const DOCUMENTS_PER_SCHEMA = 500;

/**
 * {@link prepareOperation} with the valid documents of each schema remembered (parsing and
 * validating cost more than a simple read's execution). Keyed by the schema object, so a
 * role's documents go with its schema when the schema version moves.
 */
export class OperationPreparer {
  readonly #documents = new WeakMap<GraphQLSchema, Map<string, DocumentNode>>();

  constructor(private readonly limits: OperationLimits) {}

  prepare(
    schema: GraphQLSchema,
    query: string,
    operationName: string | undefined,
    variables: Readonly<Record<string, unknown>> | undefined,
  ): PreparedOperation {
    let documents = this.#documents.get(schema);
    if (documents === undefined) {
      documents = new Map();
      this.#documents.set(schema, documents);
    }
    const known = documents.get(query);
    if (known !== undefined) {
      // The cost depends on the variables: counted again for every request that has any.
      if (hasVariables(known)) assertValid(schema, known, [queryCostRule(this.limits.cost, variables)]);
      return { document: known, operation: operationOf(schema, known, operationName) };
    }
    const prepared = prepareOperation(schema, query, operationName, this.limits, variables);
    if (documents.size >= DOCUMENTS_PER_SCHEMA) documents.delete(documents.keys().next().value as string);
    documents.set(query, prepared.document);
    return prepared;
  }
}

/**
 * Parses and validates a document against the caller's schema before anything runs:
 * syntax errors, unknown fields (those the role may not use do not
 * exist), more tokens than the limit, selections nested deeper than the limit and operations
 * costing more than the limits (query-cost.ts; a `limit` variable counts at its value in
 * `variables`) are 400 GRAPHQL_VALIDATION; a document without the operation to run is 400
 * GRAPHQL_EXECUTION.
 */
function prepareOperation(
  schema: GraphQLSchema,
  query: string,
  operationName: string | undefined,
  limits: OperationLimits,
  variables?: Readonly<Record<string, unknown>>,
): PreparedOperation {
  let document: DocumentNode;
  // graphql-js parses recursively, one call per level: refused before it starts.
  if (nestsDeeperThan(query, MAX_DOCUMENT_DEPTH, 'graphql')) {
    throw new GraphqlValidationError([{ message: tooDeepMessage('The GraphQL document') }]);
  }
  try {
    document = parse(query, { maxTokens: limits.tokenLimit });
  } catch (error) {
    if (error instanceof GraphQLError) throw new GraphqlValidationError([plainError(error)]);
    throw error;
  }
  const rules: ValidationRule[] = [
    ...specifiedRules,
    depthLimitRule(limits.maxDepth),
    queryCostRule(limits.cost, variables),
  ];
  if (!limits.introspection) rules.push(NoSchemaIntrospectionCustomRule);
  assertValid(schema, document, rules);
  return { document, operation: operationOf(schema, document, operationName) };
}

/** Whether an operation of the document declares variables (a document without any costs the same every time). */
function hasVariables(document: DocumentNode): boolean {
  return document.definitions.some(
    (definition) => definition.kind === Kind.OPERATION_DEFINITION && (definition.variableDefinitions?.length ?? 0) > 0,
  );
}

function assertValid(schema: GraphQLSchema, document: DocumentNode, rules: readonly ValidationRule[]): void {
  const errors = validate(schema, document, rules);
  if (errors.length > 0) throw new GraphqlValidationError(errors.map(plainError));
}

/**
 * The kind of the operation to run; a document without it is GRAPHQL_EXECUTION. A mutation
 * (or subscription) where the caller's schema has none (the public role without write
 * permissions) is GRAPHQL_VALIDATION: graphql-js's validation lets it pass and its execution
 * fails outside any resolver, which would read as an unexpected error.
 */
function operationOf(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | undefined,
): OperationTypeNode {
  const operation = getOperationAST(document, operationName);
  if (operation === null || operation === undefined) {
    const message =
      operationName === undefined
        ? 'Must provide operation name if query contains multiple operations.'
        : `Unknown operation named "${operationName}".`;
    throw new GraphqlExecutionError([{ message }]);
  }
  if (schema.getRootType(operation.operation) === undefined) {
    throw new GraphqlValidationError([
      plainError(
        new GraphQLError(`Schema is not configured to execute ${operation.operation} operation.`, { nodes: operation }),
      ),
    ]);
  }
  return operation.operation;
}

/**
 * The names of the root fields the operation to run selects (through fragments too), e.g.
 * `activity`, `users_by_id`; empty when the document has no such operation.
 */
export function rootFieldNames(document: DocumentNode, operationName: string | undefined): string[] {
  const operation = getOperationAST(document, operationName);
  if (operation === null || operation === undefined) return [];
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  return rootFields(operation.selectionSet, fragments, new Set()).map((field) => field.name.value);
}

/** graphql-js errors as Directus 10 lists them inside `extensions.errors`. */
export function plainError(error: GraphQLError): { message: string; locations?: readonly unknown[] } {
  return error.locations === undefined
    ? { message: error.message }
    : { message: error.message, locations: error.locations };
}

/**
 * Refuses selections nested more than `maxDepth` fields below a root field (introspection
 * excepted: it reads the schema, not the database), following fragments.
 */
function depthLimitRule(maxDepth: number): ValidationRule {
  return (context: ValidationContext): ASTVisitor => {
    const fragments = new Map<string, FragmentDefinitionNode>();
    for (const definition of context.getDocument().definitions) {
      if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
    }
    // A fragment's depth is measured once: walking every spread again is exponential in a
    // chain of fragments spreading the next one twice.
    const fragmentDepths = new Map<string, number>();
    const depthOf = (set: SelectionSetNode | undefined, seen: ReadonlySet<string>): number => {
      if (set === undefined) return 0;
      let depth = 0;
      for (const selection of set.selections) {
        if (selection.kind === Kind.FIELD) {
          depth = Math.max(depth, selection.selectionSet === undefined ? 1 : 1 + depthOf(selection.selectionSet, seen));
        } else if (selection.kind === Kind.INLINE_FRAGMENT) {
          depth = Math.max(depth, depthOf(selection.selectionSet, seen));
        } else if (!seen.has(selection.name.value)) {
          const name = selection.name.value;
          let fragmentDepth = fragmentDepths.get(name);
          if (fragmentDepth === undefined) {
            fragmentDepth = depthOf(fragments.get(name)?.selectionSet, new Set([...seen, name]));
            fragmentDepths.set(name, fragmentDepth);
          }
          depth = Math.max(depth, fragmentDepth);
        }
        if (depth > maxDepth) return depth;
      }
      return depth;
    };
    return {
      OperationDefinition(operation) {
        for (const root of rootFields(operation.selectionSet, fragments, new Set())) {
          if (root.name.value.startsWith('__')) continue;
          if (depthOf(root.selectionSet, new Set()) > maxDepth) {
            context.reportError(
              new GraphQLError(`Max query depth exceeded: "${root.name.value}" nests more than ${maxDepth} levels.`, {
                nodes: root,
              }),
            );
          }
        }
      },
    };
  };
}

function rootFields(
  set: SelectionSetNode,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  seen: Set<string>,
): FieldNode[] {
  return set.selections.flatMap((selection) => {
    if (selection.kind === Kind.FIELD) return [selection];
    if (selection.kind === Kind.INLINE_FRAGMENT) return rootFields(selection.selectionSet, fragments, seen);
    const fragment = fragments.get(selection.name.value);
    if (fragment === undefined || seen.has(selection.name.value)) return [];
    seen.add(selection.name.value);
    return rootFields(fragment.selectionSet, fragments, seen);
  });
}
