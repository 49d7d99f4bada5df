import type { ErrorRequestHandler } from 'express';
import type { Logger } from '../logger/index.js';
import {
  InternalServerError,
  InvalidPayloadError,
  MethodNotAllowedError,
  RequestsExceededError,
  ServiceError,
  ServiceErrorList,
  UnsupportedMediaTypeError,
} from '../errors.js';
import type { Accountability } from '../access/accountability.js';
import { isDatabaseError, translateConnectionError } from '../db/translate-error.js';

/** The errors of a failure, as the caller may see them; anything unknown becomes a 500. */
export function toServiceErrors(
  err: unknown,
  accountability: Accountability | undefined,
  logger: Logger,
): ServiceError[] {
  if (err instanceof ServiceErrorList) return [...err.errors];
  if (err instanceof ServiceError) return [err];
  const fromParser = fromBodyParserError(err);
  if (fromParser !== undefined) return [fromParser];
  const unreachable = translateConnectionError(err);
  if (unreachable !== undefined) {
    logger.warn({ err }, 'database unreachable');
    return [unreachable];
  }
  logger.error({ err }, 'unexpected error');
  // reference/errors.md: admins may see the original message, never a stack trace, and never
  // a database's (its statement, values and constraint names are the server's business).
  const message = accountability?.admin === true && err instanceof Error && !isDatabaseError(err) ? err.message : undefined;
  return [new InternalServerError(message)];
}

/** express.json() failures: malformed JSON, too large, unsupported encoding. */
function fromBodyParserError(err: unknown): ServiceError | undefined {
  if (typeof err !== 'object' || err === null || !('type' in err)) return undefined;
  const { type, message } = err as { type: unknown; message: string };
  switch (type) {
    case 'entity.parse.failed':
      return new InvalidPayloadError(message.replace(/\.$/, ''));
    case 'entity.too.large':
      return new InvalidPayloadError('request entity too large');
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new UnsupportedMediaTypeError(String((err as { charset?: string }).charset ?? message), 'Content-Type header');
    case 'request.aborted':
    case 'request.size.invalid':
    case 'stream.encoding.set':
      return new InvalidPayloadError(message.replace(/\.$/, ''));
    default:
      return undefined;
  }
}

/** An error answer: status, the headers some errors add, and the body. */
export interface ErrorAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: { readonly errors: readonly { readonly message: string; readonly extensions: Record<string, unknown> }[] };
}

/**
 * The one place errors become HTTP (reference/errors.md): `{errors:[{message, extensions}]}`,
 * the common status of all errors or 500 when they differ.
 */
export function errorAnswer(err: unknown, accountability: Accountability | undefined, logger: Logger): ErrorAnswer {
  const errors = toServiceErrors(err, accountability, logger);
  const [first, ...rest] = errors.map((e) => e.status);
  const status = first !== undefined && rest.every((s) => s === first) ? first : 500;
  const headers: Record<string, string> = {};
  for (const e of errors) {
    if (e instanceof RequestsExceededError) headers['Retry-After'] = String(e.retryAfterSeconds);
    if (e instanceof MethodNotAllowedError) headers['Allow'] = e.extensions.allowed.join(', ');
  }
  const body = { errors: errors.map((e) => ({ message: e.message, extensions: { ...e.extensions, code: e.code } })) };
  return { status, headers, body };
}

/** Express's error handler: {@link errorAnswer}, or a closed connection once the response started. */
export function createErrorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const answer = errorAnswer(err, req.accountability, logger);
    if (res.headersSent) {
      logger.warn({ err }, 'error after the response started; connection closed');
      res.destroy();
      return;
    }
    res.set(answer.headers).status(answer.status).json(answer.body);
  };
}
