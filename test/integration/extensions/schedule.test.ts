import { expect } from 'chai';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { createLogger } from '../../../src/logger/index.js';
import { startServer, type RunningServer } from '../../../src/server.js';
import { describeEachDatabase, testConfig } from '../../support/server.js';
import { postgresTarget, redisUnavailable, requireOrSkip, TEST_REDIS_URL } from '../../support/services.js';

const FIXTURES = fileURLToPath(new URL('../../fixtures/extensions-schedule/', import.meta.url));

interface Run {
  readonly instance: number;
  readonly second: number;
}

describeEachDatabase(
  'extensions: schedule() runs once across instances sharing Redis',
  (ctx) => {
    let second: RunningServer | undefined;

    before(async function () {
      requireOrSkip(this, await redisUnavailable());
      second = await startServer(testConfig(ctx().database, ctx().env), {
        logger: createLogger({ logLevel: 'silent', logStyle: 'raw' }),
      });
    });

    after(async () => {
      await second?.close();
    });

    it('an every-second schedule runs once per tick, whichever instance claims it', async () => {
      const runs = async (): Promise<Run[]> => ((await (await ctx().api('/ticker')).json()) as { data: Run[] }).data;
      const from = Math.floor(Date.now() / 1000) + 1;
      await delay(5300);
      const seen = (await runs()).filter((run) => run.second >= from && run.second < from + 4);
      const perSecond = new Map<number, number>();
      for (const run of seen) perSecond.set(run.second, (perSecond.get(run.second) ?? 0) + 1);
      // Both instances armed the job; each of the four ticks ran exactly once between them.
      expect(new Set((await runs()).map((run) => run.instance)).size).to.be.at.most(2);
      expect([...perSecond.keys()].sort()).to.deep.equal([from, from + 1, from + 2, from + 3]);
      expect([...perSecond.values()]).to.deep.equal([1, 1, 1, 1]);
    });
  },
  { targets: [postgresTarget], env: { REDIS: TEST_REDIS_URL }, extensionsPath: FIXTURES, timeoutMs: 30_000 },
);
