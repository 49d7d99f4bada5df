import { expect } from 'chai';
import { InvalidQueryError } from '../../../src/errors.js';
import { parseQuery, parseQueryString, queryOfSearch } from '../../../src/query/parse/parse-query.js';
import type { Query } from '../../../src/query/query.js';

const fromString = (qs: string): Query => parseQuery(parseQueryString(qs));

function reasonOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).to.be.instanceOf(InvalidQueryError);
    return (error as InvalidQueryError).extensions.reason;
  }
  throw new Error('expected INVALID_QUERY');
}

describe('parseQuery: encodings', () => {
  it('reads fields as repeated brackets, comma lists and both, trimmed', () => {
    expect(fromString('fields[]=id&fields[]=title, body').fields).to.deep.equal(['id', 'title', 'body']);
    expect(fromString('fields=id,%20author.name').fields).to.deep.equal(['id', 'author.name']);
    expect(fromString('fields=year(published),count(comments)').fields).to.deep.equal([
      'year(published)',
      'count(comments)',
    ]);
  });

  it('reads the same filter from the bracket form, a JSON string and a SEARCH body', () => {
    const expected = { _and: [{ title: { _eq: 'x' } }, { views: { _gt: '5' } }] };
    const bracket = fromString('filter[_and][0][title][_eq]=x&filter[_and][1][views][_gt]=5');
    const json = fromString(`filter=${encodeURIComponent(JSON.stringify(expected))}`);
    const body = parseQuery({ filter: expected });
    expect(bracket.filter).to.deep.equal(expected);
    expect(json.filter).to.deep.equal(expected);
    expect(body.filter).to.deep.equal(expected);
  });

  it('turns _and/_or lists that arrive as objects with numeric keys back into arrays', () => {
    const query = parseQuery({
      filter: { _or: { '0': { a: { _eq: 1 } }, '10': { b: { _eq: 2 } }, '2': { c: { _eq: 3 } } } },
    });
    expect(query.filter).to.deep.equal({ _or: [{ a: { _eq: 1 } }, { c: { _eq: 3 } }, { b: { _eq: 2 } }] });
  });

  it('keeps deep filters beyond qs default depth of 5', () => {
    const query = fromString('filter[a][b][c][d][e][f][_eq]=1');
    expect(query.filter).to.deep.equal({ a: { b: { c: { d: { e: { f: { _eq: '1' } } } } } } });
  });

  it('reads sort lists, and an empty sort as "no sort"', () => {
    expect(fromString('sort=-views,title').sort).to.deep.equal(['-views', 'title']);
    expect(fromString('sort[]=-views&sort[]=author.name').sort).to.deep.equal(['-views', 'author.name']);
    expect(fromString('sort=').sort).to.deep.equal([]);
    expect(fromString('fields=id').sort).to.equal(undefined);
  });

  it('reads limit, offset and page from strings and numbers', () => {
    expect(fromString('limit=-1&offset=5&page=2')).to.deep.include({ limit: -1, offset: 5, page: 2 });
    expect(parseQuery({ limit: 10, offset: 0 })).to.deep.include({ limit: 10, offset: 0 });
  });

  it('refuses bad numbers with the INVALID_QUERY reasons', () => {
    expect(reasonOf(() => fromString('limit=abc'))).to.equal('"limit" must be a number');
    expect(reasonOf(() => fromString('limit=-2'))).to.equal('"limit" must be greater than or equal to -1');
    expect(reasonOf(() => fromString('limit=1.5'))).to.equal('"limit" must be an integer');
    expect(reasonOf(() => fromString('offset=-1'))).to.equal('"offset" must be greater than or equal to 0');
    expect(reasonOf(() => fromString('page=0'))).to.equal('"page" must be greater than or equal to 1');
    expect(reasonOf(() => parseQuery({ limit: {} }))).to.equal('"limit" must be a number');
  });

  it('reads meta as a list or *, and names the bad entry', () => {
    expect(fromString('meta=*').meta).to.deep.equal(['total_count', 'filter_count']);
    expect(fromString('meta=total_count,filter_count').meta).to.deep.equal(['total_count', 'filter_count']);
    expect(fromString('meta[]=filter_count').meta).to.deep.equal(['filter_count']);
    expect(reasonOf(() => fromString('meta=count'))).to.equal('"meta[0]" must be one of [total_count, filter_count]');
    expect(reasonOf(() => fromString('meta=total_count,x'))).to.equal(
      '"meta[1]" must be one of [total_count, filter_count]',
    );
  });

  it('reads aggregate in bracket and JSON form, comma lists split', () => {
    expect(fromString('aggregate[sum]=views,rating&aggregate[count]=*').aggregate).to.deep.equal({
      sum: ['views', 'rating'],
      count: ['*'],
    });
    expect(fromString(`aggregate=${encodeURIComponent('{"avg":"views"}')}`).aggregate).to.deep.equal({
      avg: ['views'],
    });
    expect(reasonOf(() => fromString('aggregate[median]=views'))).to.equal('Invalid aggregate function "median"');
    expect(fromString('groupBy=status,year(published)').groupBy).to.deep.equal(['status', 'year(published)']);
  });

  it('reads alias and refuses periods and non-objects', () => {
    expect(fromString('alias[headline]=title').alias).to.deep.equal({ headline: 'title' });
    expect(fromString(`alias=${encodeURIComponent('{"top":"comments"}')}`).alias).to.deep.equal({ top: 'comments' });
    const period = '"alias" key/value can\'t contain a period character `.`';
    expect(reasonOf(() => fromString('alias[a.b]=title'))).to.equal(period);
    expect(reasonOf(() => fromString('alias[a]=author.name'))).to.equal(period);
    expect(reasonOf(() => fromString('alias=5'))).to.equal('"alias" must be an object');
  });

  it('reads deep in bracket and JSON form into nested levels', () => {
    const bracket = fromString(
      'deep[comments][_filter][text][_eq]=c2&deep[comments][_limit]=1&deep[categories][categories_id][_filter][name][_eq]=news&deep[comments][_sort]=-id',
    );
    const json = fromString(
      `deep=${encodeURIComponent(
        JSON.stringify({
          comments: { _filter: { text: { _eq: 'c2' } }, _limit: 1, _sort: '-id' },
          categories: { categories_id: { _filter: { name: { _eq: 'news' } } } },
        }),
      )}`,
    );
    const expected = {
      comments: { filter: { text: { _eq: 'c2' } }, limit: 1, sort: ['-id'] },
      categories: { deep: { categories_id: { filter: { name: { _eq: 'news' } } } } },
    };
    expect(bracket.deep).to.deep.equal(expected);
    expect(json.deep).to.deep.equal(expected);
  });

  it('refuses a filter that is not an object, or not JSON', () => {
    expect(reasonOf(() => fromString('filter={bad'))).to.equal('Invalid JSON for filter object');
    expect(reasonOf(() => fromString('filter=5'))).to.equal('Invalid filter object');
    expect(reasonOf(() => parseQuery({ filter: [1] }))).to.equal('Invalid filter object');
    expect(reasonOf(() => parseQuery({ filter: { _and: { a: 1 } } }))).to.equal('Invalid filter object');
  });

  it('checks export formats and ignores unknown parameters', () => {
    expect(fromString('export=csv').export).to.equal('csv');
    expect(reasonOf(() => fromString('export=pdf'))).to.equal('"export" must be one of [csv, json, xml, yaml]');
    expect(fromString('access_token=abc&version=main&unknown=1')).to.deep.equal({});
  });

  it('keeps __proto__ an ordinary key, never the prototype', () => {
    const query = parseQuery(JSON.parse('{"filter":{"__proto__":{"polluted":{"_eq":1}}},"alias":{"__proto__":"x"}}'));
    expect(Object.keys(query.filter ?? {})).to.deep.equal(['__proto__']);
    expect(Object.getPrototypeOf(query.filter)).to.equal(Object.prototype);
    expect(({} as Record<string, unknown>)['polluted']).to.equal(undefined);
  });
});

describe('queryOfSearch: the query of a query string, remembered', () => {
  it('parses as parseQuery(parseQueryString(...)) does, with or without the "?"', () => {
    const search = 'fields=id,title&filter[views][_gt]=1&deep[comments][_limit]=2&limit=5';
    expect(queryOfSearch(`?${search}`)).to.deep.equal(parseQuery(parseQueryString(search)));
    expect(queryOfSearch(search)).to.deep.equal(parseQuery(parseQueryString(search)));
  });

  it("gives the same query again, frozen to the leaves: no request can change another's", () => {
    const search = '?fields=id&filter[title][_in]=a,b&sort=-id';
    const query = queryOfSearch(search);
    expect(queryOfSearch(search)).to.equal(query);
    expect(() => {
      (query.fields as string[]).push('secret');
    }).to.throw(TypeError);
    expect(() => {
      (query.filter as Record<string, unknown>)['title'] = {};
    }).to.throw(TypeError);
    expect(queryOfSearch(search).fields).to.deep.equal(['id']);
  });

  it('a bad query string fails every time, nothing remembered', () => {
    for (let i = 0; i < 2; i++) expect(() => queryOfSearch('?limit=many')).to.throw(InvalidQueryError);
  });
});
