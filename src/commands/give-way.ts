import { setImmediate as nextTurn } from 'node:timers/promises';
import type { CommandContext } from './types.js';

type WithTraffic = Pick<CommandContext, 'traffic'>;

/**
 * Rows a long write checks between two steps: some 1-2 ms of the event loop, so that a read
 * arriving meanwhile waits no longer than that (a turn costs about a microsecond).
 */
export const ROWS_PER_STEP = 25;

/**
 * Between two steps of a long write that holds the event loop (checking rows): a turn of the
 * event loop, so that requests arriving are seen, and while other requests are in flight a
 * wait for them (http/traffic.ts).
 */
export function giveWay(ctx: WithTraffic): Promise<void> {
  return ctx.traffic === undefined ? nextTurn() : ctx.traffic.giveWay();
}

/**
 * Between two chunks of rows sent to the database (COPY): a wait only while other requests are
 * in flight. Otherwise none, not even a turn: the database works on the rows sent while the
 * event loop checks the next ones, and a turn per chunk would leave it waiting for them.
 */
export function giveWayIfBusy(ctx: WithTraffic): Promise<void> | undefined {
  return ctx.traffic?.isBusy() === true ? ctx.traffic.giveWay() : undefined;
}
