import { register } from 'node:module';

/**
 * `@directus/extensions-sdk` as an extension's code imports it at run time: the define
 * functions are the identity (published extensions are built with them inlined; a hand-written
 * one imports them).
 */
const EXTENSIONS_SDK = `
export const defineHook = (config) => config;
export const defineEndpoint = (config) => config;
export const defineOperationApi = (config) => config;
export default { defineHook, defineEndpoint, defineOperationApi };
`;

/**
 * `@directus/errors` as Directus 10 documents it: `createError(code, message, status)` gives a
 * class whose instances carry `code`, `status` and `extensions` (the error handler answers with
 * them), and the common errors extensions throw are made with it.
 */
const DIRECTUS_ERRORS = `
export function createError(code, message, status = 500) {
  return class extends Error {
    constructor(extensions, options) {
      super(typeof message === 'function' ? message(extensions) : message, options);
      this.name = 'DirectusError';
      this.code = code;
      this.status = status;
      this.extensions = extensions ?? {};
    }
  };
}
export const isDirectusError = (error, code) =>
  typeof error === 'object' && error !== null && error.name === 'DirectusError' && (code === undefined || error.code === code);
export const ForbiddenError = createError('FORBIDDEN', "You don't have permission to access this.", 403);
export const InvalidPayloadError = createError('INVALID_PAYLOAD', (e) => 'Invalid payload. ' + e.reason + '.', 400);
export const InvalidQueryError = createError('INVALID_QUERY', (e) => 'Invalid query. ' + e.reason + '.', 400);
export const InvalidCredentialsError = createError('INVALID_CREDENTIALS', 'Invalid user credentials.', 401);
export const RouteNotFoundError = createError('ROUTE_NOT_FOUND', (e) => 'Route ' + e.path + " doesn't exist.", 404);
export const UnprocessableContentError = createError('UNPROCESSABLE_CONTENT', (e) => e.reason, 422);
export const ServiceUnavailableError = createError(
  'SERVICE_UNAVAILABLE',
  (e) => 'Service "' + e.service + '" is unavailable. ' + e.reason + '.',
  503,
);
`;

const SHIMS: Readonly<Record<string, string>> = {
  '@directus/extensions-sdk': EXTENSIONS_SDK,
  '@directus/errors': DIRECTUS_ERRORS,
};

const dataUrl = (source: string): string => `data:text/javascript,${encodeURIComponent(source)}`;

/**
 * The module resolution hook: a shimmed package resolves as usual when it is installed beside
 * the extension, and to the shim otherwise.
 */
function resolveHookSource(): string {
  const shims = Object.fromEntries(Object.entries(SHIMS).map(([name, source]) => [name, dataUrl(source)]));
  return `
const SHIMS = ${JSON.stringify(shims)};
export async function resolve(specifier, context, nextResolve) {
  const shim = SHIMS[specifier];
  if (shim === undefined) return nextResolve(specifier, context);
  try {
    return await nextResolve(specifier, context);
  } catch (error) {
    if (error && error.code === 'ERR_MODULE_NOT_FOUND') return { url: shim, shortCircuit: true };
    throw error;
  }
}
`;
}

let isRegistered = false;

/**
 * Lets extensions `import` `@directus/extensions-sdk` and `@directus/errors` without the
 * service depending on Directus's packages (once per process; ES modules only: a CommonJS
 * extension bundles them, as the SDK's build does).
 */
export function registerSdkShims(): void {
  if (isRegistered) return;
  isRegistered = true;
  register(dataUrl(resolveHookSource()));
}
