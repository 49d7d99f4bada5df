/**
 * The rows of a one-to-many, many-to-many, many-to-any or files field as the form edits them,
 * and the nested payload they become on the alias field (one save, one request):
 * - one-to-many: a basic array, the whole set (keys, `{key, changes}`, new objects): the API
 *   links the keys, updates, creates, and deselects the rows left out (`one_deselect_action`:
 *   nullify or delete). Its detailed `update` only touches rows already linked, so linking an
 *   existing item needs the array.
 * - junctions (m2m, m2a, files): Directus's detailed `{create, update, delete}` on the junction
 *   rows: only what changed is sent; `delete` deselects the junction row.
 * With a sort field, each row's position is written to it (1, 2, …) where it differs.
 */
import type { RelationInfo } from '../catalogue.js';

export type Key = string | number;
export type Item = Record<string, unknown>;

export interface Entry {
  /** React's key for the row. */
  readonly uid: string;
  /** The related item's key (one-to-many) or the junction row's (others); none when new. */
  readonly key: Key | undefined;
  /** The row as loaded or picked: the related item, or the junction row with its related item nested. */
  readonly row: Item;
  /** What the form changed on the row (for junctions, the related item's changes under its field). */
  readonly changes: Item;
}

export interface EntriesState {
  readonly entries: readonly Entry[];
  /** Junction keys removed from the list. */
  readonly removed: readonly Key[];
}

let counter = 0;
export const newUid = (): string => `entry-${++counter}`;

export const isObject = (value: unknown): value is Item =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

type ListRelation = Exclude<RelationInfo, { kind: 'm2o' | 'file' }>;

/** The related item of an entry as it stands now (loaded values and the form's changes). */
export function relatedOf(relation: ListRelation, entry: Entry): Item {
  if (relation.kind === 'o2m') return { ...entry.row, ...entry.changes };
  const loaded = entry.row[relation.junctionField];
  const changed = entry.changes[relation.junctionField];
  return { ...(isObject(loaded) ? loaded : {}), ...(isObject(changed) ? changed : {}) };
}

/** The collection an entry's related item is in (many-to-any: per row). */
export function collectionOfEntry(relation: ListRelation, entry: Entry): string {
  if (relation.kind !== 'm2a') return relation.collection;
  return String(entry.changes[relation.collectionField] ?? entry.row[relation.collectionField] ?? '');
}

function sortChange(relation: ListRelation, entry: Entry, index: number): Item {
  const field = relation.sortField;
  if (field === undefined) return {};
  return Number(entry.row[field]) === index + 1 && entry.key !== undefined ? {} : { [field]: index + 1 };
}

/** The nested payload of the alias field. `pk`: the related (o2m) or junction collection's key. */
export function payloadOf(relation: ListRelation, state: EntriesState, pk: string): unknown {
  if (relation.kind === 'o2m') {
    return state.entries.map((entry, index) => {
      const changes = { ...entry.changes, ...sortChange(relation, entry, index) };
      if (entry.key === undefined) return changes;
      return Object.keys(changes).length === 0 ? entry.key : { [pk]: entry.key, ...changes };
    });
  }
  const create: Item[] = [];
  const update: Item[] = [];
  state.entries.forEach((entry, index) => {
    const changes = { ...entry.changes, ...sortChange(relation, entry, index) };
    if (entry.key === undefined) create.push(changes);
    else if (Object.keys(changes).length > 0) update.push({ [pk]: entry.key, ...changes });
  });
  return { create, update, delete: [...state.removed] };
}

/** `entries` with the one at `from` moved to `to`. */
export function moved<T>(entries: readonly T[], from: number, to: number): T[] {
  const out = [...entries];
  if (to < 0 || to >= out.length || from === to) return out;
  const [entry] = out.splice(from, 1);
  if (entry !== undefined) out.splice(to, 0, entry);
  return out;
}
