import { expect } from 'chai';
import { describeEachDatabase } from '../../support/server.js';
import { DATABASE_TARGETS } from '../../support/services.js';
import { expectOnlyError, postJson } from '../auth/helpers.js';

describeEachDatabase(
  'GET /utils/random/string, POST /utils/hash/generate and /utils/hash/verify',
  (ctx) => {
    const post = (path: string, body: unknown) => postJson(ctx().api, path, body);

    it('answers a random string of 32 URL-safe symbols by default, or of the asked length', async () => {
      const res = await ctx().api('/utils/random/string');
      expect(res.status).to.equal(200);
      expect(((await res.json()) as { data: string }).data).to.match(/^[A-Za-z0-9_-]{32}$/);
      const long = (await (await ctx().api('/utils/random/string?length=500')).json()) as { data: string };
      expect(long.data).to.match(/^[A-Za-z0-9_-]{500}$/);
    });

    for (const length of ['0', '501', 'abc', '1.5']) {
      it(`refuses length=${length} with INVALID_QUERY`, async () => {
        await expectOnlyError(await ctx().api(`/utils/random/string?length=${length}`), 400, 'INVALID_QUERY');
      });
    }

    it('hashes with argon2id and verifies the string against the hash', async () => {
      const generated = await post('/utils/hash/generate', { string: 'secret value' });
      expect(generated.status).to.equal(200);
      const hash = ((await generated.json()) as { data: string }).data;
      // The suite's HASH_MEMORY_COST and HASH_TIME_COST (test/support/server.ts), one lane.
      expect(hash).to.match(/^\$argon2id\$v=19\$m=4096,p=1,t=3\$/);
      const verify = async (string: string, against: string) =>
        ((await (await post('/utils/hash/verify', { string, hash: against })).json()) as { data: boolean }).data;
      expect(await verify('secret value', hash)).to.equal(true);
      expect(await verify('other value', hash)).to.equal(false);
      expect(await verify('secret value', 'not-a-hash')).to.equal(false);
    });

    it('refuses a missing string or hash with INVALID_PAYLOAD', async () => {
      await expectOnlyError(await post('/utils/hash/generate', {}), 400, 'INVALID_PAYLOAD');
      await expectOnlyError(await post('/utils/hash/generate', { string: '' }), 400, 'INVALID_PAYLOAD');
      await expectOnlyError(await post('/utils/hash/verify', { string: 'x' }), 400, 'INVALID_PAYLOAD');
    });
  },
  // The routes touch no database.
  { targets: DATABASE_TARGETS.filter((target) => target.dialect === 'sqlite') },
);
