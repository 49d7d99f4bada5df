import { expect } from 'chai';
import { describeEachDatabase } from '../../support/server.js';
import { createQueryFixture } from './fixture-schema.js';
import { adminData, adminRead, errorOf } from './read-client.js';

/** `_or` of `count` conditions on id: one bound value each (long `_in` lists bind as one). */
const manyConditions = (count: number) => ({
  query: { fields: ['id'], filter: { _or: Array.from({ length: count }, (_, i) => ({ id: { _eq: i + 1 } })) } },
});

// A read that binds more values than one statement takes is INVALID_QUERY, named so: PostgreSQL
// broke its protocol (08P01, answered as a lost database, 503) and SQLite threw (500).
describeEachDatabase(
  'read: more values than one statement binds',
  (ctx) => {
    before(async () => {
      await createQueryFixture(ctx());
    });

    it('is INVALID_QUERY where the database has a limit, and runs where it has none', async () => {
      const limit = { sqlite: 32_766, postgres: 65_535, mariadb: Infinity }[ctx().dialect];
      const count = 70_000;
      const res = adminRead(ctx(), '/items/articles', manyConditions(count));
      if (limit === Infinity) {
        expect(((await res).body['data'] as unknown[]).length).to.be.greaterThan(0);
        return;
      }
      const error = await errorOf(res);
      expect(error).to.deep.include({ status: 400, code: 'INVALID_QUERY' });
      expect(error.reason).to.match(new RegExp(`^The query has \\d+ values: at most ${limit} fit one statement`));
      // Under the limit the same kind of read runs.
      expect(await adminData(ctx(), '/items/articles', manyConditions(2))).to.deep.equal([{ id: 1 }, { id: 2 }]);
    });
  },
  { env: { MAX_PAYLOAD_SIZE: '4mb' } },
);
