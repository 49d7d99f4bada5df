import { expect } from 'chai';
import { describeEachDatabase } from '../../support/server.js';
import { createQueryFixture, UID_1 } from './fixture-schema.js';
import { adminData, adminIds, errorOf, adminRead } from './read-client.js';

/**
 * Every filter operator against the fixture's four articles, the same
 * expectations on every database. Each row: filter (query-string form) → matching ids.
 */
const cases: readonly (readonly [string, readonly number[]])[] = [
  ['filter[title][_eq]=Hello world', [1]],
  ['filter[title]=Hello world', [1]],
  ['filter[title][_neq]=Hello world', [2, 3, 4]],
  ['filter[views][_lt]=5', [2, 4]],
  ['filter[views][_lte]=5', [1, 2, 4]],
  ['filter[views][_gt]=5', [3]],
  ['filter[views][_gte]=5', [1, 3]],
  ['filter[views][_in]=1,6', [2, 3]],
  ['filter[views][_in][]=1&filter[views][_in][]=6', [2, 3]],
  ['filter[views][_nin]=1,6', [1, 4]],
  ['filter[views][_between]=1,5', [1, 2]],
  ['filter[views][_nbetween]=1,5', [3, 4]],
  ['filter[body][_null]=true', [4]],
  ['filter[body][_nnull]=true', [1, 2, 3]],
  ['filter[tags][_empty]=true', [3, 4]],
  ['filter[tags][_nempty]=true', [1, 2]],
  ['filter[title][_contains]=o', [1, 2, 4]],
  ['filter[title][_contains]=hello', []],
  ['filter[title][_icontains]=hello', [1]],
  ['filter[title][_ncontains]=o', [3]],
  ['filter[title][_starts_with]=Hello', [1]],
  ['filter[title][_starts_with]=hello', []],
  ['filter[title][_istarts_with]=hello', [1]],
  ['filter[title][_nstarts_with]=Hello', [2, 3, 4]],
  ['filter[title][_nistarts_with]=hello', [2, 3, 4]],
  ['filter[title][_ends_with]=leap', [3]],
  ['filter[title][_ends_with]=LEAP', []],
  ['filter[title][_iends_with]=LEAP', [3]],
  ['filter[title][_nends_with]=leap', [1, 2, 4]],
  ['filter[title][_niends_with]=LEAP', [1, 2, 4]],
  // LIKE wildcards in values are literal characters.
  ['filter[body][_contains]=100%25', [2]],
  ['filter[body][_contains]=_', [3]],
  // As is the backslash (PostgreSQL's escape character): one matches one, two match none.
  ['filter[body][_contains]=C:%5Ctemp', [2]],
  ['filter[body][_contains]=C:%5C%5Ctemp', []],
  ['filter[body][_icontains]=Y 100', [2]],
  // csv: _contains matches whole elements.
  ['filter[tags][_contains]=red', [1]],
  ['filter[tags][_contains]=re', []],
  ['filter[tags][_ncontains]=red', [2, 3]],
  ['filter[featured][_eq]=true', [1]],
  ['filter[featured][_eq]=false', [2]],
  ['filter[featured][_neq]=true', [2]],
  ['filter[rating][_gte]=1.5', [1]],
  ['filter[rating][_eq]=1', [2]],
  ['filter[big][_eq]=9007199254740993', [1]],
  ['filter[published_on][_eq]=2024-01-15', [1]],
  ['filter[published_on][_lt]=2024-01-01', [2]],
  ['filter[published][_gt]=2024-01-01T00:00:00', [1]],
  ['filter[published][_between]=2023-01-01,2023-12-31', [2]],
  ['filter[created][_gte]=2024-01-15T11:00:00%2B02:00', [1]],
  ['filter[created][_gt]=2024-01-15T11:00:00%2B00:00', []],
  ['filter[created][_lt]=$NOW', [1, 2]],
  ['filter[created][_gt]=$NOW(-100 years)', [1, 2]],
  ['filter[created][_gt]=$NOW(%2B1 day)', []],
  ['filter[starts][_gt]=08:45', [2]],
  ['filter[uid][_eq]=' + UID_1.toUpperCase(), [1]],
  ['filter[uid][_null]=true', [2, 3, 4]],
  ['filter[data][_nnull]=true', [1, 2]],
  ['filter[year(published)][_eq]=2024', [1]],
  ['filter[month(published)][_eq]=6', [2]],
  ['filter[week(published_on)][_eq]=3', [1]],
  ['filter[day(published_on)][_eq]=15', [1]],
  ['filter[weekday(published_on)][_eq]=1', [1]],
  ['filter[hour(published)][_eq]=8', [2]],
  ['filter[minute(published)][_eq]=0', [1, 2]],
  ['filter[second(created)][_eq]=0', [1, 2]],
  ['filter[count(comments)][_gt]=1', [1]],
  ['filter[count(comments)][_eq]=0', [4]],
  ['filter[count(categories)][_eq]=1', [2, 3]],
  ['filter[count(tags)][_eq]=2', [1]],
  ['filter[count(tags)][_eq]=0', [3, 4]],
  ['filter[count(data)][_eq]=3', [2]],
  // An object is not a list: no elements, the same on every dialect.
  ['filter[count(data)][_eq]=0', [1, 3, 4]],
  ['filter[_or][0][views][_gt]=5&filter[_or][1][status][_eq]=draft', [2, 3]],
  ['filter[_and][0][status][_eq]=published&filter[_and][1][views][_lt]=6', [1]],
  ['filter[status][_eq]=published&filter[views][_lt]=6', [1]],
  ['filter[author][name][_eq]=Ann', [1, 3]],
  ['filter[author][_eq]=2', [2]],
  ['filter[author][_null]=true', [4]],
  ['filter[author][country][code][_eq]=DE', [2]],
  ['filter[comments][_some][text][_contains]=spam', [1]],
  ['filter[comments][_none][text][_contains]=good', [2, 4]],
  ['filter[comments][text][_eq]=d1', [2]],
  ['filter[comments][author][name][_eq]=Cid', [1]],
  ['filter[categories][categories_id][name][_eq]=tech', [1, 2]],
  ['filter[categories][_none][categories_id][name][_eq]=news', [2, 4]],
  ['filter[sections][item:headings][title][_eq]=H2', [1, 2]],
  ['filter[sections][item:texts][body][_icontains]=t1', [1]],
  ['filter[sections][collection][_eq]=texts', [1]],
  ['search=quantum', [3]],
  ['search=QUANTUM', [3]],
  ['search=5', [1]],
  ['search=Hello&filter[views][_gt]=100', []],
];

