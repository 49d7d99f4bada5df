import type ivm from 'isolated-vm';
import { setTimeout as delay } from 'node:timers/promises';
import { isPlainObject } from '../is-plain-object.js';
import { operationHandler } from './operations.js';
import { inSandbox, type HostFunctions, type SandboxLimits } from './sandbox.js';
import type { OperationContext, OperationHandler } from './types.js';

/**
 * What a sandboxed extension's manifest asks for (`"sandbox": { "requestedScopes": ... }`), as
 * Directus 10 names it: `request: { methods, urls }`, `log: {}`, `sleep: {}`.
 */
type SandboxScopes = Readonly<Record<string, unknown>>;

/** `request`'s scope: the methods and URL patterns asked for (none when malformed). */
interface RequestScope {
  readonly methods: readonly string[];
  readonly urls: readonly string[];
}

/** A sandboxed operation extension: its module's source and where it came from. */
export interface SandboxedModule {
  readonly name: string;
  readonly file: string;
  readonly source: string;
  readonly scopes: SandboxScopes;
}

/**
 * `directus:api`, the one module a sandboxed extension may import (Directus 10's sandbox SDK):
 * `request`, `log` and `sleep`, each refused unless the manifest's `requestedScopes` names it.
 */
const DIRECTUS_API = ['request', 'log', 'sleep']
  .map(
    (name) =>
      `export const ${name} = globalThis.${name} ?? (async () => { throw new Error('the extension did not ask for the "${name}" scope'); });`,
  )
  .join('\n');

/** Calls the default export's handler with a JSON copy of the options; its result comes back as JSON. */
const CALL_HANDLER = `
const config = $0.default;
return Promise.resolve(config.handler(JSON.parse($1))).then((result) => (result === undefined ? undefined : JSON.stringify(result)));
`;
const READ_ID = `
const config = $0.default;
if (config === null || typeof config !== 'object' || typeof config.handler !== 'function') return null;
return typeof config.id === 'string' ? config.id : null;
`;

/**
 * A sandboxed operation extension (`defineOperationApi({ id, handler })` whose manifest says
 * `"sandbox": { "enabled": true }`), run as Directus 10 runs it: in an isolate, its handler given
 * the rendered options only, `directus:api` its only import. Each call has a fresh isolate of
 * EXTENSIONS_SANDBOX_MEMORY within EXTENSIONS_SANDBOX_TIMEOUT (nothing is kept between runs, and a
 * call that runs out of memory takes no other with it). Its `request` goes through the `request`
 * operation (IMPORT_IP_DENY_LIST, FLOWS_REQUEST_TIMEOUT), within the methods and URLs it asked for.
 */
export async function sandboxedOperation(
  module: SandboxedModule,
  limits: SandboxLimits,
): Promise<{ readonly id: string; readonly handler: OperationHandler }> {
  const id = await inSandbox(limits, {}, async (isolate, context) => {
    const namespace = await evaluate(module, isolate, context);
    return (await context.evalClosure(READ_ID, [namespace.derefInto()], { result: { copy: true } })) as string | null;
  });
  if (id === null || id === '') throw new Error('its module does not export default { id, handler }');
  const handler: OperationHandler = async (options, operation) => {
    const answer = await inSandbox(limits, hostFunctions(module, operation), async (isolate, context) => {
      const namespace = await evaluate(module, isolate, context);
      return (await context.evalClosure(CALL_HANDLER, [namespace.derefInto(), JSON.stringify(options)], {
        result: { promise: true },
      })) as string | undefined;
    });
    return answer === undefined ? null : JSON.parse(answer);
  };
  return { id, handler };
}

async function evaluate(module: SandboxedModule, isolate: ivm.Isolate, context: ivm.Context) {
  const api = await isolate.compileModule(DIRECTUS_API, { filename: 'directus:api' });
  const compiled = await isolate.compileModule(module.source, { filename: module.file });
  await compiled.instantiate(context, (specifier) => {
    if (specifier === 'directus:api') return api;
    throw new Error(`"${specifier}" cannot be imported in the sandbox (only "directus:api")`);
  });
  await compiled.evaluate();
  return compiled.namespace;
}

/** The scopes the manifest asked for, as host functions of one call. */
function hostFunctions(module: SandboxedModule, operation: OperationContext): HostFunctions {
  const { scopes } = module;
  const host: Record<string, (...args: unknown[]) => unknown> = {};
  const { logger } = operation.deps;
  if (scopes.log !== undefined) {
    host['log'] = (message) => {
      logger.info(
        { extension: module.name, flow: operation.flow.id },
        `extension "${module.name}": ${String(message)}`,
      );
    };
  }
  if (scopes.sleep !== undefined) {
    host['sleep'] = (ms) => delay(Math.min(Math.max(Number(ms) || 0, 0), operation.deps.config.flows.sleepMaxMs));
  }
  const request = scopes['request'];
  if (isPlainObject(request)) {
    const scope = { methods: stringsOf(request['methods']), urls: stringsOf(request['urls']) };
    host['request'] = (url, options) => sandboxRequest(scope, url, options, operation);
  }
  return host;
}

/** `request(url, { method, headers, body })` → `{ status, statusText, headers, data }`, if the scope allows it. */
function sandboxRequest(scope: RequestScope, url: unknown, options: unknown, operation: OperationContext): unknown {
  const given = isPlainObject(options) ? options : {};
  const method = typeof given['method'] === 'string' ? given['method'].toUpperCase() : 'GET';
  if (typeof url !== 'string') throw new Error('request: the URL must be a string');
  if (!scope.methods.some((allowed) => allowed.toUpperCase() === method)) {
    throw new Error(`request: the extension did not ask for ${method} requests`);
  }
  if (!scope.urls.some((pattern) => wildcard(pattern).test(url))) {
    throw new Error(`request: the extension did not ask for requests to ${url}`);
  }
  const headers = isPlainObject(given['headers'])
    ? Object.entries(given['headers']).map(([header, value]) => ({ header, value }))
    : [];
  const send = operationHandler('request');
  if (send === undefined) throw new Error('request: no request operation');
  return send({ url, method, headers, body: given['body'] }, operation);
}

function stringsOf(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((entry): entry is string => typeof entry === 'string') : [];
}

/** A scope's URL pattern: `*` stands for any text. */
function wildcard(pattern: string): RegExp {
  const parts = pattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('.*')}$`);
}
