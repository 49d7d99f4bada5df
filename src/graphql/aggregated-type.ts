import { GraphQLFloat, GraphQLInt, GraphQLObjectType, type GraphQLFieldConfig, type GraphQLOutputType } from 'graphql';
import type { FieldOverview, FieldType } from '../../catalog/overview/types.js';
import type { GraphqlContext } from './context.js';
import { toGraphqlName } from './names.js';
import { GraphQLJSON } from './scalars.js';

type Item = Readonly<Record<string, unknown>>;
type FieldConfig = GraphQLFieldConfig<Item, GraphqlContext>;

const NUMERIC_TYPES: ReadonlySet<FieldType> = new Set(['integer', 'bigInteger', 'float', 'decimal']);

/**
 * `C_aggregated`: `group`, `countAll`, `count`/`countDistinct` with one
 * Int per field, the numeric functions with one Float per numeric field. Values are read by
 * function and field name (query-resolvers.ts shapes the rows so). `readable`: the fields the
 * role reads.
 */
export function aggregatedType(name: string, readable: readonly FieldOverview[]): GraphQLObjectType {
  const plain = readable.filter((f) => !f.isAlias);
  const numeric = plain.filter((f) => NUMERIC_TYPES.has(f.type));
  const perField = (typeName: string, list: readonly FieldOverview[], type: GraphQLOutputType) =>
    new GraphQLObjectType<Item, GraphqlContext>({
      name: typeName,
      fields: () =>
        Object.fromEntries(
          list.map((f) => [
            toGraphqlName(f.field),
            {
              type,
              resolve: (values: Item) => values[f.field],
              extensions: { svcField: { kind: 'aggregate', field: f.field } },
            } satisfies FieldConfig,
          ]),
        ),
    });
  const count = perField(`${name}_aggregated_count`, plain, GraphQLInt);
  const fields: Record<string, FieldConfig> = {
    group: { type: GraphQLJSON },
    countAll: { type: GraphQLInt },
    count: { type: count },
    countDistinct: { type: count },
  };
  if (numeric.length > 0) {
    const values = perField(`${name}_aggregated_fields`, numeric, GraphQLFloat);
    for (const fn of ['avg', 'sum', 'avgDistinct', 'sumDistinct', 'min', 'max']) fields[fn] = { type: values };
  }
  return new GraphQLObjectType<Item, GraphqlContext>({ name: `${name}_aggregated`, fields });
}
