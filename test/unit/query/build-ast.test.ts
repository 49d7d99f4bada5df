import { expect } from 'chai';
import type { ReadAccess } from '../../../src/access/read-access.js';
import { ForbiddenError, InvalidQueryError, type ServiceError } from '../../../src/errors.js';
import { buildAggregateAst } from '../../../src/query/ast/build-aggregate-ast.js';
import type { BuildContext } from '../../../src/query/ast/build-context.js';
import { buildReadAst } from '../../../src/query/ast/build-read-ast.js';
import type { Condition, ReadAst, ReadNode } from '../../../src/query/ast/nodes.js';
import { parseQuery, parseQueryString } from '../../../src/query/parse/parse-query.js';
import { FIXED_NOW, testBuildContext } from './build-context.js';

const read = (qs: string, ctx: BuildContext = testBuildContext(), collection = 'articles'): ReadAst =>
  buildReadAst(ctx, collection, parseQuery(parseQueryString(qs)));

const NON_ADMIN = testBuildContext({
  accountability: { user: null, role: null, admin: false },
});

/** Articles: id, title, status and author readable; authors: id and name; nothing else. */
const LIMITED: ReadAccess = {
  rowFilter: () => null,
  readableFields: (collection) =>
    collection === 'articles'
      ? new Set(['id', 'title', 'status', 'author', 'comments'])
      : collection === 'authors'
        ? new Set(['id', 'name'])
        : new Set(),
};
const LIMITED_CTX = testBuildContext({ access: LIMITED, accountability: { user: null, role: null, admin: false } });

function errorOf(run: () => unknown): ServiceError {
  try {
    run();
  } catch (error) {
    if (error instanceof InvalidQueryError || error instanceof ForbiddenError) return error;
    throw error;
  }
  throw new Error('expected an error');
}

const reasonOf = (run: () => unknown): string => {
  const error = errorOf(run);
  expect(error.code).to.equal('INVALID_QUERY');
  return (error as InvalidQueryError).extensions.reason;
};

const keys = (nodes: readonly ReadNode[]): string[] => nodes.map((n) => n.key);

