import type { Knex } from 'knex';
import type { ServerResponse } from 'node:http';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Traffic } from '../commands/types.js';

/** The longest a long write waits for the requests in flight before it takes another step. */
export const MAX_WAIT_MS = 5;

/**
 * The requests in flight in this process, counted at the door (request-door.ts), so that long
 * writes (an import's rows, a bulk create) give way to them: between two steps of a few rows
 * (commands/give-way.ts), a long write waits until no other request is in flight, or
 * {@link MAX_WAIT_MS} at most. Reads then answer close to their idle latency while an import
 * runs, and an import on a quiet service runs at full speed (issue 13). The writer's own
 * request is one of those in flight: it waits for the others.
 */
export class RequestTraffic implements Traffic {
  #inFlight = 0;
  #waiting: (() => void)[] = [];

  /** Counts `res` from now until its connection closes or its answer ends. */
  enter(res: ServerResponse): void {
    this.#inFlight += 1;
    let isCounted = true;
    const leave = () => {
      if (!isCounted) return;
      isCounted = false;
      this.#inFlight -= 1;
      if (this.#inFlight <= 1) this.#wake();
    };
    res.once('finish', leave);
    res.once('close', leave);
  }

  /** The requests in flight now. */
  get inFlight(): number {
    return this.#inFlight;
  }

  isBusy(): boolean {
    return this.#inFlight > 1;
  }

  /** A turn of the event loop, then, while other requests are in flight, a wait for them. */
  async giveWay(): Promise<void> {
    await nextTurn();
    if (this.#inFlight <= 1) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, MAX_WAIT_MS);
      const waiting = this.#waiting;
      function done(): void {
        clearTimeout(timer);
        const index = waiting.indexOf(done);
        if (index >= 0) waiting.splice(index, 1);
        resolve();
      }
      waiting.push(done);
    });
  }

  /**
   * A request waiting for `waiting` (a database connection that others hold) is not counted
   * until it settles: the long write holding the connection would otherwise wait for a request
   * that waits for it.
   */
  async aside<T>(waiting: Promise<T>): Promise<T> {
    this.#inFlight -= 1;
    if (this.#inFlight <= 1) this.#wake();
    try {
      return await waiting;
    } finally {
      this.#inFlight += 1;
    }
  }

  #wake(): void {
    const waiting = this.#waiting;
    this.#waiting = [];
    for (const done of waiting) done();
  }
}

interface PoolClient {
  readonly pool?: { numFree(): number };
  acquireConnection(): Promise<unknown>;
}

/**
 * A request that waits for a connection of `db`'s pool, all of them in use, is set aside in
 * `traffic` while it waits. SQLite's file has one writing connection: a write arriving during
 * an import waits for the import to commit, and the import, giving way to it every few rows,
 * went at a thousand rows a second until the write gave up after knex's minute.
 */
export function setAsideWaitsForConnections(db: Knex, traffic: RequestTraffic): void {
  const client = db.client as PoolClient;
  const acquire = client.acquireConnection.bind(client);
  client.acquireConnection = () => (client.pool?.numFree() === 0 ? traffic.aside(acquire()) : acquire());
}
