import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Express } from 'express';
import type { AppDeps } from './app.js';
import { corsStep } from './cors.js';
import { ENVELOPE_HEADERS } from './envelope-headers.js';
import { errorAnswer } from './error-handler.js';
import { fastAnswers } from './fast-path.js';
import { withIdempotency } from './idempotency.js';
import { markArrival, requestLogging } from './request-logging.js';

export interface DoorOptions {
  /** false: every request is answered by the Express app (tests compare both ways). */
  readonly fastAnswers?: boolean;
}

/**
 * The one door of every HTTP request: the HTTP server's request listener. Whatever answers a
 * request, it passes here first, and gets here, once:
 * - its arrival time, and its log line when the answer ends (request-logging.ts);
 * - its count and latency in the metrics (metrics.ts, when METRICS_ENABLED);
 * - its place among the requests in flight, which long writes give way to (traffic.ts);
 * - while the instance drains before it stops, `Connection: close` (draining.ts);
 * - the envelope headers (`Cache-Control`, `Vary`), which a route may replace;
 * - with CORS_ENABLED, the CORS headers (cors.ts), on answers and errors alike, and the answer
 *   to a preflight;
 * - a write's `Idempotency-Key` (idempotency.ts): its async context, its answer kept.
 * Then the route: the fast answers (fast-path.ts: plain item reads and writes, through the
 * routes' own handlers) or the Express app (app.ts). Both take the caller and the query from
 * the same steps, done once per request (request-pipeline.ts: authenticate, parse). A rule
 * every answer needs (a header, a limit, a log field) is written here or in those steps, and
 * cannot apply to one way and not the other.
 */
export function requestDoor(app: Express, deps: AppDeps, options: DoorOptions = {}): RequestListener {
  const logRequest = requestLogging(deps.logger, deps.config.logStyle);
  const { metrics } = deps;
  const fast = options.fastAnswers === false ? undefined : fastAnswers(app, deps, logRequest !== undefined);
  const envelope = Object.entries(ENVELOPE_HEADERS);
  const cors = corsStep(deps.config.cors);
  const reporting = { logger: deps.logger, dialect: deps.config.db.client, schema: deps.schema };
  const route = (req: IncomingMessage, res: ServerResponse) => {
    withIdempotency(
      deps,
      req,
      res,
      () => {
        if (fast === undefined || !fast(req, res)) app(req, res);
      },
      (error) => {
        const answer = errorAnswer(error, reporting);
        const body = JSON.stringify(answer.body);
        res.writeHead(answer.status, { ...answer.headers, 'Content-Type': 'application/json; charset=utf-8' });
        res.end(body);
      },
    );
  };
  return (req, res) => {
    if (logRequest !== undefined) {
      markArrival(res);
      logRequest(req, res);
    }
    metrics?.observe(req, res);
    deps.traffic?.enter(res);
    deps.draining?.closeAfter(res);
    for (const [name, value] of envelope) res.setHeader(name, value);
    if (cors === undefined) route(req, res);
    else
      cors(req, res, () => {
        route(req, res);
      });
  };
}