describe('read AST: fields', () => {
  it('expands * to the columns and the relational alias fields, in overview order', () => {
    expect(keys(read('').children)).to.deep.equal([
      'id',
      'status',
      'title',
      'body',
      'views',
      'rating',
      'big',
      'featured',
      'published_on',
      'published',
      'created',
      'starts',
      'data',
      'tags',
      'uid',
      'secret',
      'author',
      'comments',
      'categories',
      'sections',
    ]);
    const comments = read('fields=comments').children[0];
    expect(comments).to.include({ kind: 'o2m', children: null });
  });

  it('merges paths under one key and reads an m2o requested with subfields as an object', () => {
    const [author] = read('fields=author,author.name,author.country.code').children;
    expect(author?.kind).to.equal('m2o');
    if (author?.kind !== 'm2o') return;
    expect(keys(author.children)).to.deep.equal(['name', 'country']);
  });

  it('expands *.* one level into every readable relation', () => {
    const ast = read('fields=*.*', testBuildContext(), 'comments');
    const article = ast.children.find((n) => n.key === 'article');
    expect(article?.kind).to.equal('m2o');
    if (article?.kind === 'm2o') expect(keys(article.children)).to.include.members(['title', 'comments', 'sections']);
  });

  it('scopes many-to-any fields per collection; unscoped collections stay raw keys', () => {
    const [sections] = read('fields=sections.item:headings.title').children;
    if (sections?.kind !== 'o2m' || sections.children === null) throw new Error('o2m expected');
    const [item] = sections.children;
    expect(item?.kind).to.equal('a2o');
    if (item?.kind === 'a2o')
      expect(item.branches.map((b) => b.relation.target.collection)).to.deep.equal(['headings']);
    const all = read('fields=sections.item.*').children[0];
    if (all?.kind !== 'o2m' || all.children === null) throw new Error('o2m expected');
    const anyItem = all.children[0];
    if (anyItem?.kind === 'a2o') expect(anyItem.branches).to.have.length(2);
    expect(reasonOf(() => read('fields=sections.item:authors.name'))).to.equal(
      '"authors" is not an allowed collection of "articles_sections.item"',
    );
  });

  it('names function fields <field>_<fn> and refuses functions on the wrong field', () => {
    expect(keys(read('fields=year(published),count(comments),count(tags)').children)).to.deep.equal([
      'published_year',
      'comments_count',
      'tags_count',
    ]);
    expect(reasonOf(() => read('fields=year(title)'))).to.equal('"year" can\'t be applied to "title" on "articles"');
    expect(reasonOf(() => read('fields=count(title)'))).to.equal('"count" can\'t be applied to "title" on "articles"');
  });

  it('offers each temporal type its date functions only (Directus 10): no hour of a date, no year of a time', () => {
    const date = ['year', 'month', 'week', 'day', 'weekday'];
    const time = ['hour', 'minute', 'second'];
    const fieldsOf = (fns: readonly string[], field: string) => fns.map((fn) => `${fn}(${field})`).join(',');
    expect(read(`fields=${fieldsOf(date, 'published_on')}`).children).to.have.length(5);
    expect(read(`fields=${fieldsOf(time, 'starts')}`).children).to.have.length(3);
    for (const field of ['published', 'created']) {
      expect(read(`fields=${fieldsOf([...date, ...time], field)}`).children).to.have.length(8);
    }
    const refused = [...time.map((fn) => [fn, 'published_on']), ...date.map((fn) => [fn, 'starts'])];
    for (const [fn = '', field = ''] of refused) {
      const reason = `"${fn}" can't be applied to "${field}" on "articles"`;
      const key = `${fn}(${field})`;
      expect(
        reasonOf(() => read(`fields=${key}`)),
        key,
      ).to.equal(reason);
      expect(
        reasonOf(() => read(`fields=id&filter[${key}][_eq]=1`)),
        key,
      ).to.equal(reason);
      expect(
        reasonOf(() => read(`fields=id&sort=-${key}`)),
        key,
      ).to.equal(reason);
      const grouped = () =>
        buildAggregateAst(
          testBuildContext(),
          'articles',
          parseQuery(parseQueryString(`aggregate[count]=*&groupBy=${key}`)),
        );
      expect(reasonOf(grouped), key).to.equal(reason);
    }
  });

  it('fills aliases from their field, relational aliases with their own deep', () => {
    const ast = read('alias[top]=comments&alias[headline]=title&fields=headline,top.text&deep[top][_limit]=1');
    const [headline, top] = ast.children;
    expect(headline).to.include({ kind: 'field', key: 'headline', column: 'title' });
    expect(top?.kind).to.equal('o2m');
    if (top?.kind === 'o2m') expect(top.level.limit).to.equal(1);
  });

  it('drops unknown fields for admins and refuses them (403) for everybody else', () => {
    expect(keys(read('fields=id,nope,author.nope').children)).to.deep.equal(['id', 'author']);
    expect(errorOf(() => read('fields=id,nope', NON_ADMIN)).code).to.equal('FORBIDDEN');
  });

  it('expands wildcards to readable fields only and refuses unreadable named fields', () => {
    // comments is a readable field, but it lists rows of an unreadable collection.
    expect(keys(read('fields=*', LIMITED_CTX).children)).to.deep.equal(['id', 'status', 'title', 'author']);
    expect(errorOf(() => read('fields=views', LIMITED_CTX)).code).to.equal('FORBIDDEN');
    expect(errorOf(() => read('fields=author.email', LIMITED_CTX)).code).to.equal('FORBIDDEN');
    expect(errorOf(() => read('fields=comments.text', LIMITED_CTX)).code).to.equal('FORBIDDEN');
    const expanded = read('fields=*.*', LIMITED_CTX).children;
    expect(keys(expanded)).to.deep.equal(['id', 'status', 'title', 'author']);
    const author = expanded[3];
    expect(author?.kind).to.equal('m2o');
    if (author?.kind === 'm2o') expect(keys(author.children)).to.deep.equal(['id', 'name']);
  });

  it('refuses unknown and unreadable collections alike (403)', () => {
    expect(errorOf(() => read('', testBuildContext(), 'nope')).code).to.equal('FORBIDDEN');
    expect(errorOf(() => read('', testBuildContext(), 'constructor')).code).to.equal('FORBIDDEN');
    expect(errorOf(() => read('', LIMITED_CTX, 'countries')).code).to.equal('FORBIDDEN');
  });

  it('refuses paths deeper than MAX_RELATIONAL_DEPTH', () => {
    const ctx = testBuildContext({
      limits: { queryLimitDefault: 100, queryLimitMax: Infinity, maxRelationalDepth: 2 },
    });
    expect(reasonOf(() => read('fields=article.author.name', ctx, 'comments'))).to.equal(
      'Max relational depth exceeded',
    );
    expect(reasonOf(() => read('fields=id&filter[article][author][country][code][_eq]=x', ctx, 'comments'))).to.equal(
      'Max relational depth exceeded',
    );
    expect(reasonOf(() => read('fields=id&sort=article.author.name', ctx, 'comments'))).to.equal(
      'Max relational depth exceeded',
    );
    expect(reasonOf(() => read('fields=id&deep[a][b][c][_limit]=1', ctx))).to.equal('Max relational depth exceeded');
  });
});

