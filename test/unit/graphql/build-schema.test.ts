import { expect } from 'chai';
import {
  getNamedType,
  getNullableType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  isUnionType,
  type GraphQLInputObjectType,
  type GraphQLObjectType,
  type GraphQLSchema,
} from 'graphql';
import type { SchemaOverview } from '../../../catalog/overview/types.js';
import { FULL_READ_ACCESS, type ReadAccess } from '../../../src/access/read-access.js';
import { buildSchemas, fullSchemaAccess, readOnlySchemaAccess } from '../../../src/graphql/index.js';
import { toFilter, toPayload } from '../../../src/graphql/input-values.js';
import { collection, field, FIXTURE_OVERVIEW, relation } from '../query/fixture-overview.js';

const admin = buildSchemas(FIXTURE_OVERVIEW, fullSchemaAccess(FULL_READ_ACCESS));

function objectType(schema: GraphQLSchema, name: string): GraphQLObjectType {
  const type = schema.getType(name);
  if (!isObjectType(type)) throw new Error(`${name} is not an object type`);
  return type;
}

function inputType(schema: GraphQLSchema, name: string): GraphQLInputObjectType {
  const type = schema.getType(name);
  if (!isInputObjectType(type)) throw new Error(`${name} is not an input type`);
  return type;
}

