import { assertNever } from '../../errors.js';
import type { AggregateAst, CountAst, ReadAst, ReadNode } from '../ast/nodes.js';
import { columnAlias } from '../compile/compile-read.js';
import { setOwn } from '../parse/parse-values.js';
import { scalarText, shapeValue, toNumber } from './shape-value.js';

export type Item = Record<string, unknown>;
type Row = Readonly<Record<string, unknown>>;

/** Items of a read: each row's values by position, typed per field (shape-value.ts). */
export function shapeRows(ast: ReadAst, rows: readonly Row[]): Item[] {
  return rows.map((row) => shapeRow(ast, row));
}

export function shapeRow(ast: ReadAst, row: Row): Item {
  const item: Item = {};
  const { children } = ast;
  for (let i = 0; i < children.length; i++) {
    const child = children[i] as ReadNode;
    setOwn(item, child.key, shapeNode(child, row[columnAlias(i)]));
  }
  return item;
}

function shapeNode(node: ReadNode, raw: unknown): unknown {
  switch (node.kind) {
    case 'field':
      return shapeValue(node.type, raw, node);
    case 'function':
      return toNumber(raw);
    case 'constant':
      return node.value;
    case 'm2o': {
      const tuple = parseJson(raw);
      return Array.isArray(tuple) ? shapeTuple(node.children, tuple) : null;
    }
    case 'o2m': {
      const list = parseJson(raw);
      if (!Array.isArray(list)) return [];
      if (node.children === null) {
        const { primaryType } = node.relation.target;
        return list.map((key) => shapeValue(primaryType, key));
      }
      const children = node.children;
      return list.map((tuple) => (Array.isArray(tuple) ? shapeTuple(children, tuple) : null));
    }
    case 'a2o': {
      const triple = parseJson(raw);
      if (!Array.isArray(triple)) return null;
      const [collection, key, tuple] = triple as [unknown, unknown, unknown];
      if (key === null || key === undefined) return null;
      const branch = node.branches.find((b) => b.relation.target.collection === collection);
      // Collections without a scope read as the raw stored key.
      if (branch === undefined) return scalarText(key);
      return Array.isArray(tuple) ? shapeTuple(branch.children, tuple) : null;
    }
    default:
      return assertNever(node);
  }
}

function shapeTuple(children: readonly ReadNode[], tuple: readonly unknown[]): Item {
  const item: Item = {};
  for (let i = 0; i < children.length; i++) {
    const child = children[i] as ReadNode;
    setOwn(item, child.key, shapeNode(child, tuple[i]));
  }
  return item;
}

/** MySQL/MariaDB and SQLite hand JSON over as text, PostgreSQL as parsed values. */
function parseJson(raw: unknown): unknown {
  if (typeof raw !== 'string') return raw;
  return JSON.parse(raw) as unknown;
}

/**
 * Aggregate rows: group keys at the top level, `count: N` for `*`,
 * otherwise `{<fn>: {<field>: value}}`. Counts are integers, sums and averages numbers,
 * min/max in the column's type.
 */
export function shapeAggregateRows(ast: AggregateAst, rows: readonly Row[]): Item[] {
  return rows.map((row) => {
    const item: Item = {};
    let i = 0;
    for (const group of ast.groups) {
      setOwn(item, group.key, shapeValue(group.type, row[columnAlias(i++)], group));
    }
    for (const aggregate of ast.aggregates) {
      const raw = row[columnAlias(i++)];
      const value =
        aggregate.fn === 'min' || aggregate.fn === 'max' ? shapeValue(aggregate.type, raw, aggregate) : toNumber(raw);
      if (aggregate.field === null) {
        item[aggregate.fn] = value;
      } else {
        const group = (item[aggregate.fn] ??= {}) as Item;
        setOwn(group, aggregate.field, value);
      }
    }
    return item;
  });
}

/** meta: `{total_count, filter_count}` as integers. */
export function shapeCounts(ast: CountAst, row: Row | undefined): Record<string, number> {
  const meta: Record<string, number> = {};
  ast.counts.forEach((count, i) => {
    meta[count.key] = Number(row?.[columnAlias(i)] ?? 0);
  });
  return meta;
}