function filterOf(qs: string, ctx?: BuildContext): Condition | null {
  return read(`fields=id&${qs}`, ctx).level.filter;
}

describe('read AST: filter validation', () => {
  const cases: readonly (readonly [string, string])[] = [
    ['filter[nope][_eq]=1', 'Invalid filter key "nope" on "articles"'],
    ['filter[author][nope][_eq]=1', 'Invalid filter key "nope" on "authors"'],
    ['filter[views][_contains]=1', '"integer" field type does not contain the "_contains" filter operator'],
    ['filter[title][_gt]=a', '"string" field type does not contain the "_gt" filter operator'],
    ['filter[featured][_in]=true', '"boolean" field type does not contain the "_in" filter operator'],
    ['filter[data][_eq]=1', '"json" field type does not contain the "_eq" filter operator'],
    ['filter[secret][_eq]=x', '"hash" field type does not contain the "_eq" filter operator'],
    ['filter[title][_regex]=a', '"string" field type does not contain the "_regex" filter operator'],
    ['filter[title][_foo]=a', '"string" field type does not contain the "_foo" filter operator'],
    ['filter[id][_in][a]=1', '"_in" has to be an array of values'],
    ['filter[views][_between]=1', '"_between" has to be an array of two values'],
    ['filter[title][_null]=maybe', '"_null" has to be a boolean'],
    ['filter[title][_nempty]=2', '"_nempty" has to be a boolean'],
    ['filter[title][_eq][a]=1', 'The filter value for "_eq" has to be a string, number, or boolean'],
    ['filter[title][a]=1', '"string" field type does not contain the "a" filter operator'],
    ['filter[title][_eq]=', 'You can\'t filter for an empty string in "_eq". Use "_empty" or "_nempty" instead'],
    ['filter[views][_eq]=abc', 'The filter value "abc" for "_eq" on "views" has to be an integer'],
    ['filter[rating][_gt]=lots', 'The filter value "lots" for "_gt" on "rating" has to be a number'],
    ['filter[featured][_eq]=maybe', 'The filter value "maybe" for "_eq" on "featured" has to be a boolean'],
    ['filter[uid][_eq]=not-a-uuid', 'The filter value "not-a-uuid" for "_eq" on "uid" has to be a UUID'],
    ['filter[published][_gt]=yesterday', 'The filter value "yesterday" for "_gt" on "published" has to be a date'],
    ['filter[views][_in]=1,x', 'The filter value "x" for "_in" on "views" has to be an integer'],
    ['filter[created][_gt]=$NOW(%2B2 fortnights)', 'Invalid dynamic variable "$NOW(+2 fortnights)"'],
    ['filter[_and]=1', 'Invalid filter object'],
    ['filter[_eq]=1', 'Invalid filter key "_eq" on "articles"'],
    ['sort=nope', 'Invalid sort field "nope" on "articles"'],
    ['sort=comments', 'Invalid sort field "comments" on "articles"'],
    ['sort=sections.item.title', 'Invalid sort field "sections.item.title" on "articles_sections"'],
    ['sort=sections.item:comments.text', 'Invalid sort field "sections.item:comments.text" on "articles_sections"'],
  ];
  for (const [qs, reason] of cases) {
    it(`${decodeURIComponent(qs)} → ${reason}`, () => {
      expect(reasonOf(() => filterOf(qs))).to.equal(reason);
    });
  }

  it('refuses a filter value that is an object (SEARCH body)', () => {
    expect(
      reasonOf(() => buildReadAst(testBuildContext(), 'articles', { filter: { title: { _eq: { a: 1 } } } })),
    ).to.equal('The filter value for "_eq" has to be a string, number, or boolean');
  });

  it('answers 403 to non-admins filtering on unknown or unreadable fields', () => {
    expect(errorOf(() => filterOf('filter[nope][_eq]=1', NON_ADMIN)).code).to.equal('FORBIDDEN');
    expect(errorOf(() => filterOf('filter[views][_eq]=1', LIMITED_CTX)).code).to.equal('FORBIDDEN');
    expect(errorOf(() => filterOf('filter[author][email][_eq]=x', LIMITED_CTX)).code).to.equal('FORBIDDEN');
    expect(errorOf(() => read('fields=id&sort=views', LIMITED_CTX)).code).to.equal('FORBIDDEN');
  });

  it('coerces query-string values to the field type', () => {
    expect(filterOf('filter[views][_eq]=5')).to.deep.include({ kind: 'compare', op: '=' });
    const condition = filterOf('filter[views][_eq]=5&filter[featured][_eq]=false&filter[big][_eq]=9007199254740993');
    if (condition?.kind !== 'and') throw new Error('and expected');
    const values = condition.items.map((c) =>
      c.kind === 'compare' && c.value.kind === 'literal' ? c.value.value : undefined,
    );
    expect(values).to.deep.equal([5, false, '9007199254740993']);
  });

  it('reads _eq null and the string "null" as IS NULL', () => {
    expect(filterOf('filter[title][_eq]=null')).to.deep.include({ kind: 'null', negated: false });
    expect(filterOf('filter[title][_neq]=null')).to.deep.include({ kind: 'null', negated: true });
    expect(filterOf('filter[title][_null]=false')).to.deep.include({ kind: 'null', negated: true });
  });

  it('resolves $NOW with adjustments at one instant per request', () => {
    const condition = filterOf('filter[created][_gt]=$NOW(-1 year)&filter[created][_lt]=$NOW(%2B2 hours)');
    if (condition?.kind !== 'and') throw new Error('and expected');
    const [past, future] = condition.items.map((c) =>
      c.kind === 'compare' && c.value.kind === 'literal' ? c.value.value : null,
    );
    expect(past).to.deep.equal(new Date('2023-05-01T12:00:00.000Z'));
    expect(future).to.deep.equal(new Date(FIXED_NOW.getTime() + 2 * 3_600_000));
  });

  it('resolves $CURRENT_USER to the caller (null for public) and paths to a lookup', () => {
    expect(filterOf('filter[uid][_eq]=$CURRENT_USER')).to.deep.include({ kind: 'compare' });
    expect(filterOf('filter[uid][_eq]=$CURRENT_USER', NON_ADMIN)).to.deep.include({ kind: 'null', negated: false });
    const lookup = filterOf('filter[title][_eq]=$CURRENT_USER.role.name');
    expect(lookup?.kind === 'compare' && lookup.value.kind).to.equal('lookup');
  });

  it('merges the row permission into every level', () => {
    const access: ReadAccess = {
      rowFilter: (c) =>
        c === 'comments' ? { text: { _nnull: true } } : c === 'articles' ? { status: { _eq: 'published' } } : null,
      readableFields: () => '*',
    };
    const ast = read('fields=id,comments.text,author.articles.id', testBuildContext({ access }));
    expect(ast.level.filter).to.deep.include({ kind: 'compare' });
    const [, comments, author] = ast.children;
    if (comments?.kind === 'o2m') expect(comments.level.filter).to.deep.include({ kind: 'null', negated: true });
    if (author?.kind !== 'm2o') throw new Error('m2o expected');
    const nested = author.children[0];
    if (nested?.kind === 'o2m') expect(nested.level.filter).to.deep.include({ kind: 'compare' });
  });
});

