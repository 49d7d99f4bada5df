import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * How deep the running flow sits in a chain of flows, carried through the async work of its
 * operations: a write by an item operation (`emitEvents`) fires the items' events inside it,
 * so event-hooks.ts knows the flows it starts are one deeper, and a chain of flows re-triggering
 * each other through writes stops at FLOWS_MAX_DEPTH as a `trigger` loop does. Queued runs carry
 * their depth in the job (flow-jobs.ts) and run at it again.
 */
const chain = new AsyncLocalStorage<number>();

export function runAtDepth<T>(depth: number, work: () => Promise<T>): Promise<T> {
  return chain.run(depth, work);
}

/** The depth of the flow whose operation is running here; undefined outside any flow. */
export function currentDepth(): number | undefined {
  return chain.getStore();
}
