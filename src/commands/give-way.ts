import { setImmediate as nextTurn } from 'node:timers/promises';
import type { CommandContext } from './types.js';

type WithTraffic = Pick<CommandContext, 'traffic'>;

/**
 * Rows a long write checks between two steps: some 0.1 ms of the event loop, so that a read
 * arriving meanwhile is seen that soon (a turn costs about a microsecond). Measured on 2
 * cores, R1's p99 during an import (2-3 ms idle): 8-9 ms with steps of 25 rows, 6-7 with 5;
 * the import alone as fast (37k rows/s). Steps by time instead (0.1-0.25 ms, COPY lines
 * included) cost the import alone 10-15% for no better p99.
 */
export const ROWS_PER_STEP = 5;

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
