import type { IncomingMessage, ServerResponse } from 'node:http';
import { pinoHttp, startTime } from 'pino-http';
import type { Logger } from '../logger/index.js';

/** Logs one request's line when its response ends (pino-http), whoever answers it. */
export type RequestLogging = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * The request log (pino-http: a line per response, at info), for the Express app and for the
 * requests answered before it (fast-path.ts); undefined when LOG_LEVEL is above info, where
 * pino-http would cost every request a child logger and serializers for nothing.
 */
export function requestLogging(logger: Logger): RequestLogging | undefined {
  if (!logger.isLevelEnabled('info')) return undefined;
  const log = pinoHttp({ logger, quietReqLogger: true, autoLogging: { ignore: (req) => req.url === '/server/health' } });
  return (req, res) => {
    log(req, res);
  };
}

/** The request arrived now: its line's responseTime counts from here, whoever answers it. */
export function markArrival(res: ServerResponse): void {
  (res as ServerResponse & { [startTime]?: number })[startTime] = Date.now();
}
