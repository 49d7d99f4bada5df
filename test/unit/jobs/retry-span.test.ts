import { expect } from 'chai';
import { loadConfig } from '../../../src/config/index.js';
import { retryDelayMs } from '../../../src/jobs/job-queue.js';

/** How long the tries of a job span: the waits between its `attempts` tries. */
function spanMs(attempts: number): number {
  let total = 0;
  for (let made = 1; made < attempts; made += 1) total += retryDelayMs(made);
  return total;
}

describe('retries of a queued flow run (FLOWS_RETRY_ATTEMPTS)', () => {
  it('by default span more than ten minutes: a receiver down that long gets the delivery once back', () => {
    const { flows, jobs } = loadConfig({ SECRET: 'test' }, { defaultConfigPath: '/nonexistent/.env' });
    expect(spanMs(flows.retryAttempts)).to.be.above(10 * 60_000);
    // 1 + 3 + 7 + ... + 511 s: the last try about 17 minutes after the first.
    expect(spanMs(flows.retryAttempts)).to.equal(1_013_000);
    // JOBS_ATTEMPTS alone (exports, imports) gave up after seconds.
    expect(spanMs(jobs.attempts)).to.equal(4000);
  });
});
