import Bull from 'bull';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { setTimeout as delay } from 'node:timers/promises';
import { ServiceUnavailableError } from '../../../src/errors.js';
import type { JobHandler, JobQueue } from '../../../src/jobs/job.js';
import { createJobQueue, startJobWorker, type JobQueueOptions, type JobWorker } from '../../../src/jobs/job-queue.js';
import { dropNamespace, testNamespace } from '../../support/redis-namespace.js';
import { redisUnavailable, requireOrSkip, TEST_REDIS_URL } from '../../support/services.js';

type Warned = { details: Record<string, unknown>; message: string }[];

/** Polls until `check` holds, or fails naming `what`. */
async function within(ms: number, what: string, check: () => Promise<boolean> | boolean): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) expect.fail(`${what}: not within ${ms} ms`);
    await delay(25);
  }
}

/**
 * JobQueue.post (src/jobs/posted-jobs.ts): a job handed over with one XADD, admitted into bull
 * by a worker in the order posted, under its id; real Redis, real bull, workers in this process.
 */
describe('posted jobs: one Redis command from the API, admitted into the queue by a worker', function () {
  this.timeout(60_000);
  let namespace = '';
  let redis: Redis | undefined;
  const workers: JobWorker[] = [];
  const queues: JobQueue[] = [];
  const warned: Warned = [];
  const ran: unknown[] = [];

  const optionsWith = (handlers: Record<string, JobHandler>, concurrency = 1): JobQueueOptions => ({
    redis: { url: TEST_REDIS_URL, commandTimeoutMs: 1000 },
    namespace,
    settings: { attempts: 2, lockDurationMs: 5000, stalledIntervalMs: 5000, concurrency },
    handlers,
    logger: {
      info: () => undefined,
      warn: (details, message) => warned.push({ details, message }),
      error: (details, message) => warned.push({ details, message }),
    },
  });
  const record: JobHandler = (data) => {
    ran.push(data);
    return Promise.resolve();
  };
  const producer = () => {
    const queue = createJobQueue(optionsWith({ record }));
    queues.push(queue);
    return queue;
  };
  const worker = async (concurrency = 1) => {
    const started = await startJobWorker(optionsWith({ record }, concurrency));
    workers.push(started);
    return started;
  };
  const key = (suffix: string) => `${namespace}:bull:jobs:${suffix}`;
  const posted = () => redis?.xlen(key('posted')) ?? Promise.resolve(-1);

  before(async function () {
    requireOrSkip(this, await redisUnavailable());
    redis = new Redis(TEST_REDIS_URL);
  });

  beforeEach(() => {
    namespace = testNamespace('svc-posted');
    ran.length = 0;
    warned.length = 0;
  });

  afterEach(async () => {
    await Promise.all(workers.splice(0).map((one) => one.close(1000)));
    await Promise.all(queues.splice(0).map((one) => one.close()));
    await dropNamespace(namespace);
  });

  after(() => {
    redis?.disconnect();
  });

  it('runs each posted job once, with its data, in the order posted; a post repeated under its id while queued runs once', async () => {
    const jobs = producer();
    // Posted before any worker runs: they wait in the stream, not in bull.
    for (let n = 0; n < 30; n++) await jobs.post('record', `job-${String(n)}`, { n });
    await jobs.post('record', 'job-3', { n: 3 });
    expect(await posted()).to.equal(31);
    expect(await redis?.llen(key('wait'))).to.equal(0);
    await worker();
    await within(20_000, 'thirty runs', () => ran.length >= 30);
    await delay(300);
    expect(ran).to.deep.equal(Array.from({ length: 30 }, (_, n) => ({ n })));
    expect(await posted(), 'admitted posts leave the stream').to.equal(0);
  });

  it('runs nothing while the queue is paused, counting the posts as waiting; runs them once it is resumed', async () => {
    const jobs = producer();
    await worker();
    // Once the probe ran, the admitter waits for the next post.
    await jobs.post('record', 'probe', { n: -1 });
    await within(10_000, 'the probe', () => ran.length === 1);
    ran.length = 0;
    const bull = new Bull('jobs', TEST_REDIS_URL, { prefix: `${namespace}:bull` });
    try {
      await bull.pause();
      for (let n = 0; n < 3; n++) await jobs.post('record', `paused-${String(n)}`, { n });
      await delay(1500);
      expect(ran).to.deep.equal([]);
      // Still posted (an admission under way as the pause came may have put one in the paused list).
      expect((await posted()) + ((await redis?.llen(key('paused'))) ?? 0)).to.equal(3);
      expect((await jobs.depth()).waiting).to.equal(3);
      await bull.resume();
      await within(10_000, 'the three runs after the resume', () => ran.length === 3);
      expect((await jobs.depth()).waiting).to.equal(0);
    } finally {
      await bull.close();
    }
  });

  it('leaves posts to an admitter holding the lease; once its lease runs out (it died), another admits them', async () => {
    const jobs = producer();
    await worker();
    // A worker that died while admitting: its lease stays until it expires.
    await redis?.set(key('posted:lease'), 'a dead worker', 'PX', 4000);
    await jobs.post('record', 'leased-1', { n: 1 });
    await delay(1000);
    expect(ran, 'not while the lease is held').to.deep.equal([]);
    await within(10_000, 'the run after the lease expired', () => ran.length === 1);
    expect(ran).to.deep.equal([{ n: 1 }]);
  });

  it('with two workers each post runs exactly once', async () => {
    const jobs = producer();
    await worker(4);
    await worker(4);
    await Promise.all(Array.from({ length: 200 }, (_, n) => jobs.post('record', `both-${String(n)}`, { n })));
    await within(30_000, 'two hundred runs', () => ran.length >= 200);
    await delay(1500);
    const seen = ran.map((data) => (data as { n: number }).n).sort((a, b) => a - b);
    expect(seen).to.deep.equal(Array.from({ length: 200 }, (_, n) => n));
  });

  it('drops an entry that is not a posted job, with a warning, and admits the posts around it', async () => {
    const jobs = producer();
    await jobs.post('record', 'before', { n: 1 });
    await redis?.xadd(key('posted'), '*', 'job', '{not json');
    await jobs.post('record', 'after', { n: 2 });
    await worker();
    await within(10_000, 'both runs', () => ran.length === 2);
    expect(ran).to.deep.equal([{ n: 1 }, { n: 2 }]);
    expect(warned.map((one) => one.message)).to.include('job queue: a posted job that is not one is dropped');
  });

  it('a post Redis does not take is refused as 503 SERVICE_UNAVAILABLE, as an add is', async () => {
    // Nothing listens on port 1: the post gets no answer within its time limit.
    const jobs = createJobQueue({
      ...optionsWith({ record }),
      redis: { url: 'redis://127.0.0.1:1', commandTimeoutMs: 100 },
    });
    queues.push(jobs);
    const refused = await jobs.post('record', 'nowhere', {}).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).to.be.instanceOf(ServiceUnavailableError);
  });
});
