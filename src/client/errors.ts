import type { ErrorEntry, TransportResponse } from './transport-types.js';

export type { ErrorEntry } from './transport-types.js';

/**
 * A failed request: the server's `errors` array, the response when
 * one arrived (`undefined` for a network failure), and the underlying error when there was one.
 */
export class TransportError<T = unknown> extends Error {
  readonly parent: Error | null;
  readonly response: Partial<TransportResponse<T>> | undefined;
  readonly errors: readonly ErrorEntry[];

  constructor(parent: Error | null, response?: Partial<TransportResponse<T>>) {
    const errors = response?.errors ?? [];
    super(errors[0]?.message ?? parent?.message ?? 'Unknown transport error');
    this.name = 'TransportError';
    this.parent = parent;
    this.response = response;
    this.errors = errors;
    // Still there to read, but left out when Node shows the error (an uncaught one included):
    // the response object alone is some 60 lines of headers and body stream.
    for (const key of ['parent', 'response']) Object.defineProperty(this, key, { enumerable: false });
  }
}

/** `error` when it is an Error, else an Error saying what was thrown. */
export function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/** Thrown before any request when an id or collection argument is the empty string. */
export class EmptyParamError extends Error {
  constructor(param: string) {
    super(`${param} cannot be an empty string`);
    this.name = 'EmptyParamError';
  }
}

/** Throws EmptyParamError when `value` is `''`. */
export function requireParam(name: string, value: unknown): void {
  if (value === '') throw new EmptyParamError(name);
}

/**
 * `value` as one path segment: `/`, `?`, `#` and `%` escaped (the SDK's encodeURI left them, so
 * `deleteOne('h#1')` deleted item `h`); EmptyParamError when it is `''`.
 */
export function pathSegment(name: string, value: string | number): string {
  requireParam(name, value);
  return encodeURIComponent(String(value));
}
