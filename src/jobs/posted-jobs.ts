import type Bull from 'bull';
import type { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { invariant } from '../errors.js';
import type { AddOptions } from './job.js';

/**
 * Posted jobs: a job handed over with ONE Redis command (an XADD to the queue's `posted`
 * stream), for a caller that must not pay bull's add (a Lua script of a dozen arguments, its
 * job hash and its JSON: about three times the CPU, in the caller and in Redis). A worker
 * admits them into bull, in the order they were posted, under the id they were posted with.
 *
 * One worker admits at a time (a lock with a lease), and it adds a batch's jobs in one MULTI,
 * in order, before it deletes them from the stream: the queue holds the posts in their order,
 * as if the posting processes had added them themselves. A worker that dies mid-batch leaves its
 * posts in the stream; the next admitter adds them again under the same ids (bull ignores an
 * id it holds; a job that already ran and was removed runs again, which a handler that must
 * run once guards, as any bull job retried after its worker died). While the queue is paused
 * (bull's global pause) nothing is admitted: a paused queue holds every job, posted ones too.
 */

/** The stream's field holding a post. */
const FIELD = 'job';
/** Posts one admission takes (and deletes) at a time. */
const BATCH = 100;
/** The admitting worker's lease: past it (the worker died), another admits. */
const LEASE_MS = 30_000;
/** How long a wait for a post blocks before it looks again (a pause lifted, the lease expired). */
const WAIT_MS = 1000;

/** A job handed over by {@link postJob}. */
interface Post {
  readonly name: string;
  readonly id: string;
  readonly data: unknown;
  readonly options?: AddOptions;
}

/** The stream of `queue`'s posted jobs. */
function postedKey(queue: Bull.Queue): string {
  return queue.toKey('posted');
}

/** Posts job `name` under `id` to `queue`: one XADD on the queue's client. Answers the post's entry. */
export async function postJob(
  queue: Bull.Queue,
  name: string,
  id: string,
  data: unknown,
  options: AddOptions = {},
): Promise<string> {
  const post: Post = { name, id, data, options };
  const entry = await queue.client.xadd(postedKey(queue), '*', FIELD, JSON.stringify(post));
  invariant(entry !== null, 'XADD without NOMKSTREAM answers the entry');
  return entry;
}

/** Takes back a post no worker admitted yet (its poster answered that it was not queued). */
export async function withdrawPost(queue: Bull.Queue, entry: string): Promise<void> {
  await queue.client.xdel(postedKey(queue), entry);
}

/** Posted jobs not admitted yet (the metrics count them as waiting). */
export function postedCount(queue: Bull.Queue): Promise<number> {
  return queue.client.xlen(postedKey(queue));
}

interface AdmitLog {
  warn(details: Record<string, unknown>, message: string): void;
}

/**
 * The worker's admitter: until `stop`, admits posted jobs into `queue` whenever some wait and
 * the lease is free. `waiter` is a connection of its own (a blocking read holds it).
 */
export function startAdmitting(queue: Bull.Queue, waiter: Redis, logger: AdmitLog): { stop(): void } {
  const key = postedKey(queue);
  const lease = queue.toKey('posted:lease');
  const holder = randomUUID();
  const stopping = new AbortController();
  /** A call, not a variable: the loop reads what `stop` did meanwhile. */
  const isStopped = () => stopping.signal.aborted;
  /** The last post this worker admitted: a wait returns as soon as the stream holds a later one. */
  let seen = '0-0';

  const admitBatch = async (): Promise<number> => {
    const entries = await queue.client.xrange(key, '-', '+', 'COUNT', BATCH);
    const posts = entries.flatMap(([entryId, fields]) => {
      const post = parsePost(fields[1]);
      if (post === undefined) logger.warn({ entry: entryId }, 'job queue: a posted job that is not one is dropped');
      return post === undefined
        ? []
        : [{ name: post.name, data: post.data, opts: { jobId: post.id, ...post.options } }];
    });
    // One MULTI, in the posts' order: the queue hands them out in that order.
    if (posts.length > 0) await queue.addBulk(posts);
    if (entries.length > 0) await queue.client.xdel(key, ...entries.map(([entryId]) => entryId));
    seen = entries.at(-1)?.[0] ?? seen;
    return entries.length;
  };

  /** Admits while posts wait, holding the lease; false when another worker holds it. */
  const admit = async (): Promise<boolean> => {
    if ((await queue.client.set(lease, holder, 'PX', LEASE_MS, 'NX')) === null) return false;
    try {
      // Renewed before each batch: a long backlog outlives one lease.
      while (!isStopped() && (await admitBatch()) === BATCH) await queue.client.pexpire(lease, LEASE_MS);
    } finally {
      // Only this worker's own lease (one that outlived it is another's by now).
      if ((await queue.client.get(lease)) === holder) await queue.client.del(lease);
    }
    return true;
  };

  void (async () => {
    while (!isStopped()) {
      try {
        if (await queue.isPaused()) {
          await delay(WAIT_MS, undefined, { signal: stopping.signal });
          continue;
        }
        // Another worker admitting: wait for posts after now ('$'), not the ones it is adding.
        const after = (await admit()) ? seen : '$';
        // Blocks until a post after `after` (or WAIT_MS: a lease expired, a pause lifted).
        await waiter.xread('COUNT', 1, 'BLOCK', WAIT_MS, 'STREAMS', key, after);
      } catch (error) {
        if (isStopped()) break;
        logger.warn({ err: error }, 'job queue: posted jobs could not be admitted; trying again');
        await delay(WAIT_MS / 2, undefined, { signal: stopping.signal }).catch(() => undefined);
      }
    }
  })();

  return {
    // Not waiting for the loop: a command it awaits on a Redis that hangs ends when the queue closes.
    stop() {
      stopping.abort();
      waiter.disconnect();
    },
  };
}

function parsePost(text: string | undefined): Post | undefined {
  try {
    const post = JSON.parse(text ?? '') as Partial<Post> | null;
    return typeof post?.name === 'string' && typeof post.id === 'string' ? (post as Post) : undefined;
  } catch {
    return undefined;
  }
}
