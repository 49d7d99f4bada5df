import { InvalidPayloadError } from '../errors.js';
import { compareEntryIds, type ChangeFeed } from './change-feed.js';
import type { LiveBatch } from './live-batch.js';
import type { LiveReads, LiveSubscription } from './live-reads.js';

/** A subscription's `after`: the id of the last change its client saw (a resume). */
export function readAfter(message: Readonly<Record<string, unknown>>): string | undefined {
  const after = message['after'];
  if (after === undefined) return undefined;
  if (typeof after !== 'string' || !/^\d{1,20}-\d{1,20}$/.test(after))
    throw new InvalidPayloadError('"after" is the id of a change, as subscription messages carry it');
  return after;
}

/**
 * A subscription that picks up after change `after` of the feed's log (a client whose
 * connection ended, a rolling restart's WebSocket closed with 1012, reconnected anywhere): it
 * is added first, what is delivered from then on held; the log's changes after `after` are
 * replayed to it, each read as of now; then what was held goes out, less the changes the replay
 * covered. Every change after `after` reaches it once and in the log's order. Undefined, and
 * nothing added, when the log cannot tell the gap (no Redis, trimmed past it, Redis failing):
 * the caller starts it afresh with an `init`.
 */
async function resumeSubscription(
  live: LiveReads,
  feed: Pick<ChangeFeed, 'since'>,
  subscription: LiveSubscription,
  after: string,
): Promise<(() => void) | undefined> {
  let held: LiveBatch[] | undefined = [];
  let replayedUpTo: string | undefined;
  const isCovered = (batch: LiveBatch) =>
    replayedUpTo !== undefined && batch.change !== undefined && compareEntryIds(batch.change, replayedUpTo) <= 0;
  const stop = live.add({
    ...subscription,
    deliver(batch) {
      if (held !== undefined) held.push(batch);
      else if (!isCovered(batch)) subscription.deliver(batch);
    },
  });
  try {
    const changes = await feed.since(after).catch(() => undefined);
    if (changes === undefined) {
      stop();
      return undefined;
    }
    replayedUpTo = changes.at(-1)?.id ?? after;
    await live.replay(subscription, changes);
  } catch (error) {
    stop();
    throw error;
  }
  const waiting = held;
  held = undefined;
  for (const batch of waiting) if (!isCovered(batch)) subscription.deliver(batch);
  return stop;
}

/**
 * Adds `subscription` to the live reads, or with `after` resumes it there
 * ({@link resumeSubscription}). `resumed` false: it was added afresh (no `after`, or the log
 * cannot tell the gap), and the caller answers its `init`. `stop` ends it either way.
 */
export async function startSubscription(
  live: LiveReads,
  feed: Pick<ChangeFeed, 'since'>,
  subscription: LiveSubscription,
  after: string | undefined,
): Promise<{ stop: () => void; resumed: boolean }> {
  const resumed = after === undefined ? undefined : await resumeSubscription(live, feed, subscription, after);
  return resumed === undefined ? { stop: live.add(subscription), resumed: false } : { stop: resumed, resumed: true };
}
