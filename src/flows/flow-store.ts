import type { Knex } from 'knex';
import { textOf } from './templates.js';
import type { FlowRow, FlowTrigger, LoadedFlow, OperationRow } from './types.js';

/** JSON columns come back as text on SQLite and MariaDB. */
function jsonOf(value: unknown): Record<string, unknown> {
  if (typeof value === 'string') {
    try {
      const parsed: unknown = JSON.parse(value);
      return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
    } catch {
      return {};
    }
  }
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
}

function flowOf(row: Record<string, unknown>): FlowRow {
  return {
    id: textOf(row['id']),
    name: textOf(row['name']),
    status: row['status'] === 'inactive' ? 'inactive' : 'active',
    trigger: (row['trigger'] ?? null) as FlowTrigger | null,
    accountability: (row['accountability'] ?? null) as FlowRow['accountability'],
    options: jsonOf(row['options']),
    operation: row['operation'] === null || row['operation'] === undefined ? null : textOf(row['operation']),
  };
}

function operationOf(row: Record<string, unknown>): OperationRow {
  const idOrNull = (value: unknown) => (value === null || value === undefined ? null : textOf(value));
  return {
    id: textOf(row['id']),
    key: textOf(row['key']),
    type: textOf(row['type']),
    options: jsonOf(row['options']),
    resolve: idOrNull(row['resolve']),
    reject: idOrNull(row['reject']),
  };
}

/** A flow and its operations, read fresh (a flow edited a moment ago runs as edited); undefined when missing. */
export async function loadFlow(db: Knex, id: string): Promise<LoadedFlow | undefined> {
  const row = (await db('svc_flows').where({ id }).first()) as Record<string, unknown> | undefined;
  if (row === undefined) return undefined;
  const operations = (await db('svc_operations').where({ flow: id })) as Record<string, unknown>[];
  return { flow: flowOf(row), operations: new Map(operations.map(operationOf).map((op) => [op.id, op])) };
}

/** The active flows of one trigger type (without their operations). */
export async function activeFlows(db: Knex, trigger: FlowTrigger): Promise<FlowRow[]> {
  const rows = (await db('svc_flows').where({ trigger, status: 'active' })) as Record<string, unknown>[];
  return rows.map(flowOf);
}
