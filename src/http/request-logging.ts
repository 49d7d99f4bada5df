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
export function requestLogging(logger: Logger, style: 'pretty' | 'raw' = 'raw'): RequestLogging | undefined {
  if (!logger.isLevelEnabled('info')) return undefined;
  const log = pinoHttp({
    logger,
    quietReqLogger: true,
    // Probes: a load balancer's every few seconds would drown the log.
    autoLogging: { ignore: (req) => req.url === '/server/health' || req.url === '/server/ping' },
    ...(style === 'pretty' ? PRETTY : RAW),
  });
  return (req, res) => {
    log(req, res);
  };
}

type LoggedRequest = IncomingMessage & { originalUrl?: string };

/** `GET /items/articles?limit=2 200 4ms id=17`: what a person reading the console needs. */
function prettyLine(req: LoggedRequest, res: ServerResponse, responseTime: number): string {
  const url = redactUrl(req.originalUrl ?? req.url) ?? '';
  const id: unknown = (req as { id?: unknown }).id;
  const shownId = typeof id === 'string' || typeof id === 'number' ? id : '-';
  return `${req.method ?? ''} ${url} ${res.statusCode} ${Math.round(responseTime)}ms id=${shownId}`;
}

/**
 * LOG_STYLE=pretty: one short line a request, its message only (the method, path, status,
 * time and request id); the objects of the raw style would add some 500 characters.
 */
const PRETTY = {
  customSuccessMessage: prettyLine,
  // pino-http passes no time here: it counts from the arrival markArrival noted.
  customErrorMessage: (req: LoggedRequest, res: ServerResponse, error: Error) =>
    `${prettyLine(req, res, Date.now() - (res as ServerResponse & { [startTime]: number })[startTime])} ${error.message}`,
  serializers: {
    req: () => undefined,
    res: () => undefined,
    responseTime: () => undefined,
    err: () => undefined,
    reqId: () => undefined,
  },
};

/** LOG_STYLE=raw: pino-http's objects (method, url, headers, status, time), secrets redacted. */
const RAW = {
  // pino-http hands these the standard serialisations ({url, headers, ...}).
  serializers: {
    req: (req: { url?: string; query?: Record<string, unknown>; headers?: Record<string, unknown> }) => ({
      ...req,
      url: redactUrl(req.url),
      ...(req.query === undefined ? {} : { query: redactEntries(req.query, SECRET_PARAMS) }),
      headers: redactHeaders(req.headers),
    }),
    res: (res: { headers?: Record<string, unknown> }) => ({ ...res, headers: redactHeaders(res.headers) }),
  },
};

/** The request arrived now: its line's responseTime counts from here, whoever answers it. */
export function markArrival(res: ServerResponse): void {
  (res as ServerResponse & { [startTime]?: number })[startTime] = Date.now();
}

// Tokens never reach the log: bearer and cookie headers, cookies set, and the query parameters
// that carry them (access_token; the SSO callback's code and state; mailed-link tokens).
const SECRET_HEADERS = new Set(['authorization', 'cookie', 'set-cookie']);
const SECRET_PARAMS = new Set(['access_token', 'code', 'state', 'token']);
const REDACTED = '[redacted]';

function redactHeaders(headers: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (headers === undefined) return undefined;
  const redacted = redactEntries(headers, SECRET_HEADERS);
  // The SSO redirects' Location carries the state (to the provider) or a reason (back).
  const location = redacted['location'];
  return typeof location === 'string' ? { ...redacted, location: redactUrl(location) } : redacted;
}

function redactEntries(entries: Record<string, unknown>, secret: ReadonlySet<string>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(entries).map(([name, value]) => [name, secret.has(name.toLowerCase()) ? REDACTED : value]),
  );
}

function redactUrl(url: string | undefined): string | undefined {
  const start = url?.indexOf('?') ?? -1;
  if (url === undefined || start === -1) return url;
  // Piece by piece, so the other parameters stay as the client wrote them.
  const pieces = url
    .slice(start + 1)
    .split('&')
    .map((piece) => {
      const name = piece.split('=', 1)[0] ?? '';
      return SECRET_PARAMS.has(safeDecode(name)) ? `${name}=${REDACTED}` : piece;
    });
  return `${url.slice(0, start)}?${pieces.join('&')}`;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}
