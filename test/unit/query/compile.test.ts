import { expect } from 'chai';
import type { ReadAccess } from '../../../src/access/read-access.js';
import { databaseDialect } from '../../../src/db/dialects/index.js';
import { LONG_LIST, type CompiledSql } from '../../../src/db/dialects/read.js';
import { buildAggregateAst, buildCountAst } from '../../../src/query/ast/build-aggregate-ast.js';
import { buildReadAst } from '../../../src/query/ast/build-read-ast.js';
import { compileAggregate, compileCount } from '../../../src/query/compile/compile-aggregate.js';
import { compileRead, compileReadJson } from '../../../src/query/compile/compile-read.js';
import { parseQuery, parseQueryString } from '../../../src/query/parse/parse-query.js';
import { testBuildContext } from './build-context.js';
import { expectSqlSnapshot } from './sql-snapshot.js';

interface CompilerCase {
  readonly name: string;
  readonly collection: string;
  /** The query as a query string (bracket form, JSON strings, comma lists). */
  readonly qs: string;
  readonly kind?: 'read' | 'aggregate' | 'count';
  readonly access?: ReadAccess;
}

/** Articles and comments readable only when published / not flagged: merged at every level. */
const ROW_FILTERED: ReadAccess = {
  rowFilter: (collection) =>
    collection === 'articles'
      ? { status: { _eq: 'published' } }
      : collection === 'comments'
        ? { text: { _nempty: true } }
        : null,
  readableFields: () => '*',
};

