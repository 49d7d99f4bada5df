import {
  BREAK,
  getArgumentValues,
  getNamedType,
  getOperationAST,
  getVariableValues,
  isObjectType,
  Kind,
  OperationTypeNode,
  TypeInfo,
  visit,
  visitWithTypeInfo,
  type DocumentNode,
  type ExecutionArgs,
  type FragmentDefinitionNode,
  type GraphQLSchema,
} from 'graphql';
import type { SchemaOverview } from '../../catalog/overview/types.js';
import { deepFreeze, type Query } from '../query/index.js';
import type { GraphqlContext } from './context.js';
import { rootFieldNames } from './prepare-operation.js';
import { SelectionWalker } from './selection.js';
import './type-meta.js';

/**
 * A query's answer written by the database (issue 43): when every root field of the operation
 * reads a collection's items (`C`, `C_by_id`) and nothing in the document asks graphql-js for
 * more than the items' values and their types' names (no introspection), each root field's items come from
 * PostgreSQL as JSON text in GraphQL's form (readItemsJson, `graphql`: ids as text, decimals as
 * numbers, keys the response keys in selection order) and the answer is
 * `{"data":{"<key>":<text>,...}}`, with no execution, no tree of values and no stringify.
 * The items are read as the resolvers read them (SelectionWalker, the items services), so the
 * permissions, limits and arguments are the same; what the text holds is what graphql-js would
 * have serialised. Null where this is not so: graphql-js executes the operation then, and
 * answers any error (the reads run again, with nothing observable twice: no read handler listens
 * on a read that gets here).
 */
export async function answerAsJson(args: ExecutionArgs): Promise<string | null> {
  const { schema, document } = args;
  const operationName = args.operationName ?? undefined;
  if (!isPlainRead(schema, document, operationName)) return null;
  // What the resolvers read with (context.ts); the read side and the items services are all it uses.
  const ctx = args.contextValue as Pick<GraphqlContext, 'read' | 'items'>;
  try {
    const reads = plannedReads(schema, document, operationName, args.variableValues, ctx.read.overview);
    if (reads === null) return null;
    const texts = await Promise.all(
      reads.map((read) => ctx.items(read.collection).readGraphqlText(read.query, read.id)),
    );
    if (texts.some((text) => text === null)) {
      notPlain(document, operationName);
      return null;
    }
    return `{"data":{${reads.map((read, i) => `${read.keyJson}:${texts[i] ?? 'null'}`).join(',')}}}`;
  } catch {
    // Arguments that do not hold, an item that is not there, a number with no JSON form: graphql-js
    // executes the operation and answers the error in its terms.
    return null;
  }
}

/** One root field's read: its response key (as JSON), its collection's query, the key of a by-id field. */
interface RootRead {
  readonly keyJson: string;
  readonly collection: string;
  readonly query: Query;
  readonly id: string | undefined;
}

/**
 * The root fields' reads of an operation, planned once per document (each schema, a role's at
 * one schema version, parses its own: prepare-operation.ts), operation and variables, and shared,
 * frozen, by the requests that send them again (a dashboard's): the selection walk, the arguments
 * and the variables' coercion are the same each time, and a frozen query's statement is looked up
 * without writing its JSON again (remembered-reads.ts). Null where graphql-js runs the operation.
 * A plan that throws (arguments that do not hold) is not kept: the error is graphql-js's to answer.
 */
const plans = new WeakMap<DocumentNode, Map<string, readonly RootRead[] | null>>();
/** Distinct operations and variables planned per document; the oldest is forgotten first. */
const MAX_PLANS = 100;

function plannedReads(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | undefined,
  variables: ExecutionArgs['variableValues'],
  overview: SchemaOverview,
): readonly RootRead[] | null {
  let known = plans.get(document);
  if (known === undefined) plans.set(document, (known = new Map<string, readonly RootRead[] | null>()));
  const id = `${operationName ?? ''}\u0000${JSON.stringify(variables ?? {})}`;
  let reads = known.get(id);
  if (reads === undefined) {
    reads = deepFreeze(planReads(schema, document, operationName, variables, overview));
    if (known.size >= MAX_PLANS) known.delete(known.keys().next().value as string);
    known.set(id, reads);
  }
  return reads;
}

