import type {
  CollectionOverview,
  FieldOverview,
  FieldType,
  RelationOverview,
  SchemaOverview,
} from '../../../catalog/overview/types.js';

/**
 * A schema overview for compiler and AST tests: articles with every relation kind
 * (m2o author → authors → countries, o2m comments, m2m categories through
 * articles_categories, m2a sections through articles_sections into headings and texts).
 */

type FieldOptions = Partial<Omit<FieldOverview, 'field' | 'type'>>;

export function field(name: string, type: FieldType, options: FieldOptions = {}): FieldOverview {
  return {
    field: name,
    type,
    dbType: type === 'alias' ? null : type,
    special: [],
    defaultValue: null,
    nullable: true,
    maxLength: null,
    precision: null,
    scale: null,
    isPrimaryKey: false,
    isGenerated: false,
    hasAutoIncrement: false,
    generationExpression: null,
    comment: null,
    isUnique: false,
    isIndexed: false,
    isAlias: type === 'alias',
    required: false,
    validation: null,
    validationMessage: null,
    sort: null,
    meta: null,
    ...options,
  };
}

const id = (): FieldOverview => field('id', 'integer', { isPrimaryKey: true, isGenerated: true, nullable: false });

export function collection(
  name: string,
  fields: readonly FieldOverview[],
  options: Partial<Omit<CollectionOverview, 'collection' | 'fields'>> = {},
): CollectionOverview {
  return {
    collection: name,
    primary: fields.find((f) => f.isPrimaryKey)?.field ?? 'id',
    singleton: false,
    sortField: null,
    accountability: 'all',
    isSystem: false,
    meta: null,
    comment: null,
    fields: Object.fromEntries(fields.map((f) => [f.field, f])),
    ...options,
  };
}

export function relation(
  many: string,
  manyField: string,
  one: string | null,
  meta: Partial<NonNullable<RelationOverview['meta']>> = {},
): RelationOverview {
  return {
    collection: many,
    field: manyField,
    relatedCollection: one,
    meta: {
      id: null,
      oneField: null,
      oneCollectionField: null,
      oneAllowedCollections: null,
      junctionField: null,
      sortField: null,
      oneDeselectAction: 'nullify',
      ...meta,
    },
    schema: null,
  };
}

export const FIXTURE_OVERVIEW: SchemaOverview = {
  version: 1,
  collections: {
    articles: collection('articles', [
      id(),
      field('status', 'string', { defaultValue: 'draft' }),
      field('title', 'string'),
      field('body', 'text'),
      field('views', 'integer'),
      field('rating', 'decimal', { precision: 10, scale: 2 }),
      field('big', 'bigInteger'),
      field('featured', 'boolean'),
      field('published_on', 'date'),
      field('published', 'dateTime'),
      field('created', 'timestamp'),
      field('starts', 'time'),
      field('data', 'json'),
      field('tags', 'csv'),
      field('uid', 'uuid'),
      field('secret', 'hash', { special: ['hash'] }),
      field('author', 'integer', { special: ['m2o'] }),
      field('comments', 'alias', { special: ['o2m'] }),
      field('categories', 'alias', { special: ['m2m'] }),
      field('sections', 'alias', { special: ['m2a'] }),
    ]),
    authors: collection('authors', [
      id(),
      field('name', 'string'),
      field('email', 'string'),
      field('country', 'integer', { special: ['m2o'] }),
      field('articles', 'alias', { special: ['o2m'] }),
    ]),
    countries: collection('countries', [id(), field('name', 'string'), field('code', 'string')]),
    comments: collection('comments', [
      id(),
      field('article', 'integer', { special: ['m2o'] }),
      field('author', 'integer', { special: ['m2o'] }),
      field('text', 'text'),
      field('sort', 'integer'),
    ]),
    categories: collection('categories', [id(), field('name', 'string')]),
    articles_categories: collection('articles_categories', [
      id(),
      field('articles_id', 'integer'),
      field('categories_id', 'integer'),
    ]),
    articles_sections: collection('articles_sections', [
      id(),
      field('articles_id', 'integer'),
      field('item', 'string'),
      field('collection', 'string'),
      field('sort', 'integer'),
    ]),
    headings: collection('headings', [id(), field('title', 'string'), field('level', 'integer')]),
    texts: collection('texts', [id(), field('body', 'text')]),
    svc_roles: collection('svc_roles', [field('id', 'uuid', { isPrimaryKey: true }), field('name', 'string')], {
      isSystem: true,
    }),
    svc_users: collection(
      'svc_users',
      [
        field('id', 'uuid', { isPrimaryKey: true }),
        field('email', 'string'),
        field('password', 'hash', { special: ['hash', 'conceal'] }),
        field('token', 'string', { special: ['conceal'] }),
        field('role', 'uuid', { special: ['m2o'] }),
      ],
      { isSystem: true },
    ),
    settings: collection('settings', [id(), field('headline', 'string', { defaultValue: 'Hello' })], {
      singleton: true,
    }),
  },
  relations: [
    relation('articles', 'author', 'authors', { oneField: 'articles' }),
    relation('svc_users', 'role', 'svc_roles'),
    relation('authors', 'country', 'countries'),
    relation('comments', 'article', 'articles', { oneField: 'comments' }),
    relation('comments', 'author', 'authors'),
    relation('articles_categories', 'articles_id', 'articles', {
      oneField: 'categories',
      junctionField: 'categories_id',
    }),
    relation('articles_categories', 'categories_id', 'categories', { junctionField: 'articles_id' }),
    relation('articles_sections', 'articles_id', 'articles', {
      oneField: 'sections',
      junctionField: 'item',
      sortField: 'sort',
    }),
    relation('articles_sections', 'item', null, {
      oneCollectionField: 'collection',
      oneAllowedCollections: ['headings', 'texts'],
      junctionField: 'articles_id',
    }),
  ],
};
