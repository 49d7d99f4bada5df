import {
  GraphQLBoolean,
  GraphQLEnumType,
  GraphQLInputObjectType,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLString,
  type GraphQLFieldConfigMap,
  type GraphQLOutputType,
} from 'graphql';
import type { CollectionOverview } from '../../catalog/overview/types.js';
import { PUBLIC_PROJECT_SETTINGS } from '../../catalog/system/definitions.js';
import { scalarOutput } from './field-scalars.js';
import { GraphQLJSON } from './scalars.js';

/**
 * The system scope's own types: the server
 * info, the REST-shaped collection, field and relation objects and the inputs of the schema
 * mutations. Values are plain API objects, so fields resolve by name.
 */

const fieldsOf = (names: readonly string[], type: GraphQLOutputType): GraphQLFieldConfigMap<unknown, unknown> =>
  Object.fromEntries(names.map((name) => [name, { type }]));

export const SERVER_INFO = new GraphQLObjectType({
  name: 'server_info',
  fields: {
    project: {
      type: new GraphQLObjectType({
        name: 'server_info_project',
        fields: {
          ...fieldsOf(PUBLIC_PROJECT_SETTINGS.text, GraphQLString),
          ...fieldsOf(PUBLIC_PROJECT_SETTINGS.boolean, GraphQLBoolean),
        },
      }),
    },
    rateLimit: { type: GraphQLBoolean },
    rateLimitGlobal: { type: GraphQLBoolean },
    websocket: { type: GraphQLBoolean },
    queryLimit: {
      type: new GraphQLObjectType({
        name: 'server_info_query_limit',
        fields: fieldsOf(['default', 'max'], GraphQLInt),
      }),
    },
    // Administrators: the default of svc_settings.export_retention (EXPORT_RETENTION), null when kept.
    exports: {
      type: new GraphQLObjectType({
        name: 'server_info_exports',
        fields: fieldsOf(['retention'], GraphQLString),
      }),
    },
  },
});

/**
 * GET /server/info's data as `server_info`: `rateLimit` and `websocket` (false or their
 * settings) as booleans.
 */
export function toServerInfo(info: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const asBoolean = (value: unknown) => (value === undefined ? null : value !== false);
  return { ...info, rateLimit: asBoolean(info['rateLimit']), websocket: asBoolean(info['websocket']) };
}

export const SDL_SCOPE = new GraphQLEnumType({ name: 'graphql_sdl_scope', values: { items: {}, system: {} } });

/** A `meta` object type: the columns of the svc_* table behind it, plus `system`. */
function metaType(name: string, table: CollectionOverview | undefined): GraphQLObjectType {
  return new GraphQLObjectType({
    name,
    fields: () => ({
      ...Object.fromEntries(
        Object.values(table?.fields ?? {})
          .filter((f) => !f.isAlias)
          .map((f) => [f.field, { type: scalarOutput(f.type) }]),
      ),
      system: { type: GraphQLBoolean },
    }),
  });
}

/** `svc_collections`, `svc_fields`, `svc_relations` as /collections, /fields and /relations show them. */
export function schemaObjectTypes(collections: Readonly<Record<string, CollectionOverview>>): {
  readonly collection: GraphQLObjectType;
  readonly field: GraphQLObjectType;
  readonly relation: GraphQLObjectType;
} {
  const collection = new GraphQLObjectType({
    name: 'svc_collections',
    fields: {
      collection: { type: GraphQLString },
      meta: { type: metaType('svc_collections_meta', collections['svc_collections']) },
      schema: {
        type: new GraphQLObjectType({
          name: 'svc_collections_schema',
          fields: fieldsOf(['name', 'comment'], GraphQLString),
        }),
      },
    },
  });
  const field = new GraphQLObjectType({
    name: 'svc_fields',
    fields: {
      ...fieldsOf(['collection', 'field', 'type'], GraphQLString),
      meta: { type: metaType('svc_fields_meta', collections['svc_fields']) },
      schema: {
        type: new GraphQLObjectType({
          name: 'svc_fields_schema',
          fields: {
            ...fieldsOf(
              [
                'name',
                'table',
                'data_type',
                'generation_expression',
                'foreign_key_table',
                'foreign_key_column',
                'comment',
              ],
              GraphQLString,
            ),
            default_value: { type: GraphQLJSON },
            ...fieldsOf(['max_length', 'numeric_precision', 'numeric_scale'], GraphQLInt),
            ...fieldsOf(
              ['is_nullable', 'is_unique', 'is_indexed', 'is_primary_key', 'is_generated', 'has_auto_increment'],
              GraphQLBoolean,
            ),
          },
        }),
      },
    },
  });
  const relation = new GraphQLObjectType({
    name: 'svc_relations',
    fields: {
      ...fieldsOf(['collection', 'field', 'related_collection'], GraphQLString),
      schema: {
        type: new GraphQLObjectType({
          name: 'svc_relations_schema',
          fields: fieldsOf(
            [
              'constraint_name',
              'table',
              'column',
              'foreign_key_schema',
              'foreign_key_table',
              'foreign_key_column',
              'on_update',
              'on_delete',
            ],
            GraphQLString,
          ),
        }),
      },
      meta: {
        type: new GraphQLObjectType({
          name: 'svc_relations_meta',
          fields: {
            id: { type: GraphQLInt },
            ...fieldsOf(
              [
                'many_collection',
                'many_field',
                'one_collection',
                'one_field',
                'one_collection_field',
                'junction_field',
                'sort_field',
                'one_deselect_action',
              ],
              GraphQLString,
            ),
            one_allowed_collections: { type: new GraphQLList(GraphQLString) },
            system: { type: GraphQLBoolean },
          },
        }),
      },
    },
  });
  return { collection, field, relation };
}

const json = { type: GraphQLJSON };
const requiredString = { type: new GraphQLNonNull(GraphQLString) };

/** The bodies of POST/PATCH /collections, /fields, /relations as inputs; the catalogue checks them. */
export const SCHEMA_INPUTS = {
  createCollection: new GraphQLInputObjectType({
    name: 'create_svc_collections_input',
    fields: { collection: requiredString, meta: json, schema: json, fields: { type: new GraphQLList(GraphQLJSON) } },
  }),
  updateCollection: new GraphQLInputObjectType({ name: 'update_svc_collections_input', fields: { meta: json } }),
  createField: new GraphQLInputObjectType({
    name: 'create_svc_fields_input',
    fields: { field: requiredString, type: { type: GraphQLString }, meta: json, schema: json },
  }),
  updateField: new GraphQLInputObjectType({
    name: 'update_svc_fields_input',
    fields: { type: { type: GraphQLString }, meta: json, schema: json },
  }),
  createRelation: new GraphQLInputObjectType({
    name: 'create_svc_relations_input',
    fields: {
      collection: requiredString,
      field: requiredString,
      related_collection: { type: GraphQLString },
      meta: json,
      schema: json,
    },
  }),
  updateRelation: new GraphQLInputObjectType({
    name: 'update_svc_relations_input',
    fields: { meta: json, schema: json },
  }),
};

export const DELETE_COLLECTION = new GraphQLObjectType({
  name: 'delete_collection',
  fields: { collection: { type: GraphQLString } },
});
export const DELETE_FIELD = new GraphQLObjectType({
  name: 'delete_field',
  fields: fieldsOf(['collection', 'field'], GraphQLString),
});
export const DELETE_RELATION = new GraphQLObjectType({
  name: 'delete_relation',
  fields: fieldsOf(['collection', 'field'], GraphQLString),
});