const cases: CompilerCase[] = [
  { name: 'default-fields', collection: 'articles', qs: '' },
  { name: 'filter-eq', collection: 'articles', qs: 'fields=id&filter[status][_eq]=published' },
  {
    name: 'filter-operators',
    collection: 'articles',
    qs:
      'fields=id&filter=' +
      encodeURIComponent(
        JSON.stringify({
          _and: [
            { title: { _neq: 'x', _contains: 'a', _ncontains: 'b', _icontains: 'c' } },
            { title: { _starts_with: 'd', _nstarts_with: 'e', _istarts_with: 'f', _nistarts_with: 'g' } },
            { title: { _ends_with: 'h', _nends_with: 'i', _iends_with: 'j', _niends_with: 'k' } },
            { views: { _lt: 1, _lte: '2', _gt: 3, _gte: 4, _between: [5, 6], _nbetween: '7,8' } },
            { views: { _in: [1, 2], _nin: '3,4' } },
            { body: { _null: true }, status: { _nnull: true }, title: { _empty: true }, tags: { _nempty: true } },
            { featured: { _eq: 'true' }, rating: { _gte: '1.5' }, big: { _eq: '9007199254740993' } },
            { published_on: { _eq: '2024-01-15' }, published: { _lt: '2024-01-15T10:00:00' } },
            { created: { _gte: '2024-01-15T10:00:00+02:00' }, starts: { _gt: '08:00' } },
            { uid: { _eq: '3F2504E0-4F89-41D3-9A0C-0305E82C3301' }, data: { _nnull: true } },
            { tags: { _contains: 'red' }, title: { _eq: null } },
          ],
        }),
      ),
  },
  {
    name: 'filter-or',
    collection: 'articles',
    qs: 'fields=id&filter[_or][0][status][_eq]=draft&filter[_or][1][_and][0][views][_gt]=10&filter[_or][1][_and][1][title][_icontains]=100%',
  },
  {
    name: 'filter-m2o',
    collection: 'articles',
    qs: 'fields=id&filter[author][name][_eq]=Ann&filter[author][_nnull]=true',
  },
  { name: 'filter-m2o-depth3', collection: 'comments', qs: 'fields=id&filter[article][author][country][code][_eq]=NL' },
  { name: 'filter-o2m-some', collection: 'articles', qs: 'fields=id&filter[comments][text][_contains]=good' },
  { name: 'filter-o2m-none', collection: 'articles', qs: 'fields=id&filter[comments][_none][text][_eq]=spam' },
  {
    name: 'filter-m2m',
    collection: 'articles',
    qs: 'fields=id&filter[categories][categories_id][name][_in]=news,tech',
  },
  { name: 'filter-m2a', collection: 'articles', qs: 'fields=id&filter[sections][item:headings][title][_eq]=H1' },
  {
    name: 'filter-functions',
    collection: 'articles',
    qs: 'fields=id&filter[year(published)][_eq]=2024&filter[count(comments)][_gt]=1&filter[weekday(created)][_in]=0,6&filter[count(tags)][_gte]=2',
  },
  {
    name: 'filter-dynamic',
    collection: 'articles',
    qs: 'fields=id&filter[created][_lte]=$NOW(-1 day)&filter[published][_gt]=$NOW&filter[title][_eq]=$CURRENT_USER.role.name',
  },
  { name: 'search-text', collection: 'articles', qs: 'fields=id&search=hello' },
  { name: 'search-number', collection: 'articles', qs: 'fields=id&search=5&filter[status][_eq]=published' },
  { name: 'sort', collection: 'articles', qs: 'fields=id&sort=-views,author.name,year(published)' },
  {
    name: 'sort-to-many',
    collection: 'articles',
    qs: 'fields=id&sort=categories.categories_id.name,-sections.item:headings.title,-comments.id',
  },
  { name: 'sort-disabled', collection: 'articles', qs: 'fields=id&sort=' },
  // PostgreSQL's json has no ordering operator: it sorts as its text, at the root and through paths.
  {
    name: 'sort-json',
    collection: 'articles',
    qs: 'fields=id,comments.id&sort=-data&deep[comments][_sort]=article.data',
  },
  { name: 'limit-all', collection: 'articles', qs: 'fields=id&limit=-1' },
  { name: 'page', collection: 'articles', qs: 'fields=id&limit=10&page=3' },
  { name: 'm2o', collection: 'articles', qs: 'fields=title,author.name' },
  { name: 'm2o-depth3', collection: 'comments', qs: 'fields=id,article.author.country.name' },
  { name: 'o2m', collection: 'articles', qs: 'fields=id,comments.text' },
  { name: 'o2m-keys', collection: 'articles', qs: 'fields=comments' },
  { name: 'o2m-depth3', collection: 'authors', qs: 'fields=id,articles.comments.author.name' },
  { name: 'm2m', collection: 'articles', qs: 'fields=id,categories.categories_id.name' },
  { name: 'm2m-depth3', collection: 'authors', qs: 'fields=id,articles.categories.categories_id.name' },
  {
    name: 'm2a',
    collection: 'articles',
    qs: 'fields=id,sections.collection,sections.item:headings.title,sections.item:texts.body',
  },
  { name: 'm2a-all', collection: 'articles', qs: 'fields=sections.item.*' },
  { name: 'm2a-raw-item', collection: 'articles', qs: 'fields=sections.item' },
  { name: 'm2a-depth3', collection: 'authors', qs: 'fields=articles.sections.item:headings.title' },
  {
    name: 'deep',
    collection: 'articles',
    qs: 'fields=id,comments.text,author.name&deep[comments][_filter][text][_contains]=x&deep[comments][_sort]=-id&deep[comments][_limit]=2&deep[comments][_offset]=1&deep[author][_filter][name][_neq]=Bob',
  },
  {
    name: 'deep-json',
    collection: 'articles',
    qs:
      'fields=categories.categories_id.name&deep=' +
      encodeURIComponent(
        JSON.stringify({ categories: { _limit: 5, categories_id: { _filter: { name: { _eq: 'news' } } } } }),
      ),
  },
  {
    name: 'alias',
    collection: 'articles',
    qs: 'alias[top]=comments&alias[headline]=title&fields=id,headline,top.text&deep[top][_limit]=1',
  },
  { name: 'wildcard-nested', collection: 'comments', qs: 'fields=*.*' },
  { name: 'field-functions', collection: 'articles', qs: 'fields=id,year(published),count(comments),count(data)' },
  {
    name: 'row-permission',
    collection: 'articles',
    qs: 'fields=id,comments.text,author.articles.title',
    access: ROW_FILTERED,
  },
  // Filters, counts and sorts through relations see only the related rows the caller may read.
  {
    name: 'row-permission-related',
    collection: 'articles',
    qs: 'fields=id,count(comments)&filter[comments][_none][text][_eq]=spam',
    access: ROW_FILTERED,
  },
  {
    name: 'row-permission-path',
    collection: 'comments',
    qs: 'fields=id&filter[article][title][_contains]=x&sort=article.title',
    access: ROW_FILTERED,
  },
  {
    name: 'aggregate-group',
    collection: 'articles',
    qs: 'aggregate[count]=*&aggregate[sum]=views&groupBy[]=status',
    kind: 'aggregate',
  },
  {
    name: 'aggregate-functions',
    collection: 'articles',
    qs: 'aggregate[countDistinct]=status&aggregate[avg]=views&aggregate[min]=views&aggregate[max]=big&aggregate[countAll]=*&aggregate[sumDistinct]=views&aggregate[avgDistinct]=rating',
    kind: 'aggregate',
  },
  {
    name: 'aggregate-group-function',
    collection: 'articles',
    qs: 'aggregate[count]=*&groupBy=year(published),status&sort=-count&filter[views][_gt]=0&limit=5',
    kind: 'aggregate',
  },
  // PostgreSQL's json has no equality operator: it groups and counts distinct as its text.
  {
    name: 'aggregate-json',
    collection: 'articles',
    qs: 'aggregate[count]=*&aggregate[countDistinct]=data&groupBy[]=data',
    kind: 'aggregate',
  },
  // A related count's subquery (its row permission bound) is grouped by its output's position.
  {
    name: 'aggregate-group-count',
    collection: 'articles',
    qs: 'aggregate[count]=*&groupBy[]=count(comments)',
    kind: 'aggregate',
    access: ROW_FILTERED,
  },
  // Over LONG_LIST values: one bound array (PostgreSQL) or JSON array (SQLite); MariaDB binds each.
  {
    name: 'filter-long-list',
    collection: 'articles',
    qs: `fields=id&filter[id][_in]=${Array.from({ length: LONG_LIST + 1 }, (_, i) => i).join(',')}&filter[title][_nin]=${Array.from({ length: LONG_LIST + 1 }, (_, i) => `t${i}`).join(',')}`,
  },
  { name: 'meta-counts', collection: 'articles', qs: 'meta=*&filter[status][_eq]=published&search=a', kind: 'count' },
];

