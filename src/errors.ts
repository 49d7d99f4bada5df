/**
 * One class per error code of docs/errors.md, and the code → HTTP status table.
 * Code is thrown where a problem is detected; only `http/error-handler.ts` turns these into
 * responses (and `graphql/` copies `code` into `extensions`).
 */

export const ERROR_STATUS = {
  FAILED_VALIDATION: 400,
  INVALID_PAYLOAD: 400,
  INVALID_QUERY: 400,
  RECORD_NOT_UNIQUE: 400,
  VALUE_TOO_LONG: 400,
  VALUE_OUT_OF_RANGE: 400,
  NOT_NULL_VIOLATION: 400,
  INVALID_FOREIGN_KEY: 400,
  CONTAINS_NULL_VALUES: 400,
  ILLEGAL_ASSET_TRANSFORMATION: 400,
  GRAPHQL_VALIDATION: 400,
  GRAPHQL_EXECUTION: 400,
  INVALID_CREDENTIALS: 401,
  TOKEN_EXPIRED: 401,
  INVALID_OTP: 401,
  INVALID_IP: 401,
  USER_SUSPENDED: 401,
  FORBIDDEN: 403,
  INVALID_TOKEN: 403,
  INVALID_PROVIDER: 403,
  LIMIT_EXCEEDED: 403,
  ROUTE_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  IDEMPOTENCY_CONFLICT: 409,
  CONTENT_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RANGE_NOT_SATISFIABLE: 416,
  UNPROCESSABLE_ENTITY: 422,
  REQUESTS_EXCEEDED: 429,
  INTERNAL_SERVER_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
  INVALID_PROVIDER_CONFIG: 503,
  UNEXPECTED_RESPONSE: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export type Extensions = Readonly<Record<string, unknown>>;

/** Base of every error the service reports to a caller. */
export abstract class ServiceError<E extends Extensions = Extensions> extends Error {
  /** One of docs/errors.md's codes; an extension's own code only on {@link ExtensionError}. */
  abstract readonly code: ErrorCode | ExtensionErrorCode;
  readonly extensions: E;

  constructor(message: string, extensions: E) {
    super(message);
    this.name = new.target.name;
    this.extensions = extensions;
  }

  get status(): number {
    return isErrorCode(this.code) ? ERROR_STATUS[this.code] : 500;
  }
}

type NoExtensions = Record<string, never>;
const none: NoExtensions = {};

/** Collection + field of a database-level violation; field may be unknown (null). */
interface ColumnRef extends Extensions {
  readonly collection: string;
  readonly field: string | null;
}

export interface ValidationExtensions extends Extensions {
  readonly field: string;
  readonly type: string;
  readonly valid?: unknown;
  readonly invalid?: unknown;
  readonly substring?: string;
}

export class FailedValidationError extends ServiceError<ValidationExtensions> {
  readonly code = 'FAILED_VALIDATION';
  constructor(extensions: ValidationExtensions, message?: string) {
    super(message ?? `Validation failed for field "${extensions.field}".`, extensions);
  }
}

export class InvalidPayloadError extends ServiceError<{ reason: string }> {
  readonly code = 'INVALID_PAYLOAD';
  constructor(reason: string) {
    super(`Invalid payload. ${reason}.`, { reason });
  }
}

export class InvalidQueryError extends ServiceError<{ reason: string }> {
  readonly code = 'INVALID_QUERY';
  constructor(reason: string) {
    super(`Invalid query. ${reason}.`, { reason });
  }
}

export class RecordNotUniqueError extends ServiceError<ColumnRef> {
  readonly code = 'RECORD_NOT_UNIQUE';
  constructor(ref: ColumnRef) {
    super(`Value for field "${ref.field}" in collection "${ref.collection}" has to be unique.`, ref);
  }
}

export class ValueTooLongError extends ServiceError<ColumnRef> {
  readonly code = 'VALUE_TOO_LONG';
  constructor(ref: ColumnRef) {
    super(`Value for field "${ref.field}" in collection "${ref.collection}" is too long.`, ref);
  }
}

export class ValueOutOfRangeError extends ServiceError<ColumnRef> {
  readonly code = 'VALUE_OUT_OF_RANGE';
  constructor(ref: ColumnRef) {
    super(`Numeric value for field "${ref.field}" in collection "${ref.collection}" is out of range.`, ref);
  }
}

export class NotNullViolationError extends ServiceError<ColumnRef> {
  readonly code = 'NOT_NULL_VIOLATION';
  constructor(ref: ColumnRef) {
    super(`Value for field "${ref.field}" in collection "${ref.collection}" can't be null.`, ref);
  }
}

export class InvalidForeignKeyError extends ServiceError<ColumnRef> {
  readonly code = 'INVALID_FOREIGN_KEY';
  constructor(ref: ColumnRef) {
    super(`Invalid foreign key for field "${ref.field}" in collection "${ref.collection}".`, ref);
  }
}

export class ContainsNullValuesError extends ServiceError<ColumnRef> {
  readonly code = 'CONTAINS_NULL_VALUES';
  constructor(ref: ColumnRef) {
    super(`Field "${ref.field}" in collection "${ref.collection}" contains null values.`, ref);
  }
}

/** An image transformation the settings or the limits refuse; `reason` says which. */
export class IllegalAssetTransformationError extends ServiceError<NoExtensions> {
  readonly code = 'ILLEGAL_ASSET_TRANSFORMATION';
  constructor(reason?: string) {
    super(reason === undefined ? 'Illegal asset transformation.' : `Illegal asset transformation: ${reason}.`, none);
  }
}

export class GraphqlValidationError extends ServiceError<{ errors: readonly unknown[] }> {
  readonly code = 'GRAPHQL_VALIDATION';
  constructor(errors: readonly unknown[]) {
    super('GraphQL validation error.', { errors });
  }
}

export class GraphqlExecutionError extends ServiceError<{ errors: readonly unknown[] }> {
  readonly code = 'GRAPHQL_EXECUTION';
  constructor(errors: readonly unknown[]) {
    super('GraphQL execution error.', { errors });
  }
}

export class InvalidCredentialsError extends ServiceError<NoExtensions> {
  readonly code = 'INVALID_CREDENTIALS';
  constructor() {
    super('Invalid user credentials.', none);
  }
}

export class TokenExpiredError extends ServiceError<NoExtensions> {
  readonly code = 'TOKEN_EXPIRED';
  constructor() {
    super('Token expired.', none);
  }
}

export class InvalidOtpError extends ServiceError<NoExtensions> {
  readonly code = 'INVALID_OTP';
  constructor() {
    super('Invalid user OTP.', none);
  }
}

export class InvalidIpError extends ServiceError<NoExtensions> {
  readonly code = 'INVALID_IP';
  constructor() {
    super('Invalid IP address.', none);
  }
}

export class UserSuspendedError extends ServiceError<NoExtensions> {
  readonly code = 'USER_SUSPENDED';
  constructor() {
    super('User suspended.', none);
  }
}

/** Spec, Errors, rule 1: also for unknown collections and items, so existence never leaks. */
export class ForbiddenError extends ServiceError<NoExtensions> {
  readonly code = 'FORBIDDEN';
  /** `message`: only where saying why gives nothing away (http/csrf.ts: a cross-origin change). */
  constructor(options: { readonly message?: string } = {}) {
    super(options.message ?? "You don't have permission to access this.", none);
  }
}

export class InvalidTokenError extends ServiceError<NoExtensions> {
  readonly code = 'INVALID_TOKEN';
  constructor() {
    super('Invalid token.', none);
  }
}

export class InvalidProviderError extends ServiceError<NoExtensions> {
  readonly code = 'INVALID_PROVIDER';
  constructor() {
    super('Invalid provider.', none);
  }
}

export class LimitExceededError extends ServiceError<{ category: string }> {
  readonly code = 'LIMIT_EXCEEDED';
  constructor(category: string) {
    super(`${category} limit exceeded.`, { category });
  }
}

export class RouteNotFoundError extends ServiceError<{ path: string }> {
  readonly code = 'ROUTE_NOT_FOUND';
  constructor(path: string) {
    super(`Route ${path} doesn't exist.`, { path });
  }
}

export class MethodNotAllowedError extends ServiceError<{
  current: string;
  allowed: readonly string[];
}> {
  readonly code = 'METHOD_NOT_ALLOWED';
  constructor(current: string, allowed: readonly string[]) {
    const list = allowed.map((m) => `"${m}"`).join(', ');
    super(`Invalid method "${current}" used. Should be one of ${list}.`, { current, allowed });
  }
}

export class ContentTooLargeError extends ServiceError<NoExtensions> {
  readonly code = 'CONTENT_TOO_LARGE';
  constructor() {
    super('Uploaded content is too large.', none);
  }
}

export class UnsupportedMediaTypeError extends ServiceError<{ mediaType: string; where: string }> {
  readonly code = 'UNSUPPORTED_MEDIA_TYPE';
  constructor(mediaType: string, where: string) {
    super(`Unsupported media type "${mediaType}" in ${where}.`, { mediaType, where });
  }
}

export class RangeNotSatisfiableError extends ServiceError<{ range: string }> {
  readonly code = 'RANGE_NOT_SATISFIABLE';
  constructor(range: string) {
    super(`Range "${range}" is invalid or the file's size doesn't match the requested range.`, { range });
  }
}

/** A retry whose `Idempotency-Key` names a write that committed but whose answer is not stored (yet). */
export class IdempotencyConflictError extends ServiceError<NoExtensions> {
  readonly code = 'IDEMPOTENCY_CONFLICT';
  constructor() {
    super(
      'A request with this Idempotency-Key was accepted and its write committed, but its answer is not stored: it is being sent, or was lost to a failure. The write is not repeated; retry later, or read the data.',
      none,
    );
  }
}

export class UnprocessableEntityError extends ServiceError<{ reason: string }> {
  readonly code = 'UNPROCESSABLE_ENTITY';
  constructor(reason: string) {
    super(`Can't process content. ${reason}.`, { reason });
  }
}

export class RequestsExceededError extends ServiceError<{ limit: number; reset: string }> {
  readonly code = 'REQUESTS_EXCEEDED';
  readonly retryAfterSeconds: number;
  constructor(limit: number, reset: Date) {
    const seconds = Math.max(1, Math.round((reset.getTime() - Date.now()) / 1000));
    super(`Too many requests, retry after ${seconds}s.`, { limit, reset: reset.toISOString() });
    this.retryAfterSeconds = seconds;
  }
}

/** `request_id` names the log entry of the failure (http/error-handler.ts); nothing else is told. */
export class InternalServerError extends ServiceError<{ request_id?: string }> {
  readonly code = 'INTERNAL_SERVER_ERROR';
  constructor(requestId?: string) {
    super('An unexpected error occurred.', requestId === undefined ? none : { request_id: requestId });
  }
}

export class ServiceUnavailableError extends ServiceError<{ service: string; reason: string }> {
  readonly code = 'SERVICE_UNAVAILABLE';
  /** When set, the answer says `Retry-After` (a passing overload, not a service down). */
  readonly retryAfterSeconds: number | undefined;
  constructor(service: string, reason: string, retryAfterSeconds?: number) {
    super(`Service "${service}" is unavailable. ${reason}.`, { service, reason });
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

export class InvalidProviderConfigError extends ServiceError<NoExtensions> {
  readonly code = 'INVALID_PROVIDER_CONFIG';
  constructor() {
    super('Invalid config.', none);
  }
}

export class UnexpectedResponseError extends ServiceError<NoExtensions> {
  readonly code = 'UNEXPECTED_RESPONSE';
  constructor() {
    super('Received an unexpected response.', none);
  }
}

/** A code an extension chose (Directus's `createError(code, message, status)`), outside docs/errors.md. */
export type ExtensionErrorCode = string & { readonly extensionErrorCode: true };

function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERROR_STATUS, code);
}

/**
 * An error an extension threw with its own code and status (the shape Directus's
 * `@directus/errors` gives: `code`, `status`, `message`, `extensions`): answered as it is, in
 * the error body of docs/errors.md. Built by `http/error-handler.ts` from what a hook or an
 * endpoint threw; not one of the table's codes, so the contract test leaves it out.
 */
export class ExtensionError extends ServiceError {
  readonly code: ExtensionErrorCode;
  readonly #status: number;

  constructor(code: string, status: number, message: string, extensions: Extensions = {}) {
    super(message, extensions);
    this.code = code as ExtensionErrorCode;
    this.#status = status;
  }

  override get status(): number {
    return this.#status;
  }
}

/** `instanceof ServiceError`, narrowing to the base type rather than `ServiceError<any>`. */
export function isServiceError(error: unknown): error is ServiceError {
  return error instanceof ServiceError;
}

/** Several errors reported together (e.g. one FAILED_VALIDATION per field). */
export class ServiceErrorList extends Error {
  constructor(readonly errors: readonly ServiceError[]) {
    super(errors.map((e) => e.message).join(' '));
    this.name = 'ServiceErrorList';
  }
}

/** A bug, not bad input: the caller gets the generic 500 and the log keeps the stack. */
export function invariant(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(`Invariant failed: ${message}`);
}

export function assertNever(value: never): never {
  throw new Error(`Unhandled case: ${JSON.stringify(value)}`);
}
