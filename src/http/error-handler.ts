import { randomUUID } from 'node:crypto';
import type { Duplex } from 'node:stream';
import type { ErrorRequestHandler } from 'express';
import type { DbClient } from '../db-client.js';
import { translateBadInput } from '../db/translate-error.js';
import type { Logger } from '../logger/index.js';
import { HookError } from '../items/hooks.js';
import { isPlainObject } from '../is-plain-object.js';
import {
  ExtensionError,
  InternalServerError,
  InvalidPayloadError,
  MethodNotAllowedError,
  RequestsExceededError,
  ServiceErrorList,
  ServiceUnavailableError,
  isServiceError,
  type ServiceError,
  UnsupportedMediaTypeError,
} from '../errors.js';
import { translateConnectionError, translateMissingSchemaObject } from '../db/translate-error.js';
import type { SchemaCache } from '../cache/schema-cache.js';

/**
 * Where unexpected errors are logged, the database whose refusals of values are 400s, and the
 * schema cache to drop when a statement names a table or column the database no longer has.
 */
export interface ErrorReporting {
  readonly logger: Logger;
  readonly dialect: DbClient;
  readonly schema: Pick<SchemaCache, 'invalidate'>;
}

/**
 * The errors of a failure, as the caller may see them. A database's refusal of a value no
 * earlier step caught (db/translate-error.ts) is INVALID_PAYLOAD; anything else unknown is
 * logged with a new request id and becomes a 500 whose body holds the generic message and
 * that id only, for every caller: a driver's message may quote SQL, constraint names or
 * other rows' values (so the generic message goes to admins too).
 */
export function toServiceErrors(err: unknown, reporting: ErrorReporting): ServiceError[] {
  if (err instanceof ServiceErrorList) return [...err.errors];
  if (isServiceError(err)) return [err];
  // Before the connection check: a body the client stopped sending is ECONNABORTED too.
  const fromParser = fromBodyParserError(err);
  if (fromParser !== undefined) return [fromParser];
  // Whoever's statement met the database down (the service's own, a hook's: the flows' read of
  // their list, an extension's query), the answer is the same 503.
  const unreachable = translateConnectionError(err);
  if (unreachable !== undefined) {
    reporting.logger.warn({ err }, 'database unreachable');
    return [unreachable];
  }
  if (err instanceof HookError) return fromExtension(err, reporting);
  const badInput = translateBadInput(err, reporting.dialect, 'write');
  if (isServiceError(badInput)) return [badInput];
  const staleSchema = translateMissingSchemaObject(err, reporting.dialect);
  if (staleSchema !== undefined) {
    // The next request builds the schema the database has (a dropped collection is then 403).
    reporting.logger.warn({ err }, 'a statement named a table or column the database does not have: schema dropped');
    reporting.schema.invalidate().catch((error: unknown) => {
      reporting.logger.error({ err: error }, 'dropping the schema cache failed');
    });
    return [staleSchema];
  }
  const requestId = randomUUID();
  reporting.logger.error({ err, requestId }, 'unexpected error');
  return [new InternalServerError(requestId)];
}

/**
 * What an extension threw in a filter or an endpoint: a service error as it is; an error with
 * an HTTP status and a code (Directus's `createError`, its older exceptions) as that code and
 * status; anything else a 500 for this request only, logged with the extension's name.
 */
function fromExtension(failure: HookError, reporting: ErrorReporting): ServiceError[] {
  const { cause, owner, event } = failure;
  if (cause instanceof ServiceErrorList) return [...cause.errors];
  if (isServiceError(cause)) return [cause];
  const shaped = fromErrorShape(cause);
  if (shaped !== undefined) return [shaped];
  const requestId = randomUUID();
  reporting.logger.error(
    { err: cause, extension: owner, event, requestId },
    `extension "${owner}" failed on ${event}: answered 500`,
  );
  return [new InternalServerError(requestId)];
}

