import { setTimeout as delay } from 'node:timers/promises';
import type { Knex } from 'knex';
import { isConnectionError } from './translate-error.js';

export interface WaitLog {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

const RETRY_EVERY_MS = 1000;
/** While waiting, a reminder this often (the first failure is always logged). */
const REMIND_EVERY_MS = 10_000;

/**
 * A start against a database that is not up yet (a container starting beside it, a restart):
 * retries a round trip every second for up to `waitMs`, with one clear log line when it starts
 * waiting and a reminder every 10 s. Errors that are not about reaching the server (wrong
 * password, unknown database) and the last error after `waitMs` are thrown at once.
 */
export async function waitForDatabase(db: Knex, waitMs: number, logger: WaitLog): Promise<void> {
  const started = Date.now();
  let remindedAt: number | undefined;
  for (;;) {
    try {
      await db.raw('SELECT 1');
      if (remindedAt !== undefined) logger.info({ waitedMs: Date.now() - started }, 'database reachable: starting');
      return;
    } catch (error) {
      const waited = Date.now() - started;
      if (!isConnectionError(error) || waited + RETRY_EVERY_MS > waitMs) throw error;
      if (remindedAt === undefined || Date.now() - remindedAt >= REMIND_EVERY_MS) {
        const reason = error instanceof Error ? error.message : String(error);
        logger.warn(
          { reason, waitedMs: waited, waitMs },
          `database not reachable yet (${reason}): retrying every second for up to ${Math.round(waitMs / 1000)} s (DB_CONNECT_WAIT)`,
        );
        remindedAt = Date.now();
      }
      await delay(RETRY_EVERY_MS);
    }
  }
}
