import { InvalidPayloadError } from '../../src/errors.js';
import {
  SNAPSHOT_VERSION,
  indexesForeignKeys,
  type Snapshot,
  type SnapshotCollection,
  type SnapshotField,
  type SnapshotRelation,
  type Vendor,
} from './snapshot.js';
import { isPlainObject } from '../../src/is-plain-object.js';

/** One change inside an object, as Directus 10 (deep-diff) writes it: New, Deleted, Edited. */
export type DiffEntry =
  | { readonly kind: 'N'; readonly path?: readonly string[]; readonly rhs: unknown }
  | { readonly kind: 'D'; readonly path?: readonly string[]; readonly lhs: unknown }
  | { readonly kind: 'E'; readonly path: readonly string[]; readonly lhs: unknown; readonly rhs: unknown };

interface CollectionDiff {
  readonly collection: string;
  readonly diff: readonly DiffEntry[];
}
interface FieldDiff {
  readonly collection: string;
  readonly field: string;
  readonly diff: readonly DiffEntry[];
}
interface RelationDiff {
  readonly collection: string;
  readonly field: string;
  readonly related_collection: string | null;
  readonly diff: readonly DiffEntry[];
}

/** The difference from the current schema to a snapshot (POST /schema/diff's `diff`). */
export interface SchemaDiff {
  readonly collections: readonly CollectionDiff[];
  readonly fields: readonly FieldDiff[];
  readonly relations: readonly RelationDiff[];
}

export function isEmptyDiff(diff: SchemaDiff): boolean {
  return diff.collections.length === 0 && diff.fields.length === 0 && diff.relations.length === 0;
}

/** What turns `current` into `target`: whole objects added or removed, leaf edits otherwise. */
export function diffSnapshots(current: Snapshot, target: Snapshot): SchemaDiff {
  const collectionKey = (c: SnapshotCollection) => c.collection;
  const fieldKey = (f: SnapshotField | SnapshotRelation) => `${f.collection}\u0000${f.field}`;
  return {
    collections: diffLists(current.collections, target.collections, collectionKey).map(([c, diff]) => ({
      collection: c.collection,
      diff,
    })),
    fields: diffLists(
      current.fields,
      target.fields,
      fieldKey,
      indexesForeignKeys(current.vendor) ? withoutImplicitIndex : undefined,
    ).map(([f, diff]) => ({
      collection: f.collection,
      field: f.field,
      diff,
    })),
    relations: diffLists(current.relations, target.relations, fieldKey).map(([r, diff]) => ({
      collection: r.collection,
      field: r.field,
      related_collection: r.related_collection,
      diff,
    })),
  };
}

/**
 * On MySQL/MariaDB a foreign key column is indexed whatever the snapshot says (InnoDB): an
 * edit of its is_indexed alone would be planned on every diff and change nothing.
 */
function withoutImplicitIndex(entries: DiffEntry[], current: object): DiffEntry[] {
  const schema = (current as { schema?: unknown }).schema;
  if (!isPlainObject(schema) || schema['foreign_key_table'] == null) return entries;
  return entries.filter((e) => !(e.kind === 'E' && e.path.join('.') === 'schema.is_indexed'));
}

function diffLists<T extends object>(
  current: readonly T[],
  target: readonly T[],
  key: (t: T) => string,
  filter?: (entries: DiffEntry[], current: T) => DiffEntry[],
): [T, DiffEntry[]][] {
  const before = new Map(current.map((c) => [key(c), c]));
  const after = new Map(target.map((t) => [key(t), t]));
  const out: [T, DiffEntry[]][] = [];
  for (const [k, t] of after) {
    const c = before.get(k);
    if (c === undefined) out.push([t, [{ kind: 'N', rhs: t }]]);
    else {
      const all = diffValues(c, t, []);
      const entries = filter === undefined ? all : filter(all, c);
      if (entries.length > 0) out.push([t, entries]);
    }
  }
  for (const [k, c] of before) if (!after.has(k)) out.push([c, [{ kind: 'D', lhs: c }]]);
  return out;
}

function diffValues(lhs: unknown, rhs: unknown, path: readonly string[]): DiffEntry[] {
  if (isPlainObject(lhs) && isPlainObject(rhs)) {
    const entries: DiffEntry[] = [];
    for (const key of new Set([...Object.keys(lhs), ...Object.keys(rhs)])) {
      const at = [...path, key];
      if (!(key in lhs)) entries.push({ kind: 'N', path: at, rhs: rhs[key] });
      else if (!(key in rhs)) entries.push({ kind: 'D', path: at, lhs: lhs[key] });
      else entries.push(...diffValues(lhs[key], rhs[key], at));
    }
    return entries;
  }
  return isDeepEqual(lhs, rhs) ? [] : [{ kind: 'E', path, lhs, rhs }];
}

function isDeepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => isDeepEqual(v, b[i]));
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => k in b && isDeepEqual(a[k], b[k]));
  }
  return false;
}

/** `object` with the entries' edits applied (entries without a path replace or remove it whole). */
export function applyEntries(object: unknown, entries: readonly DiffEntry[]): unknown {
  let result: unknown = structuredClone(object);
  for (const entry of entries) {
    const path = entry.path ?? [];
    if (path.length === 0) {
      result = entry.kind === 'D' ? undefined : structuredClone(entry.rhs);
      continue;
    }
    let parent: unknown = result;
    for (const key of path.slice(0, -1))
      parent = isPlainObject(parent) && Object.hasOwn(parent, key) ? parent[key] : undefined;
    if (!isPlainObject(parent))
      throw new InvalidPayloadError(`The diff doesn't fit the current schema at "${path.join('.')}"`);
    const last = path[path.length - 1] as string;
    const target = parent;
    if (entry.kind === 'D') Reflect.deleteProperty(target, last);
    else target[last] = structuredClone(entry.rhs);
  }
  return result;
}

/**
 * A request body as a snapshot; anything else (a newer version, a truncated or hand-edited
 * file, objects without their keys, duplicates, fields of collections it doesn't list) is
 * INVALID_PAYLOAD naming what is wrong.
 */
export function parseSnapshot(body: unknown): Snapshot {
  if (!isPlainObject(body)) throw new InvalidPayloadError('The snapshot must be an object');
  const version = body['version'];
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1) {
    throw new InvalidPayloadError('"version" of the snapshot must be a positive integer');
  }
  if (version > SNAPSHOT_VERSION) {
    throw new InvalidPayloadError(
      `The snapshot's version ${String(version)} is newer than this service reads (${String(SNAPSHOT_VERSION)}); upgrade the service`,
    );
  }
  const vendor = body['vendor'];
  if (typeof vendor !== 'string' || vendor === '')
    throw new InvalidPayloadError('"vendor" of the snapshot must be a string');
  const collections = requireList(body, 'collections').map((c, i) => parseCollection(c, i));
  const fields = requireList(body, 'fields').map((f, i) => parseField(f, i));
  const relations = requireList(body, 'relations').map((r, i) => parseRelation(r, i));
  assertUnique(
    collections.map((c) => c.collection),
    'collection',
  );
  assertUnique(
    fields.map((f) => `${f.collection}.${f.field}`),
    'field',
  );
  assertUnique(
    relations.map((r) => `${r.collection}.${r.field}`),
    'relation',
  );
  const tables = new Set(collections.filter((c) => c.schema !== null).map((c) => c.collection));
  for (const f of fields) {
    if (!tables.has(f.collection))
      throw new InvalidPayloadError(`Field "${f.collection}.${f.field}" belongs to no collection of the snapshot`);
  }
  for (const r of relations) {
    if (!tables.has(r.collection))
      throw new InvalidPayloadError(`Relation "${r.collection}.${r.field}" belongs to no collection of the snapshot`);
    if (!fields.some((f) => f.collection === r.collection && f.field === r.field)) {
      throw new InvalidPayloadError(`Relation "${r.collection}.${r.field}" has no field in the snapshot`);
    }
  }
  const service = typeof body['service'] === 'string' ? body['service'] : '';
  return { version, service, vendor: vendor as Vendor, collections, fields, relations };
}

function requireList(body: Readonly<Record<string, unknown>>, key: string): unknown[] {
  const value = body[key];
  if (!Array.isArray(value)) throw new InvalidPayloadError(`"${key}" of the snapshot must be an array`);
  return value;
}

function requireEntry(value: unknown, what: string, index: number): Readonly<Record<string, unknown>> {
  if (!isPlainObject(value))
    throw new InvalidPayloadError(`${what} ${String(index)} of the snapshot must be an object`);
  return value;
}

function requireString(object: Readonly<Record<string, unknown>>, key: string, where: string): string {
  const value = object[key];
  if (typeof value !== 'string' || value === '')
    throw new InvalidPayloadError(`"${key}" of ${where} must be a non-empty string`);
  return value;
}

function objectOrNull(
  object: Readonly<Record<string, unknown>>,
  key: string,
  where: string,
): Readonly<Record<string, unknown>> | null {
  const value = object[key] ?? null;
  if (value !== null && !isPlainObject(value))
    throw new InvalidPayloadError(`"${key}" of ${where} must be an object or null`);
  return value;
}

function parseCollection(value: unknown, index: number): SnapshotCollection {
  const object = requireEntry(value, 'Collection', index);
  const collection = requireString(object, 'collection', `collection ${String(index)}`);
  const where = `collection "${collection}"`;
  const schema = objectOrNull(object, 'schema', where);
  return {
    collection,
    meta: objectOrNull(object, 'meta', where),
    schema: schema === null ? null : { name: collection },
  };
}

