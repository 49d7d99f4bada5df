import { expect } from 'chai';
import { createLogger } from '../../../src/logger/index.js';
import { startServer, type RunningServer } from '../../../src/server.js';
import { describeEachDatabase, testConfig } from '../../support/server.js';
import { redisUnavailable, requireOrSkip, sqliteTarget, TEST_REDIS_URL } from '../../support/services.js';
import { adminWrite, createNotes, retitleInSql, titleOf, type Api } from './cache-helpers.js';

/**
 * Two instances on one database and one Redis: `ctx().server` and a second one started here
 * with the same environment (the suite's CACHE_NAMESPACE included).
 */
function describeTwoInstances(
  title: string,
  env: Record<string, string>,
  body: (apis: () => { first: Api; second: Api; server: RunningServer }) => void,
): void {
  const shared = { ...env, REDIS: TEST_REDIS_URL, CACHE_ENABLED: 'true', CACHE_AUTO_PURGE: 'true' };
  describeEachDatabase(
    title,
    (ctx) => {
      let second: RunningServer | undefined;
      before(async function () {
        requireOrSkip(this, await redisUnavailable());
        await createNotes(ctx());
        second = await startServer(testConfig(ctx().database, ctx().env), {
          logger: createLogger({ logLevel: 'silent', logStyle: 'raw' }),
        });
      });
      after(async () => {
        await second?.close();
      });
      body(() => {
        const other = second;
        if (other === undefined) throw new Error('second instance not started');
        return { first: ctx().api, second: (path, init) => fetch(other.url + path, init), server: ctx().server };
      });
    },
    { targets: [sqliteTarget], env: () => shared },
  );
}

describeTwoInstances('data cache in Redis shared by two instances', { CACHE_STORE: 'redis' }, (apis) => {
  it('an answer stored by one instance is served by the other', async () => {
    const { first, second, server } = apis();
    expect(await titleOf(first, 1)).to.equal('first');
    await retitleInSql(server.db, 1, 'changed in SQL');
    expect(await titleOf(second, 1)).to.equal('first');
  });

  it('a write on one instance is seen at once by a read on the other', async () => {
    const { first, second } = apis();
    expect(await titleOf(second, 2)).to.equal('second');
    await adminWrite(first, 'PATCH', '/items/notes/2', { title: 'patched on the first' });
    expect(await titleOf(second, 2)).to.equal('patched on the first');
    expect(await titleOf(second, 1)).to.equal('changed in SQL');
  });

  it('/utils/cache/clear on one instance clears the other', async () => {
    const { first, second, server } = apis();
    expect(await titleOf(first, 3)).to.equal('third');
    await retitleInSql(server.db, 3, 'cleared');
    expect(await titleOf(first, 3)).to.equal('third');
    await adminWrite(second, 'POST', '/utils/cache/clear', {});
    expect(await titleOf(first, 3)).to.equal('cleared');
  });
});

describeTwoInstances(
  'data cache in memory, purged across instances through Redis pub/sub',
  { CACHE_STORE: 'memory' },
  (apis) => {
    it('a write on one instance clears the other instance’s entries', async () => {
      const { first, second, server } = apis();
      expect(await titleOf(second, 1)).to.equal('first');
      await retitleInSql(server.db, 1, 'changed in SQL');
      expect(await titleOf(second, 1)).to.equal('first');
      await adminWrite(first, 'PATCH', '/items/notes/2', { title: 'patched on the first' });
      // The message reaches the other instance shortly after the write answered.
      let title: unknown;
      for (let attempt = 0; attempt < 50 && title !== 'changed in SQL'; attempt++) {
        title = await titleOf(second, 1);
        if (title !== 'changed in SQL') await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(title).to.equal('changed in SQL');
    });
  },
);
