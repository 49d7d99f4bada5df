import type { Redis, RedisOptions } from 'ioredis';

/**
 * The options of every Redis client of the API (REDIS_COMMAND_TIMEOUT): a command not
 * answered within `commandTimeoutMs` fails (a hung Redis must not hold requests), and a
 * command written while the connection is down is retried once after a reconnection.
 */
export function redisClientOptions(commandTimeoutMs: number): RedisOptions {
  return { commandTimeout: commandTimeoutMs, maxRetriesPerRequest: 1 };
}

/** After a failure, Redis is left alone this long before the next command tries it again. */
const REDIS_RETRY_AFTER_MS = 1000;

export interface GuardLogger {
  warn(details: Record<string, unknown>, message: string): void;
  info?(details: Record<string, unknown>, message: string): void;
}

/** Thrown instead of sending a command while Redis is known to be failing. */
class RedisUnavailableError extends Error {
  constructor(readonly user: string) {
    super(`${user}: Redis unavailable`);
  }
}

/**
 * The Redis commands of one user (the data cache, the rate limiter, ...): while Redis fails,
 * commands fail at once for {@link REDIS_RETRY_AFTER_MS} instead of each waiting for the
 * command timeout, then one tries again; the user degrades (`degradation` says how). The
 * failure is logged once when it starts, and the recovery once when Redis answers again.
 */
export class RedisGuard {
  #retryAt = 0;
  #isFailing = false;

  constructor(
    private readonly user: string,
    private readonly degradation: string,
    private readonly logger: GuardLogger,
    private readonly onRecover?: () => void,
  ) {}

  async run<T>(command: () => Promise<T>): Promise<T> {
    if (this.#isFailing && Date.now() < this.#retryAt) throw new RedisUnavailableError(this.user);
    // Commands sent meanwhile wait for this one rather than all probing a failing Redis.
    if (this.#isFailing) this.#retryAt = Date.now() + REDIS_RETRY_AFTER_MS;
    let result: T;
    try {
      result = await command();
    } catch (error) {
      this.failed(error);
      throw error;
    }
    this.#succeeded();
    return result;
  }

  /**
   * Counts the connection errors of `client` (reconnections failing) as failures. Its
   * reconnection is {@link reconnected}. Returns the unwatch: a user that stops before the
   * client closes (a connection of the process's RedisBus) leaves nothing listening.
   */
  watch(client: Redis): () => void {
    const onError = (error: unknown) => {
      this.failed(error);
    };
    const onReady = () => {
      this.reconnected();
    };
    client.on('error', onError);
    client.on('ready', onReady);
    return () => {
      client.off('error', onError);
      client.off('ready', onReady);
    };
  }

  /**
   * A connection is back (after a failover: on the new primary): the next command tries Redis
   * at once instead of after the pause, which its failed reconnections kept pushing back until
   * the last one, up to a second after the promotion.
   */
  reconnected(): void {
    this.#retryAt = 0;
  }

  /** A failure seen outside {@link run} (a connection error event). */
  failed(error: unknown): void {
    this.#retryAt = Date.now() + REDIS_RETRY_AFTER_MS;
    if (this.#isFailing) return;
    this.#isFailing = true;
    this.logger.warn({ err: error }, `${this.user}: Redis unavailable, ${this.degradation} until it answers again`);
  }

  #succeeded(): void {
    if (!this.#isFailing) return;
    this.#isFailing = false;
    (this.logger.info ?? this.logger.warn).call(this.logger, {}, `${this.user}: Redis answers again`);
    this.onRecover?.();
  }
}

/** Closes `client` without waiting for a Redis that does not answer (quit is bounded by the command timeout). */
export async function closeRedis(client: Redis): Promise<void> {
  try {
    if (client.status === 'ready') await client.quit();
  } catch {
    // Not answered: dropped below.
  }
  client.disconnect();
}
