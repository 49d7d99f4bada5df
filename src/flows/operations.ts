import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { AddressDenyList } from '../files/address-deny-list.js';
import { fetchExternal } from '../files/fetch-external.js';
import { InvalidPayloadError } from '../errors.js';
import { unmatchedPaths } from './filter-match.js';
import { ITEM_OPERATIONS } from './item-operations.js';
import { exec } from './run-script.js';
import { webhookHeaders } from './sign-webhook.js';
import { textOf } from './templates.js';
import type { FlowDeps, OperationHandler } from './types.js';

/** A failed operation: its message and the data it leaves for the reject path (`$last`). */
export class OperationFailure extends Error {
  constructor(
    message: string,
    readonly data: unknown = { message },
  ) {
    super(message);
    this.name = 'OperationFailure';
  }
}

/** `condition`: resolves when the run data passes `filter`, rejects naming the paths that failed. */
const condition: OperationHandler = (options, { data }) => {
  const failed = unmatchedPaths(options['filter'] ?? {}, data);
  if (failed.length > 0) {
    throw new OperationFailure(
      `condition not met: ${failed.join(', ')}`,
      failed.map((path) => ({ path, message: `"${path}" does not match the condition` })),
    );
  }
  return null;
};

/** `transform`: its `json` (templates rendered) becomes the step's data. */
const transform: OperationHandler = (options) => {
  const json = options['json'];
  return typeof json === 'string' && json.trim() !== '' ? JSON.parse(json) : (json ?? null);
};

const log: OperationHandler = (options, { deps, flow }) => {
  const message = typeof options['message'] === 'string' ? options['message'] : JSON.stringify(options['message']);
  deps.logger.info({ flow: flow.id }, `flow "${flow.name}": ${message}`);
  return null;
};

const sleep: OperationHandler = async (options, { deps }) => {
  const ms = Number(options['milliseconds'] ?? 0);
  if (!Number.isFinite(ms) || ms < 0) throw new InvalidPayloadError('"milliseconds" must be a number');
  await delay(Math.min(ms, deps.config.flows.sleepMaxMs));
  return null;
};

/**
 * `request`: through the same fetcher as /files/import, so no address of IMPORT_IP_DENY_LIST is
 * reached (checked after DNS and on every redirect); FLOWS_REQUEST_TIMEOUT and
 * FLOWS_REQUEST_MAX_SIZE bound it. A non-2xx answer rejects. With `secret` the request is signed
 * as Standard Webhooks sign (sign-webhook.ts), its id the run's event key.
 */
const request: OperationHandler = async (options, { deps, runKey }) => {
  const url = options['url'];
  if (typeof url !== 'string' || url === '') throw new InvalidPayloadError('"url" is required');
  const method = typeof options['method'] === 'string' ? options['method'].toUpperCase() : 'GET';
  const headers: Record<string, string> = {};
  for (const entry of Array.isArray(options['headers']) ? options['headers'] : []) {
    const { header, value } = (entry ?? {}) as { header?: unknown; value?: unknown };
    if (typeof header === 'string' && header !== '') headers[header.toLowerCase()] = textOf(value);
  }
  const rawBody = options['body'];
  let body: string | undefined;
  if (rawBody !== undefined && rawBody !== null && method !== 'GET' && method !== 'HEAD') {
    body = typeof rawBody === 'string' ? rawBody : JSON.stringify(rawBody);
    headers['content-type'] ??= 'application/json';
  }
  const secret = options['secret'];
  if (typeof secret === 'string' && secret !== '') {
    Object.assign(headers, webhookHeaders(secret, runKey ?? `msg_${randomUUID()}`, body ?? ''));
  }
  const { config } = deps;
  let fetched;
  try {
    fetched = await fetchExternal(url, {
      denyList: denyListOf(deps),
      timeoutMs: config.flows.requestTimeoutMs,
      request: { method, headers, ...(body === undefined ? {} : { body }) },
    });
  } catch (error) {
    throw new OperationFailure(`request to ${url} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  const { response } = fetched;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response) {
    size += (chunk as Buffer).length;
    if (size > config.flows.requestMaxSize) {
      response.destroy();
      throw new OperationFailure(`request to ${url} failed: the answer is larger than FLOWS_REQUEST_MAX_SIZE`);
    }
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  let data: unknown = text;
  if ((response.headers['content-type'] ?? '').includes('json')) {
    try {
      data = JSON.parse(text);
    } catch {
      data = text;
    }
  }
  return { status: response.statusCode, statusText: response.statusMessage, headers: response.headers, data };
};

const denyLists = new WeakMap<FlowDeps['config'], AddressDenyList>();
function denyListOf(deps: FlowDeps): AddressDenyList {
  let list = denyLists.get(deps.config);
  if (list === undefined) {
    list = new AddressDenyList(deps.config.importIpDenyList);
    denyLists.set(deps.config, list);
  }
  return list;
}

const mail: OperationHandler = async (options, { deps }) => {
  if (deps.sendMail === undefined) throw new OperationFailure('mail is not configured');
  const to = Array.isArray(options['to']) ? options['to'].map(textOf) : textOf(options['to']).split(',');
  const subject = textOf(options['subject']);
  const body = textOf(options['body']);
  await deps.sendMail({ to: to.map((t) => t.trim()).filter((t) => t !== ''), subject, html: body });
  return null;
};

/** `trigger`: runs another flow (its trigger `operation`) with `payload`; its result is this step's data. */
const trigger: OperationHandler = async (options, context) => {
  const flowId = options['flow'];
  if (typeof flowId !== 'string' || flowId === '') throw new InvalidPayloadError('"flow" is required');
  const payload = options['payload'];
  if (options['iterationMode'] !== undefined && Array.isArray(payload)) {
    const results = [];
    for (const entry of payload) results.push(await context.runFlow(flowId, entry));
    return results;
  }
  return context.runFlow(flowId, payload);
};

const registry = new Map<string, OperationHandler>(
  Object.entries({ condition, transform, log, sleep, request, mail, trigger, exec, ...ITEM_OPERATIONS }),
);

/**
 * Adds an operation type (Directus's `defineOperationApi({ id, handler })`), for the
 * extensions loader: its handler gets the rendered options and `{ data, accountability, ... }`.
 * A built-in id cannot be replaced. Returns what removes it again (the extensions' `close`).
 */
export function registerOperation(id: string, handler: OperationHandler): () => void {
  if (BUILT_IN.has(id)) throw new Error(`operation "${id}" is built in`);
  registry.set(id, handler);
  return () => {
    if (registry.get(id) === handler) registry.delete(id);
  };
}

const BUILT_IN: ReadonlySet<string> = new Set(registry.keys());

export function operationHandler(type: string): OperationHandler | undefined {
  return registry.get(type);
}
