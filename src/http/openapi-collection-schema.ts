import type { CollectionOverview, FieldType } from '../../catalog/overview/types.js';
import type { CollectionTypes } from '../graphql/index.js';
import type { Json } from './openapi-describe.js';

// The OpenAPI document's component schemas of the collections (openapi.ts).

/**
 * An item's schema: the readable fields with their OpenAPI types; a relation to a collection
 * the role reads is its key or the related item, one to a collection it does not is the key
 * (many-to-one) or absent (one-to-many), as in the GraphQL types.
 */
export function collectionSchema(
  types: CollectionTypes,
  collection: CollectionOverview,
  names: ReadonlyMap<string, string>,
): Json {
  const properties: Json = {};
  const keyOf = (name: string) => {
    const target = types.overview.collections[name];
    const key = target?.fields[target.primary];
    return key === undefined ? {} : fieldType(key.type);
  };
  const refOf = (name: string) => schemaRef(names.get(name) ?? name);
  for (const field of types.readableFields(collection.collection)) {
    const relation = types.relationOf(collection.collection, field.field);
    if (relation?.kind === 'm2o' && types.isItemCollection(relation.related)) {
      properties[field.field] = { nullable: field.nullable, oneOf: [keyOf(relation.related), refOf(relation.related)] };
      continue;
    }
    if (relation?.kind === 'o2m') {
      if (types.isItemCollection(relation.related)) {
        properties[field.field] = {
          type: 'array',
          nullable: true,
          items: { oneOf: [keyOf(relation.related), refOf(relation.related)] },
        };
      }
      continue;
    }
    if (relation?.kind === 'a2o') {
      const members = relation.allowed.filter((c) => types.isItemCollection(c));
      properties[field.field] = { nullable: field.nullable, oneOf: [{ type: 'string' }, ...members.map(refOf)] };
      continue;
    }
    if (field.isAlias) continue;
    properties[field.field] = {
      ...fieldType(field.type),
      ...(field.nullable && !field.isPrimaryKey ? { nullable: true } : {}),
    };
  }
  return { type: 'object', 'x-collection': collection.collection, properties };
}

/** The GraphQL field type mapping (graphql/field-scalars.ts), in OpenAPI words. */
function fieldType(type: FieldType): Json {
  switch (type) {
    case 'integer':
      return { type: 'integer' };
    case 'bigInteger':
      return { type: 'integer', format: 'int64' };
    case 'float':
      return { type: 'number', format: 'float' };
    case 'decimal':
      return { type: 'number' };
    case 'boolean':
      return { type: 'boolean' };
    case 'date':
      return { type: 'string', format: 'date' };
    case 'dateTime':
    case 'timestamp':
      return { type: 'string', format: 'date-time' };
    case 'time':
      return { type: 'string', format: 'time' };
    case 'uuid':
      return { type: 'string', format: 'uuid' };
    case 'csv':
      return { type: 'array', items: { type: 'string' } };
    case 'json':
    case 'unknown':
      return {};
    case 'string':
    case 'text':
    case 'hash':
    case 'binary':
    case 'geometry':
    case 'alias':
      return { type: 'string' };
  }
}

/** Component names: `Items<Name>` for user collections, `<Name>` for system ones (svc_users → Users); unique. */
export function schemaNames(collections: readonly CollectionOverview[]): Map<string, string> {
  const names = new Map<string, string>();
  const taken = new Set<string>(['Error']);
  for (const collection of collections) {
    const base = collection.isSystem
      ? pascal(collection.collection.replace(/^svc_/, ''))
      : `Items${pascal(collection.collection)}`;
    let name = base;
    for (let n = 2; taken.has(name); n++) name = `${base}${n}`;
    taken.add(name);
    names.set(collection.collection, name);
  }
  return names;
}

export function pascal(text: string): string {
  const words = text.split(/[^A-Za-z0-9]+/).filter((w) => w !== '');
  return words.map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('') || 'Collection';
}

export function schemaRef(name: string): Json {
  return { $ref: `#/components/schemas/${name}` };
}