describe('read AST: sort, limit, search', () => {
  it('sorts by the sort field or the primary key unless told otherwise', () => {
    expect(read('fields=id').level.sort).to.deep.equal([
      { operand: { kind: 'column', column: 'id', type: 'integer' }, descending: false, canBeNull: false },
    ]);
    expect(read('fields=id&sort=').level.sort).to.deep.equal([]);
    const [, sections] = read('fields=id,sections').children;
    if (sections?.kind === 'o2m') expect(sections.level.sort[0]?.operand).to.deep.include({ column: 'sort' });
  });

  it('applies QUERY_LIMIT_DEFAULT and QUERY_LIMIT_MAX, -1 = all or the max', () => {
    expect(read('fields=id').level.limit).to.equal(100);
    expect(read('fields=id&limit=-1').level.limit).to.equal(null);
    expect(read('fields=id&limit=10&page=3').level).to.include({ limit: 10, offset: 20 });
    const capped = testBuildContext({ limits: { queryLimitDefault: 100, queryLimitMax: 50, maxRelationalDepth: 10 } });
    expect(read('fields=id', capped).level.limit).to.equal(50);
    expect(read('fields=id&limit=-1', capped).level.limit).to.equal(50);
    expect(reasonOf(() => read('fields=id&limit=60', capped))).to.equal('"limit" must be less than or equal to 50');
  });

  it('searches text fields always, numeric fields for numbers, never unreadable or masked fields', () => {
    const text = read('fields=id&search=abc').level.filter;
    expect(text?.kind).to.equal('or');
    if (text?.kind === 'or') expect(text.items.every((c) => c.kind === 'match')).to.equal(true);
    const number = read('fields=id&search=5').level.filter;
    // id, views, rating, big and the author key: every numeric column.
    if (number?.kind === 'or') expect(number.items.filter((c) => c.kind === 'compare')).to.have.length(5);
    const limited = read('fields=id&search=5', LIMITED_CTX).level.filter;
    if (limited?.kind !== 'or') throw new Error('or expected');
    expect(limited.items.map((c) => (c.kind === 'match' || c.kind === 'compare' ? c.operand : null))).to.deep.equal([
      { kind: 'column', column: 'id', type: 'integer' },
      { kind: 'column', column: 'status', type: 'string' },
      { kind: 'column', column: 'title', type: 'string' },
      { kind: 'column', column: 'author', type: 'integer' },
    ]);
  });
});

