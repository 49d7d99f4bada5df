import type { Config } from '../config/index.js';
import { InvalidPayloadError } from '../errors.js';
import type { HookBus } from '../items/hooks.js';
import { isPlainObject } from '../is-plain-object.js';
import { inSandbox } from './sandbox.js';
import type { OperationHandler } from './types.js';

const EXEC_OFF = 'the "exec" operation (Run Script) is off here: FLOWS_EXEC_ALLOWED=true turns it on';

/** What the isolate runs once the script has set `module.exports`: the run data in, JSON out. */
const CALL_EXPORT = `
const fn = module.exports;
if (typeof fn !== 'function') throw new TypeError('the script must set module.exports to a function');
return Promise.resolve(fn(JSON.parse($0))).then((result) => (result === undefined ? undefined : JSON.stringify(result)));
`;

/**
 * `exec` (Directus 10's Run Script): `options.code` sets `module.exports = async function (data)
 * { ... }`, called with a JSON copy of the run data; what it returns (as JSON) is the step's
 * data, and a throw takes the reject path. It runs in an isolate of its own (sandbox.ts) within
 * FLOWS_RUN_SCRIPT_MAX_MEMORY and FLOWS_RUN_SCRIPT_TIMEOUT; `console` writes to the service's
 * log. Off unless FLOWS_EXEC_ALLOWED.
 */
export const exec: OperationHandler = async (options, { data, deps, flow }) => {
  const { flows } = deps.config;
  if (!flows.execAllowed) throw new Error(EXEC_OFF);
  const code = options['code'];
  if (typeof code !== 'string' || code.trim() === '') throw new InvalidPayloadError('"code" is required');
  const limits = {
    memoryMb: flows.runScriptMaxMemoryMb,
    timeoutMs: flows.runScriptTimeoutMs,
    memorySetting: 'FLOWS_RUN_SCRIPT_MAX_MEMORY',
    timeoutSetting: 'FLOWS_RUN_SCRIPT_TIMEOUT',
  };
  const log = (message: unknown, level: unknown) => {
    const line = `flow "${flow.name}" script: ${String(message)}`;
    if (level === 'warn' || level === 'error') deps.logger.warn({ flow: flow.id }, line);
    else deps.logger.info({ flow: flow.id }, line);
  };
  const answer = await inSandbox(limits, { log }, async (isolate, context) => {
    const script = await isolate.compileScript(code, { filename: `flow-${flow.id}.js` });
    await script.run(context);
    return (await context.evalClosure(CALL_EXPORT, [JSON.stringify(data)], { result: { promise: true } })) as
      string | undefined;
  });
  return answer === undefined ? null : JSON.parse(answer);
};

/**
 * Refuses to save an `exec` operation while FLOWS_EXEC_ALLOWED is off: through /operations, or
 * nested in a flow's `operations` (a list, or `{ create, update }`). One already saved rejects at
 * its step when run.
 */
export function refuseScriptsWhenOff(bus: HookBus, config: Config): void {
  if (config.flows.execAllowed) return;
  const refuse = (payload: unknown) => {
    if (mentionsExec(payload)) throw new InvalidPayloadError(EXEC_OFF);
    return undefined;
  };
  const refuseNested = (payload: unknown) => {
    refuse(isPlainObject(payload) ? operationsOf(payload['operations']) : undefined);
    return undefined;
  };
  for (const event of ['create', 'update']) {
    bus.filter(`svc_operations.items.${event}`, refuse, 'flows');
    bus.filter(`svc_flows.items.${event}`, refuseNested, 'flows');
  }
}

function mentionsExec(payload: unknown): boolean {
  if (Array.isArray(payload)) return payload.some(mentionsExec);
  return isPlainObject(payload) && payload['type'] === 'exec';
}

/** A flow's nested `operations`: a list, or Directus's `{ create, update, delete }`. */
function operationsOf(value: unknown): unknown[] {
  if (Array.isArray(value)) return value as unknown[];
  if (!isPlainObject(value)) return [];
  return [value['create'], value['update']].flatMap((list): unknown[] => (Array.isArray(list) ? list : []));
}
