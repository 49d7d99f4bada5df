import { readFile } from 'node:fs/promises';
import type { Config } from '../config/index.js';
import { registerOperation, sandboxedOperation, type OperationHandler } from '../flows/index.js';
import { extensionContext, type ContextDeps } from './context.js';
import type { ExtensionEntry } from './discover.js';
import { importExtension, operationOf } from './register.js';

/**
 * An operation extension (`defineOperationApi({ id, handler })`) joins the flows' operations
 * under its id, beside the built-in ones; returns what removes it. Its handler gets the rendered
 * options and Directus's context (services, database, getSchema, env, logger, with the run's
 * `data` and `accountability`). A sandboxed one (`"sandbox": { "enabled": true }`) runs in an
 * isolate instead, given the options only (flows/sandboxed-operation.ts).
 */
export async function loadOperation(
  entry: ExtensionEntry,
  context: ContextDeps,
  config: Config['extensions'],
): Promise<() => void> {
  if (entry.sandbox !== undefined) {
    const { id, handler } = await sandboxedOperation(
      {
        name: entry.name,
        file: entry.file,
        source: await readFile(entry.file, 'utf8'),
        scopes: entry.sandbox.requestedScopes,
      },
      {
        memoryMb: config.sandboxMemoryMb,
        timeoutMs: config.sandboxTimeoutMs,
        memorySetting: 'EXTENSIONS_SANDBOX_MEMORY',
        timeoutSetting: 'EXTENSIONS_SANDBOX_TIMEOUT',
      },
    );
    return registerOperation(id, handler);
  }
  const { id, handler } = operationOf(await importExtension(entry));
  const directusContext = extensionContext(entry.name, context);
  const run: OperationHandler = (options, { data, accountability }) =>
    handler(options, { ...directusContext, data, accountability });
  return registerOperation(id, run);
}