describe('aggregate AST', () => {
  const aggregate = (qs: string) => buildAggregateAst(testBuildContext(), 'articles', parseQuery(parseQueryString(qs)));

  it('sorts by group keys by default and by aggregate outputs on request', () => {
    const ast = aggregate('aggregate[count]=*&aggregate[sum]=views&groupBy=status&sort=-count');
    expect(ast.groups.map((g) => g.key)).to.deep.equal(['status']);
    // Counts are never NULL; nullable groups and other aggregates may be (NULLs sort as largest).
    expect(ast.sort).to.deep.equal([{ output: 1, descending: true, canBeNull: false }]);
    expect(aggregate('aggregate[count]=*&groupBy=status').sort).to.deep.equal([
      { output: 0, descending: false, canBeNull: true },
    ]);
    expect(aggregate('aggregate[sum]=views&groupBy=status&sort=sum.views').sort).to.deep.equal([
      { output: 1, descending: false, canBeNull: true },
    ]);
    expect(aggregate('aggregate[countDistinct]=views&groupBy=id&sort=id,countDistinct.views').sort).to.deep.equal([
      { output: 0, descending: false, canBeNull: false },
      { output: 1, descending: false, canBeNull: false },
    ]);
  });

  it('refuses unknown fields, * outside counts and sorts on nothing', () => {
    expect(reasonOf(() => aggregate('aggregate[sum]=*'))).to.equal('Invalid aggregate field "*" for "sum"');
    expect(reasonOf(() => aggregate('aggregate[sum]=nope'))).to.equal('Invalid aggregate field "nope" on "articles"');
    expect(reasonOf(() => aggregate('aggregate[count]=*&groupBy=nope'))).to.equal(
      'Invalid groupBy field "nope" on "articles"',
    );
    expect(reasonOf(() => aggregate('aggregate[count]=*&sort=views'))).to.equal(
      'Invalid sort field "views" on "articles"',
    );
  });
});