describeEachDatabase('read: filter operators', (ctx) => {
  before(async () => {
    await createQueryFixture(ctx());
  });

  for (const [filter, ids] of cases) {
    it(`${decodeURIComponent(filter)} → [${ids.join(', ')}]`, async () => {
      expect(await adminIds(ctx(), `/items/articles?fields=id&sort=id&${filter}`)).to.deep.equal(ids);
    });
  }

  it('filters the same through a SEARCH body with native JSON values', async () => {
    const data = await adminData(ctx(), '/items/articles', {
      query: {
        fields: ['id'],
        filter: { _or: [{ views: { _in: [1, 6] } }, { featured: { _eq: true } }], rating: { _nnull: true } },
        sort: ['-id'],
      },
    });
    expect(data).to.deep.equal([{ id: 2 }, { id: 1 }]);
  });

  it('resolves $CURRENT_USER and $CURRENT_ROLE paths in the same statement', async () => {
    const users = await adminData(
      ctx(),
      '/users?fields=email&filter[id][_eq]=$CURRENT_USER&filter[role][_eq]=$CURRENT_ROLE&filter[role][name][_eq]=$CURRENT_USER.role.name',
    );
    expect(users).to.deep.equal([{ email: 'admin@example.com' }]);
  });

  it('treats quotes and SQL in values as data', async () => {
    const hostile = encodeURIComponent(`x' OR '1'='1`);
    expect(await adminIds(ctx(), `/items/articles?fields=id&filter[title][_eq]=${hostile}`)).to.deep.equal([]);
    expect(await adminIds(ctx(), `/items/articles?fields=id&search=${hostile}`)).to.deep.equal([]);
    const e = await errorOf(adminRead(ctx(), `/items/articles?fields=id&filter[ti"tle][_eq]=1`));
    expect(e).to.deep.equal({
      status: 400,
      code: 'INVALID_QUERY',
      reason: 'Invalid filter key "ti"tle" on "articles"',
    });
  });
});