/** `{status, code, message, extensions}` as `@directus/errors` builds them; undefined for other throws. */
function fromErrorShape(error: unknown): ExtensionError | undefined {
  if (!(error instanceof Error)) return undefined;
  const { status, code, extensions } = error as Error & { status?: unknown; code?: unknown; extensions?: unknown };
  if (typeof status !== 'number' || !Number.isInteger(status) || status < 400 || status > 599) return undefined;
  if (typeof code !== 'string' || !/^[A-Z][A-Z0-9_]*$/.test(code)) return undefined;
  return new ExtensionError(code, status, error.message, isPlainObject(extensions) ? extensions : {});
}

/** express.json() failures: malformed JSON, too large, unsupported encoding. */
function fromBodyParserError(err: unknown): ServiceError | undefined {
  if (!(err instanceof Error)) return undefined;
  const { type, message } = err as Error & { type?: unknown };
  switch (type) {
    case 'entity.parse.failed':
      return new InvalidPayloadError(message.replace(/\.$/, ''));
    case 'entity.too.large':
      return new InvalidPayloadError('request entity too large');
    case 'encoding.unsupported':
    case 'charset.unsupported': {
      // body-parser names the charset it refused (a string); the message otherwise.
      const { charset } = err as { charset?: unknown };
      return new UnsupportedMediaTypeError(typeof charset === 'string' ? charset : message, 'Content-Type header');
    }
    case 'request.aborted':
    case 'request.size.invalid':
    case 'stream.encoding.set':
      return new InvalidPayloadError(message.replace(/\.$/, ''));
    default:
      // body-parser passes other stream failures (a gzip body that is not gzip) as http-errors 400.
      return (err as { status?: unknown }).status === 400
        ? new InvalidPayloadError(message.replace(/\.$/, ''))
        : undefined;
  }
}

/** An error answer: status, the headers some errors add, and the body. */
export interface ErrorAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: {
    readonly errors: readonly { readonly message: string; readonly extensions: Record<string, unknown> }[];
  };
}

/**
 * The one place errors become HTTP: `{errors:[{message, extensions}]}`,
 * the common status of all errors or 500 when they differ.
 */
export function errorAnswer(err: unknown, reporting: ErrorReporting): ErrorAnswer {
  const errors = toServiceErrors(err, reporting);
  const [first, ...rest] = errors.map((e) => e.status);
  const status = first !== undefined && rest.every((s) => s === first) ? first : 500;
  const headers: Record<string, string> = {};
  for (const e of errors) {
    if (e instanceof RequestsExceededError) headers['Retry-After'] = String(e.retryAfterSeconds);
    if (e instanceof ServiceUnavailableError && e.retryAfterSeconds !== undefined)
      headers['Retry-After'] = String(e.retryAfterSeconds);
    if (e instanceof MethodNotAllowedError) headers['Allow'] = e.extensions.allowed.join(', ');
  }
  const body = { errors: errors.map((e) => ({ message: e.message, extensions: { ...e.extensions, code: e.code } })) };
  return { status, headers, body };
}

/** Express's error handler: {@link errorAnswer}, or a closed connection once the response started. */
export function createErrorHandler(reporting: ErrorReporting): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const answer = errorAnswer(err, reporting);
    if (res.headersSent) {
      reporting.logger.warn({ err }, 'error after the response started; connection closed');
      res.destroy();
      return;
    }
    res.set(answer.headers).status(answer.status).json(answer.body);
  };
}

const CLIENT_ERROR_REASONS: Readonly<Record<string, string>> = {
  HPE_HEADER_OVERFLOW: 'Request header fields too large',
  // Also node's minute for the headers.
  ERR_HTTP_REQUEST_TIMEOUT: 'The request did not arrive within REQUEST_TIMEOUT',
};

/**
 * node:http's `clientError`: a request it cannot parse (headers over the size limit, bytes no
 * HTTP request has) or that did not arrive in time (REQUEST_TIMEOUT) is answered with the
 * error body of docs/errors.md, 400 INVALID_PAYLOAD, instead of node's bare status line;
 * the connection closes.
 */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  if (!socket.writable || error.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const reason = CLIENT_ERROR_REASONS[error.code ?? ''] ?? 'Malformed HTTP request';
  const failure = new InvalidPayloadError(reason);
  const body = JSON.stringify({
    errors: [{ message: failure.message, extensions: { ...failure.extensions, code: failure.code } }],
  });
  socket.end(
    `HTTP/1.1 ${failure.status} Bad Request\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
