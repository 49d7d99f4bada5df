import { pathToFileURL } from 'node:url';
import type { Router } from 'express';
import { isPlainObject } from '../is-plain-object.js';
import type { ActionHandler, FilterHandler } from '../items/hooks.js';
import type { ExtensionEntry } from './discover.js';
import type { ExtensionContext, InitHandler } from './context.js';
import type { ScheduleHandler } from './schedule.js';

/** What one hook extension registered, applied only once its register function returned. */
export interface HookRegistrations {
  readonly filters: { readonly event: string; readonly handler: FilterHandler }[];
  readonly actions: { readonly event: string; readonly handler: ActionHandler }[];
  readonly inits: { readonly event: string; readonly handler: InitHandler }[];
  readonly schedules: { readonly cron: string; readonly handler: ScheduleHandler }[];
}

/** An endpoint extension: the route it is mounted under and its register function. */
export interface EndpointRegistration {
  readonly id: string;
  readonly handler: (router: Router, context: ExtensionContext) => unknown;
}

/** Imports an extension's module (ES module or CommonJS) and returns its register function or config. */
export async function importExtension(entry: ExtensionEntry): Promise<unknown> {
  const module = (await import(pathToFileURL(entry.file).href)) as Record<string, unknown>;
  if (entry.bundleEntry !== undefined) return fromBundle(module, entry);
  return unwrapDefault(module);
}

/**
 * A bundle's API module lists its entries: `hooks: [{ name, config }]`, `endpoints: [...]`,
 * `operations: [...]` (named exports, or properties of a CommonJS export).
 */
function fromBundle(module: Record<string, unknown>, entry: ExtensionEntry): unknown {
  const key = `${entry.type}s`;
  const fallback = module['default'];
  const exports = module[key] === undefined && isPlainObject(fallback) ? fallback : module;
  const list = exports[key];
  const found = Array.isArray(list)
    ? (list as unknown[]).find((item) => isPlainObject(item) && item['name'] === entry.bundleEntry)
    : undefined;
  if (!isPlainObject(found)) throw new Error(`the bundle module has no ${entry.type} "${String(entry.bundleEntry)}"`);
  return found['config'];
}

/** `export default`, `module.exports =`, or `exports.default =` of a CommonJS build. */
function unwrapDefault(module: Record<string, unknown>): unknown {
  let value = 'default' in module ? module['default'] : module;
  if (isPlainObject(value) && 'default' in value && typeof value['default'] !== 'undefined' && !('id' in value)) {
    value = value['default'];
  }
  return value;
}

/**
 * Runs a hook's register function (`defineHook(({ filter, action, init, schedule, embed }, context) => …)`)
 * and returns what it registered; nothing is registered when it throws.
 */
export async function collectHook(register: unknown, context: ExtensionContext): Promise<HookRegistrations> {
  if (typeof register !== 'function') throw new Error('its module does not export a register function');
  const registrations: HookRegistrations = { filters: [], actions: [], inits: [], schedules: [] };
  const api = {
    filter: (event: string, handler: FilterHandler) => {
      registrations.filters.push({ event, handler: requireFunction(handler, `filter "${event}"`) });
    },
    action: (event: string, handler: ActionHandler) => {
      registrations.actions.push({ event, handler: requireFunction(handler, `action "${event}"`) });
    },
    init: (event: string, handler: InitHandler) => {
      registrations.inits.push({ event, handler: requireFunction(handler, `init "${event}"`) });
    },
    schedule: (cron: string, handler: ScheduleHandler) => {
      registrations.schedules.push({ cron, handler: requireFunction(handler, `schedule "${cron}"`) });
    },
    // Code injected into the Data Studio's pages: the Studio runs only its own scripts (its CSP).
    embed: () => undefined,
  };
  await (register as (api: unknown, context: ExtensionContext) => unknown)(api, context);
  return registrations;
}

/** `defineEndpoint((router, context) => …)`, or `{ id, handler }` to choose the route. */
export function endpointOf(config: unknown, name: string): EndpointRegistration {
  if (typeof config === 'function') {
    return { id: name, handler: config as EndpointRegistration['handler'] };
  }
  if (isPlainObject(config) && typeof config['handler'] === 'function') {
    const id = typeof config['id'] === 'string' && config['id'] !== '' ? config['id'] : name;
    return { id, handler: config['handler'] as EndpointRegistration['handler'] };
  }
  throw new Error('its module exports neither a register function nor { id, handler }');
}

/** An operation extension: `defineOperationApi({ id, handler })`, its handler `(options, context) => data`. */
export function operationOf(config: unknown): {
  readonly id: string;
  readonly handler: (options: Record<string, unknown>, context: unknown) => unknown;
} {
  if (isPlainObject(config) && typeof config['id'] === 'string' && config['id'] !== '') {
    const { id, handler } = config;
    if (typeof handler === 'function') return { id, handler: handler as ReturnType<typeof operationOf>['handler'] };
  }
  throw new Error('its module does not export { id, handler } (defineOperationApi)');
}

function requireFunction<H>(handler: H, what: string): H {
  if (typeof handler !== 'function') throw new Error(`its ${what} handler is not a function`);
  return handler;
}