/** The reads of {@link plannedReads}, worked out: null where graphql-js runs the operation. */
function planReads(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | undefined,
  variables: ExecutionArgs['variableValues'],
  overview: SchemaOverview,
): RootRead[] | null {
  const operation = getOperationAST(document, operationName);
  if (operation === null || operation === undefined) return null;
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], variables ?? {});
  if (coerced.errors !== undefined) return null;
  const variableValues = coerced.coerced;
  const walker = new SelectionWalker({ schema, fragments: fragmentsOf(document), variableValues }, overview, true);
  const query = schema.getQueryType();
  if (query === null || query === undefined) return null;
  const fields = query.getFields();
  // Every root field's read is planned before any runs: a field graphql-js must run runs them all.
  const reads: RootRead[] = [];
  const byId = new Set<string>();
  for (const [key, nodes] of walker.collect(query, [operation])) {
    const [node] = nodes;
    const field = node === undefined ? undefined : fields[node.name.value];
    const root = field?.extensions.svcRoot;
    const type = field === undefined ? undefined : getNamedType(field.type);
    if (node === undefined || field === undefined || root === undefined || !isObjectType(type)) return null;
    const values = getArgumentValues(field, node, variableValues);
    const keyJson = JSON.stringify(key);
    const { collection } = root;
    if (root.kind === 'list') {
      reads.push({ keyJson, collection, query: walker.rootQuery(type, nodes, values, field), id: undefined });
      continue;
    }
    // as_of and version read history and versions: graphql-js runs those.
    if (values['as_of'] != null || values['version'] != null) return null;
    const selection = walker.rootQuery(type, nodes, {}, field);
    // By-id fields of one collection and selection share one statement (item-loaders.ts) there.
    const batch = `${collection}\u0000${JSON.stringify(selection)}`;
    if (byId.has(batch)) return null;
    byId.add(batch);
    reads.push({ keyJson, collection, query: selection, id: String(values['id']) });
  }
  return reads;
}

/** Per document and operation: whether its answer can be written by the database (see above). */
const plainReads = new WeakMap<DocumentNode, Map<string | undefined, boolean>>();

function isPlainRead(schema: GraphQLSchema, document: DocumentNode, operationName: string | undefined): boolean {
  let known = plainReads.get(document);
  if (known === undefined) {
    known = new Map();
    plainReads.set(document, known);
  }
  let plain = known.get(operationName);
  if (plain === undefined) {
    plain = readsItemsOnly(schema, document, operationName);
    known.set(operationName, plain);
  }
  return plain;
}

/** The database could not write a root field's answer: graphql-js executes this operation from now on. */
function notPlain(document: DocumentNode, operationName: string | undefined): void {
  plainReads.get(document)?.set(operationName, false);
}

/**
 * A query whose root fields are all `C` or `C_by_id`, asking for no meta field anywhere but
 * `__typename` of an item type (a read's constant: SelectionWalker), as Apollo Client adds to
 * every selection set; not of the query type, a union or a function's type.
 */
function readsItemsOnly(schema: GraphQLSchema, document: DocumentNode, operationName: string | undefined): boolean {
  const operation = getOperationAST(document, operationName);
  const fields = schema.getQueryType()?.getFields();
  if (operation?.operation !== OperationTypeNode.QUERY || fields === undefined) return false;
  if (!rootFieldNames(document, operationName).every((name) => fields[name]?.extensions.svcRoot !== undefined))
    return false;
  let asksMeta = false;
  const types = new TypeInfo(schema);
  visit(
    document,
    visitWithTypeInfo(types, {
      Field(node) {
        if (!node.name.value.startsWith('__')) return undefined;
        const parent = types.getParentType();
        if (node.name.value === '__typename' && isObjectType(parent) && parent.extensions.svcCollection !== undefined)
          return undefined;
        asksMeta = true;
        return BREAK;
      },
    }),
  );
  return !asksMeta;
}

function fragmentsOf(document: DocumentNode): Record<string, FragmentDefinitionNode> {
  const fragments: Record<string, FragmentDefinitionNode> = {};
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments[definition.name.value] = definition;
  }
  return fragments;
}
