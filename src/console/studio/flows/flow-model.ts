/**
 * A flow as the editor holds it (the flow's columns, its trigger options and its operations with
 * `resolve`/`reject` as operation ids), read from and written back to svc_flows/svc_operations
 * in one request: a new flow is created with its operations nested, an existing one is patched
 * with `operations: {create, update}` (the ids are made here, so a step names its next one
 * before either exists). Pure: the pages do the requests.
 */
import type { FlowType, OperationType } from '../../../client/index.js';

export type TriggerType = 'event' | 'schedule' | 'webhook' | 'manual' | 'operation';
export const TRIGGER_TYPES: readonly TriggerType[] = ['event', 'schedule', 'webhook', 'manual', 'operation'];

/** The operation types the service runs (src/flows/operations.ts); extensions add others by id. */
export const OPERATION_TYPES = [
  'log',
  'condition',
  'request',
  'mail',
  'item-create',
  'item-read',
  'item-update',
  'item-delete',
  'transform',
  'sleep',
  'trigger',
] as const;

export interface OperationDraft {
  readonly id: string;
  key: string;
  name: string;
  type: string;
  options: Record<string, unknown>;
  resolve: string | null;
  reject: string | null;
  /** Whether the operation is already stored (else it is created with the save). */
  stored: boolean;
}

export interface FlowDraft {
  name: string;
  icon: string;
  color: string;
  description: string;
  status: 'active' | 'inactive';
  trigger: TriggerType;
  accountability: 'all' | 'activity' | null;
  options: Record<string, unknown>;
  /** The first operation's id. */
  operation: string | null;
  operations: OperationDraft[];
}