describe('graphql schema generation', () => {
  it('user collections root in the items scope, system collections (without svc_) in the system scope', () => {
    const items = Object.keys(objectType(admin.items, 'Query').getFields());
    expect(items).to.include.members(['articles', 'articles_by_id', 'articles_aggregated', 'settings']);
    expect(items).not.to.include.members(['users', 'svc_users', 'settings_by_id', 'settings_aggregated']);
    const system = Object.keys(objectType(admin.system, 'Query').getFields());
    expect(system).to.include.members(['users', 'users_by_id', 'users_aggregated', 'roles']);
    expect(system).not.to.include('articles');
  });

  it('both scopes hold every type, so relations cross scopes', () => {
    for (const schema of [admin.items, admin.system]) {
      expect(schema.getType('articles')).to.not.equal(undefined);
      expect(schema.getType('svc_users')).to.not.equal(undefined);
    }
    expect(objectType(admin.items, 'articles')).to.equal(objectType(admin.system, 'articles'));
  });

  it('maps field types to scalars; the key is ID!, a singleton key may be null', () => {
    const fields = objectType(admin.items, 'articles').getFields();
    const typeOf = (name: string) => String(fields[name]?.type);
    expect(typeOf('id')).to.equal('ID!');
    expect(typeOf('views')).to.equal('Int');
    expect(typeOf('big')).to.equal('GraphQLBigInt');
    expect(typeOf('rating')).to.equal('Float');
    expect(typeOf('featured')).to.equal('Boolean');
    expect(typeOf('published')).to.equal('Date');
    expect(typeOf('data')).to.equal('JSON');
    expect(typeOf('tags')).to.equal('[String]');
    expect(typeOf('secret')).to.equal('String');
    expect(typeOf('author')).to.equal('authors');
    expect(typeOf('comments')).to.equal('[comments]');
    expect(typeOf('sections')).to.equal('[articles_sections]');
    expect(typeOf('published_func')).to.equal('datetime_functions');
    expect(typeOf('created_func')).to.equal('datetime_functions');
    // A date has no hour and a time no year (Directus 10's date_functions / time_functions).
    expect(typeOf('published_on_func')).to.equal('date_functions');
    expect(typeOf('starts_func')).to.equal('time_functions');
    const functionsOfType = (name: string) => Object.keys(objectType(admin.items, name).getFields());
    expect(functionsOfType('date_functions')).to.deep.equal(['year', 'month', 'week', 'day', 'weekday']);
    expect(functionsOfType('time_functions')).to.deep.equal(['hour', 'minute', 'second']);
    expect(functionsOfType('datetime_functions')).to.have.length(8);
    expect(typeOf('comments_func')).to.equal('count_functions');
    expect(typeOf('data_func')).to.equal('count_functions');
    expect(String(objectType(admin.items, 'settings').getFields()['id']?.type)).to.equal('ID');
  });

  it('a many-to-any item is a union of its allowed collections', () => {
    const item = objectType(admin.items, 'articles_sections').getFields()['item'];
    const union = item === undefined ? undefined : getNamedType(item.type);
    expect(isUnionType(union)).to.equal(true);
    if (!isUnionType(union)) return;
    expect(union.name).to.equal('articles_sections_item_union');
    expect(union.getTypes().map((t) => t.name)).to.deep.equal(['headings', 'texts']);
  });

  it('filters: operators per type, relations as the target filter, functions, scopes, _some/_none', () => {
    const fields = inputType(admin.items, 'articles_filter').getFields();
    expect(String(fields['title']?.type)).to.equal('string_filter_operators');
    expect(String(fields['views']?.type)).to.equal('number_filter_operators');
    expect(String(fields['big']?.type)).to.equal('big_int_filter_operators');
    expect(String(fields['published']?.type)).to.equal('date_filter_operators');
    expect(String(fields['featured']?.type)).to.equal('boolean_filter_operators');
    expect(String(fields['secret']?.type)).to.equal('hash_filter_operators');
    expect(String(fields['author']?.type)).to.equal('authors_filter');
    expect(String(fields['comments']?.type)).to.equal('comments_filter');
    expect(String(fields['published_func']?.type)).to.equal('datetime_function_filter_operators');
    expect(String(fields['published_on_func']?.type)).to.equal('date_function_filter_operators');
    expect(String(fields['starts_func']?.type)).to.equal('time_function_filter_operators');
    expect(Object.keys(inputType(admin.items, 'time_function_filter_operators').getFields())).to.deep.equal([
      'hour',
      'minute',
      'second',
    ]);
    expect(String(fields['_and']?.type)).to.equal('[articles_filter]');
    expect(Object.keys(inputType(admin.items, 'comments_filter').getFields())).to.include.members(['_some', '_none']);
    expect(Object.keys(fields)).to.include('_some');
    expect(Object.keys(inputType(admin.items, 'countries_filter').getFields())).not.to.include('_some');
    const sections = inputType(admin.items, 'articles_sections_filter').getFields();
    expect(String(sections['item__headings']?.type)).to.equal('headings_filter');
  });

  it('aggregated types count every field and sum the numeric ones', () => {
    const aggregated = objectType(admin.items, 'articles_aggregated').getFields();
    expect(Object.keys(aggregated)).to.deep.equal([
      'group',
      'countAll',
      'count',
      'countDistinct',
      'avg',
      'sum',
      'avgDistinct',
      'sumDistinct',
      'min',
      'max',
    ]);
    expect(Object.keys(objectType(admin.items, 'articles_aggregated_fields').getFields())).to.deep.equal([
      'id',
      'views',
      'rating',
      'big',
      'author',
    ]);
    expect(Object.keys(objectType(admin.items, 'countries_aggregated_count').getFields())).to.deep.equal([
      'id',
      'name',
      'code',
    ]);
  });

  it('names that are not GraphQL names are sanitised, and inputs map back to the field names', () => {
    const overview: SchemaOverview = {
      version: 1,
      collections: {
        'my-items': collection('my-items', [
          field('id', 'integer', { isPrimaryKey: true, nullable: false, isGenerated: true }),
          field('first name', 'string', { nullable: false }),
          field('2nd', 'integer'),
        ]),
      },
      relations: [],
    };
    const schemas = buildSchemas(overview, fullSchemaAccess(FULL_READ_ACCESS));
    expect(Object.keys(objectType(schemas.items, 'my_items').getFields())).to.deep.equal(['id', 'first_name', '_2nd']);
    expect(Object.keys(objectType(schemas.items, 'Query').getFields())).to.include('my_items_by_id');
    const filter = toFilter(inputType(schemas.items, 'my_items_filter'), {
      first_name: { _eq: 'A' },
      _or: [{ _2nd: { _gt: 1 } }],
    });
    expect(filter).to.deep.equal({ 'first name': { _eq: 'A' }, _or: [{ '2nd': { _gt: 1 } }] });
  });
});

