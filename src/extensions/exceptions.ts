import {
  ExtensionError,
  ForbiddenError,
  InvalidCredentialsError,
  InvalidPayloadError,
  InvalidQueryError,
  RouteNotFoundError,
  ServiceUnavailableError,
} from '../errors.js';

/**
 * `context.exceptions` of Directus 10.0 to 10.3 (later versions moved to `@directus/errors`,
 * which extensions bundle or get from sdk-shim.ts): the classes extensions most often throw,
 * as the service's own errors, so a refusal is answered with its code and status.
 */
export const EXCEPTIONS = Object.freeze({
  BaseException: class extends ExtensionError {
    constructor(message: string, status: number, code: string, extensions: Record<string, unknown> = {}) {
      super(code, status, message, extensions);
    }
  },
  ForbiddenException: class extends ForbiddenError {},
  InvalidPayloadException: class extends InvalidPayloadError {
    constructor(message: string) {
      super(message.replace(/\.$/, ''));
    }
  },
  InvalidQueryException: class extends InvalidQueryError {
    constructor(message: string) {
      super(message.replace(/\.$/, ''));
    }
  },
  InvalidCredentialsException: class extends InvalidCredentialsError {},
  RouteNotFoundException: class extends RouteNotFoundError {},
  ServiceUnavailableException: class extends ServiceUnavailableError {
    constructor(message: string, extensions: { service?: string } = {}) {
      super(extensions.service ?? 'extension', message.replace(/\.$/, ''));
    }
  },
});