const DIALECT_NAMES = ['pg', 'mysql', 'sqlite3'] as const;

function compileCase(dialectName: (typeof DIALECT_NAMES)[number], c: CompilerCase): CompiledSql {
  const dialect = databaseDialect(dialectName);
  const ctx = testBuildContext(c.access === undefined ? {} : { access: c.access });
  const query = parseQuery(parseQueryString(c.qs));
  switch (c.kind ?? 'read') {
    case 'read':
      return compileRead(dialect, buildReadAst(ctx, c.collection, query));
    case 'aggregate':
      return compileAggregate(dialect, buildAggregateAst(ctx, c.collection, query));
    case 'count':
      return compileCount(dialect, buildCountAst(ctx, c.collection, query));
  }
}

for (const dialectName of DIALECT_NAMES) {
  describe(`compile (${dialectName})`, () => {
    for (const c of cases) {
      it(c.name, () => {
        const compiled = compileCase(dialectName, c);
        expect(compiled.sql.split('?').length - 1).to.equal(compiled.values.length);
        expectSqlSnapshot(`${dialectName === 'sqlite3' ? 'sqlite' : dialectName}/${c.name}`, compiled);
      });
    }
  });
}

describe('compile: long _in lists', () => {
  const compileIn = (dialectName: (typeof DIALECT_NAMES)[number], count: number): CompiledSql => {
    const qs = `fields=id&filter[id][_in]=${Array.from({ length: count }, (_, i) => i).join(',')}`;
    return compileCase(dialectName, { name: 'in', collection: 'articles', qs });
  };

  it(`keeps up to ${LONG_LIST} values bound one by one on every database`, () => {
    for (const dialectName of DIALECT_NAMES) {
      const { sql, values } = compileIn(dialectName, LONG_LIST);
      expect(values.slice(0, LONG_LIST), dialectName).to.deep.equal(Array.from({ length: LONG_LIST }, (_, i) => i));
      expect(sql, dialectName).to.include(' in (?, ?, ');
    }
  });

  it('binds a longer list as one value on PostgreSQL and SQLite, far below their limits of bound values', () => {
    const count = 100_000;
    const ids = Array.from({ length: count }, (_, i) => i);
    expect(compileIn('pg', count).values[0]).to.deep.equal(ids);
    expect(compileIn('sqlite3', count).values[0]).to.equal(JSON.stringify(ids));
    expect(compileIn('mysql', count).values.length).to.be.greaterThan(count);
  });
});

/** PostgreSQL's JSON output (compileReadJson): one text value, objects keyed, API value forms. */
describe('compile (pg, JSON output)', () => {
  const jsonCases: readonly CompilerCase[] = [
    {
      name: 'json-fields',
      collection: 'articles',
      qs: 'fields=id,title,rating,big,featured,published_on,published,created,starts,tags,secret&sort=-created',
    },
    {
      name: 'json-nested',
      collection: 'articles',
      qs: 'fields=id,author.name,comments.text,comments.author.name,categories&deep[comments][_sort]=-id&deep[comments][_limit]=2',
    },
    {
      // Every level keeps its deep filter, sort (through an m2o too), window and aliases.
      name: 'json-deep',
      collection: 'authors',
      qs:
        'fields=id,posts.id,posts.notes.text,posts.notes.writer.name,posts.categories.categories_id.name&alias[posts]=articles' +
        '&deep=' +
        encodeURIComponent(
          JSON.stringify({
            posts: {
              _filter: { status: { _eq: 'published' } },
              _sort: ['-views', 'author.name'],
              _limit: 3,
              _offset: 1,
              _alias: { notes: 'comments' },
              notes: { _alias: { writer: 'author' }, _filter: { text: { _nempty: true } }, _sort: ['-id'], _limit: 2 },
              categories: { categories_id: { _filter: { name: { _neq: 'x' } } } },
            },
          }),
        ),
    },
    {
      name: 'json-row-permission',
      collection: 'articles',
      qs: 'fields=id,comments.text,author.articles.title',
      access: ROW_FILTERED,
    },
  ];
  for (const c of jsonCases) {
    it(c.name, () => {
      const query = parseQuery(parseQueryString(c.qs));
      const ctx = testBuildContext(c.access === undefined ? {} : { access: c.access });
      const compiled = compileReadJson(databaseDialect('pg'), buildReadAst(ctx, c.collection, query));
      expect(compiled.sql.split('?').length - 1).to.equal(compiled.values.length);
      expectSqlSnapshot(`pg/${c.name}`, compiled);
    });
  }

  it('refuses other dialects', () => {
    const ast = buildReadAst(testBuildContext({}), 'articles', parseQuery(parseQueryString('fields=id')));
    expect(() => compileReadJson(databaseDialect('sqlite3'), ast)).to.throw(/PostgreSQL/);
  });
});