describe('graphql inputs', () => {
  it('create inputs require non-nullable fields without default; nestable inputs and update inputs require nothing', () => {
    const overview: SchemaOverview = {
      version: 1,
      collections: {
        posts: collection('posts', [
          field('id', 'integer', { isPrimaryKey: true, nullable: false, isGenerated: true }),
          field('title', 'string', { nullable: false }),
          field('status', 'string', { nullable: false, defaultValue: 'draft' }),
          field('created', 'timestamp', { nullable: false, special: ['date-created'] }),
          field('notes', 'alias', { special: ['o2m'] }),
        ]),
        notes: collection('notes', [
          field('id', 'integer', { isPrimaryKey: true, nullable: false, isGenerated: true }),
          field('post', 'integer', { nullable: false }),
          field('text', 'string', { nullable: false }),
        ]),
        authors: collection('authors', [
          field('id', 'integer', { isPrimaryKey: true, nullable: false, isGenerated: true }),
          field('name', 'string', { nullable: false }),
        ]),
      },
      relations: [relation('notes', 'post', 'posts', { oneField: 'notes' })],
    };
    const { items } = buildSchemas(overview, fullSchemaAccess(FULL_READ_ACCESS));
    const typesOf = (name: string) =>
      Object.fromEntries(Object.entries(inputType(items, name).getFields()).map(([k, f]) => [k, String(f.type)]));
    expect(typesOf('create_authors_input')).to.deep.equal({ id: 'ID', name: 'String!' });
    expect(typesOf('create_posts_input')).to.deep.equal({
      id: 'ID',
      title: 'String',
      status: 'String',
      created: 'Date',
      notes: '[create_notes_input]',
    });
    expect(typesOf('create_notes_input')).to.deep.equal({ id: 'ID', post: 'create_posts_input', text: 'String' });
    const update = inputType(items, 'update_posts_input').getFields();
    expect(Object.values(update).some((f) => isNonNullType(f.type))).to.equal(false);
    expect(String(update['notes']?.type)).to.equal('[update_notes_input]');
  });

  it('payloads map nested inputs and turn integer ID strings into numbers', () => {
    const create = inputType(admin.items, 'create_articles_input');
    const payload = toPayload(create, {
      id: '7',
      title: 'T',
      author: { id: '2', name: 'Ann' },
      comments: [{ text: 'c' }, { id: '3' }],
    });
    expect(payload).to.deep.equal({
      id: 7,
      title: 'T',
      author: { id: 2, name: 'Ann' },
      comments: [{ text: 'c' }, { id: 3 }],
    });
    const nested = create.getFields()['comments']?.type;
    expect(nested !== undefined && isListType(getNullableType(nested))).to.equal(true);
  });
});

describe('graphql schema of a limited role', () => {
  // Reads articles (some fields) and comments; nothing else.
  const fields: Record<string, ReadonlySet<string>> = {
    articles: new Set(['id', 'title', 'author', 'comments']),
    comments: new Set(['*']),
  };
  const access: ReadAccess = { rowFilter: () => null, readableFields: (c) => fields[c] ?? new Set() };
  const limited = buildSchemas(FIXTURE_OVERVIEW, readOnlySchemaAccess('role:limited', access));

  it('types of collections the role cannot read do not exist', () => {
    expect(limited.items.getType('authors')).to.equal(undefined);
    expect(limited.items.getType('categories')).to.equal(undefined);
    expect(limited.system.getType('svc_users')).to.equal(undefined);
    expect(Object.keys(objectType(limited.items, 'Query').getFields())).to.deep.equal([
      'articles',
      'articles_by_id',
      'articles_aggregated',
      'comments',
      'comments_by_id',
      'comments_aggregated',
    ]);
  });

  it('fields it cannot read do not exist; a relation into an unreadable collection reads as its key', () => {
    expect(Object.keys(objectType(limited.items, 'articles').getFields())).to.deep.equal([
      'id',
      'title',
      'author',
      'comments',
      'comments_func',
    ]);
    expect(String(objectType(limited.items, 'articles').getFields()['author']?.type)).to.equal('Int');
    expect(Object.keys(inputType(limited.items, 'articles_filter').getFields())).to.deep.equal([
      'id',
      'title',
      'author',
      'comments',
      'comments_func',
      '_and',
      '_or',
    ]);
  });

  it('a role that writes nothing has no Mutation type and no input types', () => {
    expect(limited.items.getMutationType()).to.equal(undefined);
    expect(limited.items.getType('create_articles_input')).to.equal(undefined);
  });

  it('a role that reads nothing: items has only _empty, system only the server, auth and utility fields', () => {
    const none = buildSchemas(
      FIXTURE_OVERVIEW,
      readOnlySchemaAccess('role:none', { rowFilter: () => null, readableFields: () => new Set() }),
    );
    expect(Object.keys(objectType(none.items, 'Query').getFields())).to.deep.equal(['_empty']);
    expect(none.items.getMutationType()).to.equal(undefined);
    expect(Object.keys(objectType(none.system, 'Query').getFields())).to.deep.equal([
      'server_info',
      'server_ping',
      'server_health',
      'server_specs_oas',
      'server_specs_graphql',
    ]);
    expect(Object.keys(none.system.getMutationType()?.getFields() ?? {})).to.deep.equal([
      'auth_login',
      'auth_refresh',
      'auth_logout',
      'auth_password_request',
      'auth_password_reset',
      'users_invite_accept',
      'users_register',
      'users_register_verify',
      'users_me_tfa_generate',
      'users_me_tfa_enable',
      'users_me_tfa_disable',
      'utils_random_string',
      'utils_hash_generate',
      'utils_hash_verify',
      'utils_sort',
      'utils_revert',
    ]);
  });
});