function parseField(value: unknown, index: number): SnapshotField {
  const object = requireEntry(value, 'Field', index);
  const collection = requireString(object, 'collection', `field ${String(index)}`);
  const field = requireString(object, 'field', `field ${String(index)}`);
  const where = `field "${collection}.${field}"`;
  return {
    collection,
    field,
    type: requireString(object, 'type', where),
    meta: objectOrNull(object, 'meta', where),
    schema: objectOrNull(object, 'schema', where),
  };
}

function parseRelation(value: unknown, index: number): SnapshotRelation {
  const object = requireEntry(value, 'Relation', index);
  const collection = requireString(object, 'collection', `relation ${String(index)}`);
  const field = requireString(object, 'field', `relation ${String(index)}`);
  const where = `relation "${collection}.${field}"`;
  const related = object['related_collection'] ?? null;
  if (related !== null && (typeof related !== 'string' || related === '')) {
    throw new InvalidPayloadError(`"related_collection" of ${where} must be a string or null`);
  }
  return {
    collection,
    field,
    related_collection: related,
    meta: objectOrNull(object, 'meta', where),
    schema: objectOrNull(object, 'schema', where),
  };
}

function assertUnique(keys: readonly string[], what: string): void {
  const seen = new Set<string>();
  for (const key of keys) {
    if (seen.has(key)) throw new InvalidPayloadError(`The snapshot lists ${what} "${key}" twice`);
    seen.add(key);
  }
}

/** Keys a path may not name: they reach the object's prototype, not its data. */
const UNSAFE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** POST /schema/apply's body: `{ hash, diff }` as /schema/diff answered it. */
export function parseApplyBody(body: unknown): { readonly hash: string; readonly diff: SchemaDiff } {
  if (!isPlainObject(body)) throw new InvalidPayloadError('The body must be an object with "hash" and "diff"');
  const hash = body['hash'];
  if (typeof hash !== 'string' || hash === '') throw new InvalidPayloadError('"hash" is required');
  const diff = body['diff'];
  if (!isPlainObject(diff)) throw new InvalidPayloadError('"diff" is required and must be an object');
  const list = (key: string) => {
    const value = diff[key] ?? [];
    if (!Array.isArray(value)) throw new InvalidPayloadError(`"diff.${key}" must be an array`);
    return value.map((entry: unknown, i) => {
      const where = `diff.${key}[${String(i)}]`;
      if (!isPlainObject(entry)) throw new InvalidPayloadError(`"${where}" must be an object`);
      const collection = requireString(entry, 'collection', `"${where}"`);
      const field = key === 'collections' ? '' : requireString(entry, 'field', `"${where}"`);
      const entries = entry['diff'];
      if (!Array.isArray(entries) || entries.length === 0)
        throw new InvalidPayloadError(`"${where}.diff" must be a non-empty array`);
      return {
        collection,
        field,
        related: entry['related_collection'] ?? null,
        diff: entries.map((e: unknown) => parseEntry(e, where)),
      };
    });
  };
  return {
    hash,
    diff: {
      collections: list('collections').map(({ collection, diff: d }) => ({ collection, diff: d })),
      fields: list('fields').map(({ collection, field, diff: d }) => ({ collection, field, diff: d })),
      relations: list('relations').map(({ collection, field, related, diff: d }) => ({
        collection,
        field,
        related_collection: typeof related === 'string' ? related : null,
        diff: d,
      })),
    },
  };
}

function parseEntry(value: unknown, where: string): DiffEntry {
  if (!isPlainObject(value)) throw new InvalidPayloadError(`"${where}.diff" must hold objects`);
  const path = value['path'];
  if (
    path !== undefined &&
    (!Array.isArray(path) || !path.every((p) => typeof p === 'string' && !UNSAFE_KEYS.has(p)))
  ) {
    throw new InvalidPayloadError(`"${where}.diff[].path" must be an array of keys`);
  }
  const at = path as string[] | undefined;
  switch (value['kind']) {
    case 'N':
      return { kind: 'N', ...(at === undefined ? {} : { path: at }), rhs: value['rhs'] };
    case 'D':
      return { kind: 'D', ...(at === undefined ? {} : { path: at }), lhs: value['lhs'] };
    case 'E':
      if (at === undefined) throw new InvalidPayloadError(`"${where}.diff[]" of kind E needs a path`);
      return { kind: 'E', path: at, lhs: value['lhs'], rhs: value['rhs'] };
    default:
      throw new InvalidPayloadError(`"${where}.diff[].kind" must be one of [N, D, E]`);
  }
}
