import { setImmediate as nextTurn } from 'node:timers/promises';
import type { CommandContext } from './types.js';

/** Between two steps of a long write: the context's giveWay (http/traffic.ts), else a turn of the event loop. */
export function giveWay(ctx: Pick<CommandContext, 'giveWay'>): Promise<void> {
  return ctx.giveWay === undefined ? nextTurn() : ctx.giveWay();
}