/** A v4 UUID (crypto.randomUUID needs a secure context; an http address is not one). */
function newId(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = ((b[6] ?? 0) & 0x0f) | 0x40;
  b[8] = ((b[8] ?? 0) & 0x3f) | 0x80;
  const hex = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** A form's text (an emptied input gives null): trimmed, null when empty. */
const textOrNull = (value: unknown): string | null => {
  const text = typeof value === 'string' ? value.trim() : '';
  return text === '' ? null : text;
};

/** A select's empty choice ('') stored as null (react-admin refuses a null `emptyValue`). */
export const emptyIsNull = (value: unknown): unknown => (value === '' ? null : value);

const idOf = (value: unknown): string | null =>
  typeof value === 'string'
    ? value
    : typeof value === 'object' && value !== null
      ? String((value as { id: unknown }).id)
      : null;

export function emptyDraft(): FlowDraft {
  return {
    name: '',
    icon: 'bolt',
    color: '',
    description: '',
    status: 'active',
    trigger: 'event',
    accountability: 'all',
    options: { type: 'action', scope: ['items.create'], collections: [] },
    operation: null,
    operations: [],
  };
}

export function toDraft(flow: Partial<FlowType>, operations: readonly Partial<OperationType>[]): FlowDraft {
  return {
    name: flow.name ?? '',
    icon: flow.icon ?? '',
    color: flow.color ?? '',
    description: flow.description ?? '',
    status: flow.status === 'inactive' ? 'inactive' : 'active',
    trigger: TRIGGER_TYPES.includes(flow.trigger as TriggerType) ? (flow.trigger as TriggerType) : 'manual',
    accountability: flow.accountability ?? null,
    options: { ...(flow.options ?? {}) },
    operation: idOf(flow.operation),
    operations: operations.map((op) => ({
      id: String(op.id),
      key: op.key ?? '',
      name: op.name ?? '',
      type: op.type ?? 'log',
      options: { ...(op.options ?? {}) },
      resolve: idOf(op.resolve),
      reject: idOf(op.reject),
      stored: true,
    })),
  };
}

/** A new operation of `type` with the options its form starts from, and a key not taken yet. */
export function newOperation(type: string, taken: readonly OperationDraft[]): OperationDraft {
  const base = type.replace(/[^a-z0-9]+/gi, '_').toLowerCase() || 'step';
  let n = 1;
  while (taken.some((op) => op.key === `${base}_${n}`)) n += 1;
  const options: Record<string, unknown> =
    type === 'request' ? { method: 'POST', url: '' } : type.startsWith('item-') ? { permissions: '$trigger' } : {};
  return { id: newId(), key: `${base}_${n}`, name: '', type, options, resolve: null, reject: null, stored: false };
}

const KEY_SHAPE = /^[A-Za-z0-9_-]+$/;

/** What the form refuses before sending: empty, repeated or odd keys (the run data is keyed by them). */
export function draftProblems(draft: FlowDraft): { index: number; message: string; args?: Record<string, string> }[] {
  const problems: { index: number; message: string; args?: Record<string, string> }[] = [];
  const seen = new Set<string>();
  draft.operations.forEach((op, index) => {
    const key = textOrNull(op.key) ?? '';
    if (key === '') problems.push({ index, message: 'svc.flows.key_required' });
    else if (!KEY_SHAPE.test(key)) problems.push({ index, message: 'svc.flows.key_shape' });
    else if (seen.has(key)) problems.push({ index, message: 'svc.flows.key_repeated', args: { key } });
    seen.add(key);
  });
  return problems;
}

/**
 * The ids an operation may take as its next step: not itself, not one that already has a parent
 * (other than through this very link), and not one it is reached from (that would be a loop).
 * Directus's canvas offers the same: each operation hangs under one parent.
 */
export function nextChoices(draft: FlowDraft, from: string, current: string | null): OperationDraft[] {
  const parents = new Map<string, string>();
  for (const op of draft.operations) {
    if (op.resolve !== null) parents.set(op.resolve, op.id);
    if (op.reject !== null) parents.set(op.reject, op.id);
  }
  const ancestors = new Set<string>([from]);
  for (let at = parents.get(from); at !== undefined && !ancestors.has(at); at = parents.get(at)) ancestors.add(at);
  return draft.operations.filter(
    (op) =>
      op.id === current ||
      (!ancestors.has(op.id) && op.id !== draft.operation && (!parents.has(op.id) || op.id === current)),
  );
}

/** The operations in the order the trigger reaches them (success before failure), depth-first, then the unreached. */
export function chainOrder(draft: FlowDraft): { op: OperationDraft; depth: number; reached: boolean }[] {
  const byId = new Map(draft.operations.map((op) => [op.id, op]));
  const out: { op: OperationDraft; depth: number; reached: boolean }[] = [];
  const seen = new Set<string>();
  const visit = (id: string | null, depth: number) => {
    const op = id === null ? undefined : byId.get(id);
    if (op === undefined || seen.has(op.id)) return;
    seen.add(op.id);
    out.push({ op, depth, reached: true });
    visit(op.resolve, depth + 1);
    visit(op.reject, depth + 1);
  };
  visit(draft.operation, 0);
  for (const op of draft.operations) if (!seen.has(op.id)) out.push({ op, depth: 0, reached: false });
  return out;
}

const flowColumns = (draft: FlowDraft) => ({
  name: textOrNull(draft.name) ?? '',
  icon: textOrNull(draft.icon),
  color: textOrNull(draft.color),
  description: textOrNull(draft.description),
  status: draft.status,
  trigger: draft.trigger,
  accountability: draft.accountability,
  options: draft.options,
  operation: draft.operation,
});

const operationColumns = (op: OperationDraft) => ({
  id: op.id,
  key: textOrNull(op.key) ?? '',
  name: textOrNull(op.name),
  type: op.type,
  options: op.options ?? {},
  resolve: op.resolve,
  reject: op.reject,
});

/**
 * The body of the one request that saves the flow: POST /flows with its operations (a new flow),
 * or PATCH /flows/:id editing them; `removed` are the stored operations the draft dropped, deleted
 * after the save (nothing names them by then).
 */
export function savePayload(
  draft: FlowDraft,
  stored: readonly string[],
  id: string | undefined,
): { body: Record<string, unknown>; removed: string[] } {
  const kept = new Set(draft.operations.map((op) => op.id));
  const removed = stored.filter((s) => !kept.has(s));
  if (id === undefined) {
    return {
      body: { id: newId(), ...flowColumns(draft), operations: draft.operations.map(operationColumns) },
      removed,
    };
  }
  return {
    body: {
      ...flowColumns(draft),
      operations: {
        create: draft.operations.filter((op) => !op.stored).map(operationColumns),
        update: draft.operations.filter((op) => op.stored).map(operationColumns),
        delete: [],
      },
    },
    removed,
  };
}
