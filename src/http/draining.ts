import type { ServerResponse } from 'node:http';

/**
 * Whether this instance is draining: told to stop (SIGTERM), it goes on serving for
 * SHUTDOWN_DRAIN_DELAY while its load balancer notices, before its listener closes. Meanwhile
 * `/server/health` (readiness) answers 503 `draining` and every answer closes its connection, so
 * no idle keep-alive connection of the balancer is left for the listener's close to cut;
 * `/server/ping` (liveness) still answers `pong`, so an orchestrator does not kill the instance
 * for it.
 */
export class Draining {
  #isDraining = false;

  get isDraining(): boolean {
    return this.#isDraining;
  }

  begin(): void {
    this.#isDraining = true;
  }

  /** At the door of every request: while draining, its answer ends its connection. */
  closeAfter(res: ServerResponse): void {
    if (this.#isDraining) res.setHeader('Connection', 'close');
  }
}
