import type { Knex } from 'knex';
import { InvalidPayloadError } from '../errors.js';
import { writtenKeys } from './change-set.js';

export const FLOWS_COLLECTION = 'svc_flows';
export const OPERATIONS_COLLECTION = 'svc_operations';

/** Keys per `whereIn` (SQLite's bound parameters). */
const BATCH = 500;

interface OperationNode {
  readonly id: string;
  readonly key: string;
  readonly flow: string;
  readonly next: readonly string[];
}

/**
 * The svc_flows / svc_operations rule (collection-rules.ts, checked before the commit, once
 * every row of the request is written: a flow saved with its operations nested, or a chain
 * re-pointed operation by operation): no flow whose operations `resolve` / `reject` into a
 * loop, and no flow whose `trigger` operations call it back (itself, or through other flows),
 * when the called flow is named outright (a templated `{{ ... }}` one is only known at run
 * time). INVALID_PAYLOAD naming the loop; nothing is written. Only the flows this write
 * touched are checked: a loop saved before this rule does not block other flows' saves.
 * FLOWS_MAX_STEPS and FLOWS_MAX_DEPTH stay the run time's backstop. Directus 10 takes both.
 */
export async function checkFlowGraphs(trx: Knex.Transaction): Promise<void> {
  const flows = new Set(writtenKeys(trx, FLOWS_COLLECTION).map(idOf));
  const operations = writtenKeys(trx, OPERATIONS_COLLECTION).map(idOf);
  for (let i = 0; i < operations.length; i += BATCH) {
    const rows = await trx(OPERATIONS_COLLECTION)
      .whereIn('id', operations.slice(i, i + BATCH))
      .select<{ flow: unknown }[]>('flow');
    for (const row of rows) flows.add(idOf(row.flow));
  }
  if (flows.size === 0) return;
  const touched = [...flows];
  for (let i = 0; i < touched.length; i += BATCH) {
    const rows = await trx(OPERATIONS_COLLECTION)
      .whereIn('flow', touched.slice(i, i + BATCH))
      .select<Record<string, unknown>[]>('id', 'key', 'flow', 'resolve', 'reject');
    const byFlow = new Map<string, OperationNode[]>();
    for (const row of rows) {
      const node = {
        id: idOf(row['id']),
        key: String(row['key']),
        flow: idOf(row['flow']),
        next: [row['resolve'], row['reject']].filter((id) => typeof id === 'string').map(idOf),
      };
      byFlow.set(node.flow, [...(byFlow.get(node.flow) ?? []), node]);
    }
    for (const nodes of byFlow.values()) await refuseChainLoop(trx, nodes);
  }
  await refuseTriggerLoop(trx, flows);
}

async function refuseChainLoop(trx: Knex.Transaction, nodes: readonly OperationNode[]): Promise<void> {
  const byId = new Map(nodes.map((node) => [node.id, node]));
  const loop = findLoop(
    nodes.map((node) => node.id),
    (id) => (byId.get(id)?.next ?? []).filter((next) => byId.has(next)),
  );
  if (loop === undefined) return;
  const keys = loop.map((id) => `"${byId.get(id)?.key ?? id}"`).join(' → ');
  const flow = await flowName(trx, nodes[0]?.flow ?? '');
  throw new InvalidPayloadError(`the operations of flow "${flow}" resolve or reject into a loop: ${keys}`);
}

/** Flow → the flows its `trigger` operations name outright, and the key of each such operation. */
async function refuseTriggerLoop(trx: Knex.Transaction, touched: ReadonlySet<string>): Promise<void> {
  const rows = await trx(OPERATIONS_COLLECTION)
    .where({ type: 'trigger' })
    .select<Record<string, unknown>[]>('key', 'flow', 'options');
  const calls = new Map<string, { readonly flow: string; readonly key: string }[]>();
  for (const row of rows) {
    const called = optionsOf(row['options'])['flow'];
    if (typeof called !== 'string' || called === '' || called.includes('{{')) continue;
    const from = idOf(row['flow']);
    calls.set(from, [...(calls.get(from) ?? []), { flow: idOf(called), key: String(row['key']) }]);
  }
  const loop = findLoop([...touched], (flow) => (calls.get(flow) ?? []).map((call) => call.flow));
  if (loop === undefined) return;
  const names = await Promise.all(loop.map((flow) => flowName(trx, flow)));
  const path = loop
    .slice(0, -1)
    .map((flow, i) => {
      const call = calls.get(flow)?.find((c) => c.flow === loop[i + 1]);
      return `"${names[i] ?? flow}" (operation "${call?.key ?? '?'}") → `;
    })
    .join('');
  throw new InvalidPayloadError(
    `flow "${names[0] ?? ''}" triggers itself: ${path}"${names.at(-1) ?? ''}" (FLOWS_MAX_DEPTH would stop it at run time)`,
  );
}

/**
 * A loop reachable from one of `starts` along `next`, as the nodes walked from its first node
 * back to it (`[a, b, a]`); undefined when there is none. Depth first, without recursion.
 */
function findLoop(starts: readonly string[], next: (node: string) => readonly string[]): string[] | undefined {
  const done = new Set<string>();
  for (const start of starts) {
    if (done.has(start)) continue;
    const path: string[] = [];
    const onPath = new Set<string>();
    const stack: { node: string; children: readonly string[]; at: number }[] = [];
    const enter = (node: string) => {
      path.push(node);
      onPath.add(node);
      stack.push({ node, children: next(node), at: 0 });
    };
    enter(start);
    while (stack.length > 0) {
      const top = stack[stack.length - 1] as (typeof stack)[number];
      const child = top.children[top.at];
      top.at += 1;
      if (child === undefined) {
        stack.pop();
        path.pop();
        onPath.delete(top.node);
        done.add(top.node);
      } else if (onPath.has(child)) {
        return [...path.slice(path.indexOf(child)), child];
      } else if (!done.has(child)) {
        enter(child);
      }
    }
  }
  return undefined;
}

async function flowName(trx: Knex.Transaction, id: string): Promise<string> {
  const row = await trx(FLOWS_COLLECTION).where({ id }).first<{ name?: unknown } | undefined>('name');
  return typeof row?.name === 'string' ? row.name : id;
}

/** Uuids as the database may give them back (PostgreSQL lower-cases, SQLite and MariaDB keep what was sent). */
function idOf(value: unknown): string {
  return String(value).toLowerCase();
}

/** JSON columns come back as text on SQLite and MariaDB. */
function optionsOf(value: unknown): Record<string, unknown> {
  let parsed: unknown = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value);
    } catch {
      return {};
    }
  }
  return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
}
