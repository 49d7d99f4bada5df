import type {
  CollectionOverview,
  FieldOverview,
  FieldType,
  RelationOverview,
  SchemaOverview,
} from '../../../catalog/overview/types.js';

/** A field with the defaults of a plain nullable column; `overrides` says what differs. */
export function field(name: string, type: FieldType, overrides: Partial<FieldOverview> = {}): FieldOverview {
  return {
    field: name,
    type,
    dbType: type === 'alias' ? null : type,
    special: [],
    defaultValue: null,
    nullable: true,
    maxLength: type === 'string' ? 255 : null,
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
    ...overrides,
  };
}

export const autoId = (): FieldOverview =>
  field('id', 'integer', {
    isPrimaryKey: true,
    isGenerated: true,
    hasAutoIncrement: true,
    nullable: false,
    dbType: 'integer',
  });

export function collection(
  name: string,
  fields: readonly FieldOverview[],
  overrides: Partial<CollectionOverview> = {},
): CollectionOverview {
  const primary = fields.find((f) => f.isPrimaryKey)?.field ?? 'id';
  return {
    collection: name,
    primary,
    singleton: false,
    sortField: null,
    accountability: 'all',
    isSystem: false,
    fields: Object.fromEntries(fields.map((f) => [f.field, f])),
    meta: null,
    comment: null,
    ...overrides,
  };
}

function relation(
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

/**
 * articles (m2o author → authors, o2m comments, m2m tags through articles_tags, m2a sections
 * through articles_sections → headings | texts) and a catalogue of column types in `things`.
 */
export const FIXTURE_OVERVIEW: SchemaOverview = {
  version: 1,
  collections: {
    articles: collection('articles', [
      autoId(),
      field('title', 'string', { nullable: false, maxLength: 20 }),
      field('status', 'string', {
        defaultValue: 'draft',
        nullable: false,
        validation: { _and: [{ status: { _in: ['draft', 'published'] } }] },
      }),
      field('code', 'string', { validation: { _and: [{ code: { _starts_with: 'C' } }] } }),
      field('views', 'integer', { dbType: 'integer' }),
      field('author', 'integer', { special: ['m2o'] }),
      field('comments', 'alias', { special: ['o2m'] }),
      field('tags', 'alias', { special: ['m2m'] }),
      field('sections', 'alias', { special: ['m2a'] }),
      field('date_created', 'timestamp', { special: ['date-created'] }),
      field('user_updated', 'uuid', { special: ['user-updated'] }),
    ]),
    authors: collection('authors', [autoId(), field('name', 'string', { required: true })]),
    comments: collection('comments', [autoId(), field('text', 'text'), field('article', 'integer')]),
    tags: collection('tags', [autoId(), field('label', 'string')]),
    articles_tags: collection('articles_tags', [
      autoId(),
      field('articles_id', 'integer'),
      field('tags_id', 'integer'),
    ]),
    articles_sections: collection('articles_sections', [
      autoId(),
      field('articles_id', 'integer'),
      field('collection', 'string'),
      field('item', 'string'),
    ]),
    headings: collection('headings', [autoId(), field('title', 'string')]),
    texts: collection('texts', [autoId(), field('body', 'text')]),
    things: collection(
      'things',
      [
        field('id', 'uuid', { isPrimaryKey: true, nullable: false }),
        field('small', 'integer', { dbType: 'smallint' }),
        field('count', 'integer', { dbType: 'integer' }),
        field('big', 'bigInteger', { dbType: 'bigint' }),
        field('unsigned', 'integer', { dbType: 'int unsigned' }),
        field('ratio', 'float'),
        field('price', 'decimal', { precision: 5, scale: 2 }),
        field('flag', 'boolean'),
        field('ref', 'uuid'),
        field('day', 'date'),
        field('at', 'timestamp'),
        field('local', 'dateTime'),
        field('clock', 'time'),
        field('doc', 'json'),
        field('list', 'csv'),
        field('secret', 'hash'),
        field('required_note', 'text', { required: true }),
        field('nickname', 'string', {
          maxLength: 5,
          validationMessage: 'Nickname is wrong.',
          validation: { nickname: { _regex: '^[a-z]+$' } },
        }),
        field('label', 'string', { nullable: false, defaultValue: 'none' }),
      ],
      { accountability: 'activity' },
    ),
  },
  relations: [
    relation('articles', 'author', 'authors'),
    relation('comments', 'article', 'articles', { oneField: 'comments' }),
    relation('articles_tags', 'articles_id', 'articles', {
      oneField: 'tags',
      junctionField: 'tags_id',
      oneDeselectAction: 'delete',
    }),
    relation('articles_tags', 'tags_id', 'tags', { junctionField: 'articles_id' }),
    relation('articles_sections', 'articles_id', 'articles', { oneField: 'sections', junctionField: 'item' }),
    relation('articles_sections', 'item', null, {
      oneCollectionField: 'collection',
      oneAllowedCollections: ['headings', 'texts'],
      junctionField: 'articles_id',
    }),
  ],
};

export function requireFixture(name: string): CollectionOverview {
  const found = FIXTURE_OVERVIEW.collections[name];
  if (found === undefined) throw new Error(`no fixture collection ${name}`);
  return found;
}
