import { Worker } from 'node:worker_threads';

/**
 * A worker thread running the TypeScript module `moduleUrl` (through tsx, as the bench runs):
 * Node's workers do not inherit `--import tsx`, so the worker registers it first.
 */
export function tsWorker(moduleUrl: URL, workerData: unknown): Worker {
  const source = `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((tsx) => {
  tsx.register();
  return import(${JSON.stringify(moduleUrl.href)});
});`;
  return new Worker(source, { eval: true, workerData });
}
