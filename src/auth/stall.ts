import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Waits until at least `minMs` have passed since `startedAt` (a `performance.now()` value),
 * so failures take as long whatever their cause (LOGIN_STALL_TIME).
 */
export async function stall(minMs: number, startedAt: number): Promise<void> {
  const remaining = minMs - (performance.now() - startedAt);
  if (remaining > 0) await sleep(remaining);
}
