/**
 * The filter builder's model (filter-builder.tsx; its operators per field type are
 * filter-operators.ts): a filter as a tree of `_and` / `_or` groups and rules, read from and written back to the
 * Directus shape, and the fields a rule may name. No React here.
 */
import type { Filter } from '../../client/index.js';
import { collectionOf, type Catalogue, type CollectionInfo, type FieldInfo } from './catalogue.js';
import { FAMILY_OF_TYPE, SHAPE } from './filter-operators.js';

export const VARIABLES = ['$CURRENT_USER', '$CURRENT_ROLE', '$NOW', '$NOW(-1 day)'];

export interface Rule {
  readonly kind: 'rule';
  readonly key: number;
  readonly field: string;
  readonly op: string;
  /** What the inputs hold: text (list: comma separated; pair: two texts), or a flag. */
  readonly value: string;
  readonly high: string;
  /** A quantifier's (`_some`, `_none`): the condition the related rows are tested by. */
  readonly nested: Group | null;
}
export interface Group {
  readonly kind: 'group';
  readonly key: number;
  readonly logic: '_and' | '_or';
  readonly children: readonly Node[];
}
export type Node = Rule | Group;

let nextKey = 1;
export const newRule = (field = '', op = '_eq'): Rule => ({
  kind: 'rule',
  key: nextKey++,
  field,
  op,
  value: '',
  high: '',
  nested: null,
});
export const newGroup = (logic: '_and' | '_or' = '_and', children: readonly Node[] = []): Group => ({
  kind: 'group',
  key: nextKey++,
  logic,
  children,
});

export const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
export const asText = (v: unknown): string =>
  v === null || v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v);

/**
 * A filter as a tree of groups and rules; null when the rules cannot show it (JSON only), as a
 * quantifier (`_some`, `_none`) is where the builder does not offer them (`quantifiers`).
 */
export function parseFilter(filter: unknown, quantifiers = false): Group | null {
  if (filter === null || filter === undefined) return newGroup();
  const node = parseNode(filter, quantifiers);
  if (node === null) return null;
  return node.kind === 'group' ? node : newGroup('_and', [node]);
}

function parseNode(filter: unknown, quantifiers: boolean): Node | null {
  if (!isRecord(filter)) return null;
  const keys = Object.keys(filter);
  if (keys.length === 1 && (keys[0] === '_and' || keys[0] === '_or')) {
    const list = filter[keys[0]];
    if (!Array.isArray(list)) return null;
    const children = list.map((item) => parseNode(item, quantifiers));
    if (children.some((c) => c === null)) return null;
    return newGroup(keys[0], children as Node[]);
  }
  // Several fields in one object are an implicit _and.
  const rules = keys.map((k) => parseRule(k, filter[k], quantifiers));
  if (rules.some((r) => r === null)) return null;
  if (rules.length === 1) return rules[0] ?? null;
  return newGroup('_and', rules as Rule[]);
}

function parseRule(field: string, body: unknown, quantifiers: boolean): Rule | null {
  if (field.startsWith('_') || !isRecord(body)) return null;
  const keys = Object.keys(body);
  if (keys.length !== 1) return null;
  const [key] = keys as [string];
  if (!key.startsWith('_')) {
    // A related field: { author: { name: { _eq: … } } } (no quantifier behind it: not offered).
    const inner = parseRule(key, body[key], quantifiers);
    return inner === null || inner.field.includes('.') || inner.nested !== null
      ? null
      : { ...inner, field: `${field}.${inner.field}` };
  }
  const shape = SHAPE.get(key);
  if (shape === undefined) return null;
  const value = body[key];
  const rule = newRule(field, key);
  switch (shape) {
    case 'quantifier': {
      // { comments: { _some: { status: { _eq: … } } } }: the related rows' own filter, without
      // quantifiers of its own (fieldChoices). An empty one (some row at all) has no condition to
      // show: JSON only, not dropped.
      const nested = quantifiers && isRecord(value) ? parseFilter(value) : null;
      return nested === null || nested.children.length === 0 ? null : { ...rule, nested };
    }
    case 'list':
      return { ...rule, value: Array.isArray(value) ? value.map(asText).join(', ') : asText(value) };
    case 'pair':
      if (!Array.isArray(value) || value.length !== 2) return null;
      return { ...rule, value: asText(value[0]), high: asText(value[1]) };
    case 'flag':
    case 'presence':
      return { ...rule, value: value === false || value === 'false' ? 'false' : 'true' };
    default:
      return { ...rule, value: asText(value) };
  }
}

