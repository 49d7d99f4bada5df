import { expect } from 'chai';
import { describeEachDatabase } from '../../support/server.js';
import { call, createCaller, grant } from '../access/permission-helpers.js';
import { graphql } from '../graphql/graphql-client.js';
import { createQueryFixture } from './fixture-schema.js';
import { adminData, adminRead, errorOf } from './read-client.js';

const MAX = 3;
const EXCEEDED = { status: 400, code: 'INVALID_QUERY', reason: 'Max relational depth exceeded' };

/** `filter` as a query string value. */
const q = (value: unknown): string => encodeURIComponent(JSON.stringify(value));

// Directus 10 (validate-query): MAX_RELATIONAL_DEPTH bounds fields, filter, sort and deep,
// counting the field names along a path (operators such as _some do not count).
describeEachDatabase(
  'MAX_RELATIONAL_DEPTH on fields, filter, sort and deep',
  (ctx) => {
    before(async () => {
      await createQueryFixture(ctx());
    });

    it('filter: as deep as the limit answers, one field deeper is 400 INVALID_QUERY', async () => {
      const atLimit = { article: { author: { name: { _eq: 'Ann' } } } };
      expect(await adminData(ctx(), `/items/comments?fields=id&sort=id&filter=${q(atLimit)}`)).to.deep.equal([
        { id: 1 },
        { id: 2 },
        { id: 3 },
        { id: 5 },
      ]);
      const viaSome = { comments: { _some: { author: { name: { _eq: 'Ann' } } } } };
      expect(await adminData(ctx(), `/items/articles?fields=id&sort=id&filter=${q(viaSome)}`)).to.deep.equal([
        { id: 2 },
        { id: 3 },
      ]);
      const tooDeep = { article: { author: { country: { code: { _eq: 'NL' } } } } };
      expect(await errorOf(adminRead(ctx(), `/items/comments?fields=id&filter=${q(tooDeep)}`))).to.deep.equal(EXCEEDED);
      const inGroup = { _and: [{ id: { _gt: 0 } }, { _or: [tooDeep] }] };
      expect(await errorOf(adminRead(ctx(), `/items/comments?fields=id&filter=${q(inGroup)}`))).to.deep.equal(EXCEEDED);
      expect(
        await errorOf(adminRead(ctx(), '/items/comments', { query: { fields: ['id'], filter: tooDeep } })),
      ).to.deep.equal(EXCEEDED);
    });

    it('sort and fields: paths of more names than the limit are refused', async () => {
      expect(
        await adminData(ctx(), '/items/comments?fields=id&sort=article.author.name,id&filter[id][_lte]=2'),
      ).to.deep.equal([{ id: 1 }, { id: 2 }]);
      expect(
        await errorOf(adminRead(ctx(), '/items/comments?fields=id&sort=article.author.country.code')),
      ).to.deep.equal(EXCEEDED);
      expect(
        await errorOf(adminRead(ctx(), '/items/comments?fields=id&sort=-article.author.country.code')),
      ).to.deep.equal(EXCEEDED);
      expect(await errorOf(adminRead(ctx(), '/items/comments?fields=article.author.country.code'))).to.deep.equal(
        EXCEEDED,
      );
    });

    it('deep: each relation counts, and so do its _filter and _sort below it', async () => {
      const ok = await adminData(
        ctx(),
        `/items/articles?fields=id,comments.id&filter[id][_eq]=1&deep=${q({ comments: { _filter: { author: { name: { _eq: 'Bob' } } } } })}`,
      );
      expect(ok).to.deep.equal([{ id: 1, comments: [{ id: 1 }, { id: 3 }] }]);
      const cases = [
        { comments: { _filter: { author: { country: { code: { _eq: 'NL' } } } } } },
        { comments: { _sort: ['author.country.code'] } },
        { comments: { author: { country: { authors: { _limit: 1 } } } } },
      ];
      for (const deep of cases) {
        expect(
          await errorOf(adminRead(ctx(), `/items/articles?fields=id,comments.id&deep=${q(deep)}`)),
          JSON.stringify(deep),
        ).to.deep.equal(EXCEEDED);
      }
    });

    it('GET /items/:collection/:key: fields, filter, sort and deep past the limit are 400 as on the list', async () => {
      expect(await adminData(ctx(), '/items/comments/1?fields=id,article.author.name')).to.deep.equal({
        id: 1,
        article: { author: { name: 'Ann' } },
      });
      const tooDeep = [
        'fields=article.author.country.code',
        `filter=${q({ article: { author: { country: { code: { _eq: 'NL' } } } } })}`,
        'sort=article.author.country.code',
        `deep=${q({ article: { author: { country: { authors: { _limit: 1 } } } } })}`,
      ];
      for (const params of tooDeep) {
        expect(await errorOf(adminRead(ctx(), `/items/comments/1?${params}`)), params).to.deep.equal(EXCEEDED);
        expect(await errorOf(adminRead(ctx(), `/items/comments/1?as_of=2000-01-01&${params}`)), params).to.deep.equal(
          EXCEEDED,
        );
      }
    });

    it('aggregates and meta counts check the filter too', async () => {
      const tooDeep = q({ article: { author: { country: { code: { _eq: 'NL' } } } } });
      expect(await errorOf(adminRead(ctx(), `/items/comments?aggregate[count]=*&filter=${tooDeep}`))).to.deep.equal(
        EXCEEDED,
      );
      expect(await errorOf(adminRead(ctx(), `/items/comments?meta=filter_count&filter=${tooDeep}`))).to.deep.equal(
        EXCEEDED,
      );
    });

    it('GraphQL: the same limit on filter, sort and nested arguments', async () => {
      const queries = [
        '{ comments(filter: { article: { author: { country: { code: { _eq: "NL" } } } } }) { id } }',
        '{ comments(sort: ["article.author.country.code"]) { id } }',
        '{ articles { comments(filter: { author: { country: { code: { _eq: "NL" } } } }) { id } } }',
      ];
      for (const query of queries) {
        const res = await graphql(ctx(), query);
        expect(res.body.errors?.[0]?.extensions, query).to.deep.include({
          code: 'INVALID_QUERY',
          reason: EXCEEDED.reason,
        });
        expect(res.body.data ?? null, query).to.satisfy(
          (data: unknown) => data === null || Object.values(data as object).every((v) => v === null),
        );
      }
      const res = await graphql(
        ctx(),
        '{ comments(filter: { article: { author: { name: { _eq: "Ann" } } } }) { id } }',
      );
      expect(res.body).to.deep.equal({ data: { comments: [{ id: '1' }, { id: '2' }, { id: '3' }, { id: '5' }] } });
    });

    it('a permission filter is not limited (Directus checks the query only)', async () => {
      const caller = await createCaller(ctx().server.db);
      await grant(ctx(), caller.role, [
        {
          collection: 'comments',
          action: 'read',
          permissions: { article: { author: { country: { code: { _eq: 'NL' } } } } },
        },
      ]);
      const res = await call(ctx(), caller.token, 'GET', '/items/comments?fields=id&sort=id');
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body?.['data']).to.deep.equal([{ id: 1 }, { id: 2 }, { id: 3 }, { id: 5 }]);
    });
  },
  { env: { MAX_RELATIONAL_DEPTH: String(MAX) } },
);
