import { expect } from 'chai';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CompiledSql } from '../../../src/db/dialects/read.js';

const SNAPSHOTS = join(dirname(fileURLToPath(import.meta.url)), '__snapshots__');
const UPDATE = process.env['UPDATE_SNAPSHOTS'] === '1';

/**
 * Compares compiled SQL and values with `__snapshots__/<name>.sql`; UPDATE_SNAPSHOTS=1
 * rewrites the file (review the diff like code). A missing snapshot fails.
 */
export function expectSqlSnapshot(name: string, compiled: CompiledSql): void {
  const file = join(SNAPSHOTS, `${name}.sql`);
  const actual = `${formatSql(compiled.sql)}\n-- values: ${JSON.stringify(compiled.values)}\n`;
  if (UPDATE) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, actual);
    return;
  }
  expect(existsSync(file), `snapshot ${name}.sql exists (UPDATE_SNAPSHOTS=1 writes it)`).to.equal(true);
  expect(actual).to.equal(readFileSync(file, 'utf8'));
}

const BREAKS = [' from ', ' where ', ' left join lateral ', ' order by ', ' group by ', ' limit ', ' offset '];

/** One clause per line, indented by parenthesis depth: readable diffs, same SQL. */
export function formatSql(sql: string): string {
  let out = '';
  let depth = 0;
  let quote: string | null = null;
  for (let i = 0; i < sql.length; i++) {
    const c = sql.charAt(i);
    if (quote !== null) {
      out += c;
      if (c === quote) quote = null;
      continue;
    }
    if (c === "'" || c === '"' || c === '`') {
      quote = c;
      out += c;
      continue;
    }
    if (c === '(') {
      depth++;
      out += c;
      if (sql.startsWith('select ', i + 1)) out += `\n${'  '.repeat(depth)}`;
      continue;
    }
    if (c === ')') depth--;
    const clause = BREAKS.find((b) => sql.startsWith(b, i));
    if (clause !== undefined) {
      out += `\n${'  '.repeat(depth)}${clause.slice(1)}`;
      i += clause.length - 1;
      continue;
    }
    out += c;
  }
  return out;
}