/** A text typed as the field's type: numbers and booleans as such, variables and the rest as text. */
export function typed(text: string, type: string | undefined): unknown {
  const family = FAMILY_OF_TYPE[type ?? ''] ?? 'untyped';
  if (text.startsWith('$')) return text;
  if (family === 'number' && text.trim() !== '' && Number.isFinite(Number(text))) return Number(text);
  if (family === 'boolean' && (text === 'true' || text === 'false')) return text === 'true';
  if (family === 'json' || family === 'geometry') {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  }
  return text;
}

/**
 * The filter of a tree, its values typed by the fields of `choices`; rules without a field or a
 * value yet (a quantifier: without a condition) are left out (null: no filter).
 */
function serialize(node: Node, choices: readonly FieldChoice[]): Record<string, unknown> | null {
  if (node.kind === 'group') {
    const children = node.children
      .map((c) => serialize(c, choices))
      .filter((c): c is Record<string, unknown> => c !== null);
    return children.length === 0 ? null : { [node.logic]: children };
  }
  if (node.field === '') return null;
  const shape = SHAPE.get(node.op) ?? 'scalar';
  const choice = choices.find((c) => c.path === node.field);
  const type = choice?.field.type;
  let value: unknown;
  switch (shape) {
    case 'quantifier': {
      value = node.nested === null ? null : toFilter(node.nested, choice?.related ?? []);
      if (value === null) return null;
      break;
    }
    case 'flag':
    case 'presence':
      value = node.value !== 'false';
      break;
    case 'list': {
      const items = node.value
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== '');
      if (items.length === 0) return null;
      value = items.map((s) => typed(s, type));
      break;
    }
    case 'pair':
      if (node.value === '' || node.high === '') return null;
      value = [typed(node.value, type), typed(node.high, type)];
      break;
    default:
      if (node.value === '') return null;
      value = shape === 'scalar' ? typed(node.value, type) : node.value;
  }
  return node.field
    .split('.')
    .reduceRight<Record<string, unknown>>((inner, part) => ({ [part]: inner }), { [node.op]: value });
}

/** The root group's filter: one condition alone, several under the group's logic. */
export function toFilter(root: Group, choices: readonly FieldChoice[]): Filter | null {
  const out = serialize(root, choices);
  if (out === null) return null;
  const list = out[root.logic] as Record<string, unknown>[];
  return (list.length === 1 && root.logic === '_and' ? list[0] : out) as Filter;
}

export interface FieldChoice {
  readonly path: string;
  readonly label: string;
  readonly field: FieldInfo;
  /** A to-many field's: the fields of the rows its quantifiers (`_some`, `_none`) test. */
  readonly related?: readonly FieldChoice[];
}

/**
 * The collection whose rows a to-many field's quantifiers test: a one-to-many's related one; for a
 * many-to-many (files, many-to-any) alias its junction, as the API reads it (a one-to-many on the
 * junction: `{ tags: { _some: { tags_id: { name: … } } } }`).
 */
function quantifiedCollection(field: FieldInfo): string | undefined {
  switch (field.relation?.kind) {
    case 'o2m':
      return field.relation.collection;
    case 'm2m':
    case 'files':
    case 'm2a':
      return field.relation.junction;
    default:
      return undefined;
  }
}

/**
 * The fields a rule may name: the collection's own, those of its many-to-ones' collections and,
 * with `quantifiers`, its to-many fields, each with the fields of the rows it reaches (one level:
 * no quantifier inside a quantifier, so a cycle of relations ends).
 */
export function fieldChoices(collection: CollectionInfo, catalogue: Catalogue, quantifiers = false): FieldChoice[] {
  const out: FieldChoice[] = [];
  for (const f of collection.fields) {
    if (f.type === 'alias') {
      const rows = quantifiers ? collectionOf(catalogue, quantifiedCollection(f) ?? '') : undefined;
      if (rows !== undefined)
        out.push({ path: f.name, label: f.name, field: f, related: fieldChoices(rows, catalogue) });
      continue;
    }
    out.push({ path: f.name, label: f.name, field: f });
    if (f.relation?.kind !== 'm2o') continue;
    const related = collectionOf(catalogue, f.relation.collection);
    for (const g of related?.fields ?? [])
      if (g.type !== 'alias') out.push({ path: `${f.name}.${g.name}`, label: `${f.name} → ${g.name}`, field: g });
  }
  return out;
}

/** The tree with the node `key` changed (null: removed), in groups and in quantifiers' conditions. */
export function mapNode(node: Group, key: number, change: (n: Node) => Node | null): Group {
  const children: Node[] = [];
  for (const c of node.children) {
    const next = c.key === key ? change(c) : within(c, key, change);
    if (next !== null) children.push(next);
  }
  return { ...node, children };
}

function within(node: Node, key: number, change: (n: Node) => Node | null): Node {
  if (node.kind === 'group') return mapNode(node, key, change);
  return node.nested === null ? node : { ...node, nested: mapNode(node.nested, key, change) };
}
