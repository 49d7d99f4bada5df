import { expect } from 'chai';
import type { Knex } from 'knex';
import { expectForbidden, type JsonResponse } from '../access/permission-helpers.js';

export type Row = Record<string, unknown>;

/** Every table of `watched` (table, key to order by), dumped whole: the fixtures are small. */
export async function dumpTables(
  db: Knex,
  watched: readonly (readonly [string, string])[],
): Promise<Record<string, Row[]>> {
  const dump: Record<string, Row[]> = {};
  for (const [table, key] of watched) dump[table] = await db(table).orderBy(key).select<Row[]>('*');
  return dump;
}

/** Two refusals that must not tell their targets apart (existing but hidden vs missing). */
export function expectSameRefusal(a: JsonResponse, b: JsonResponse): void {
  expectForbidden(a);
  expect(b).to.deep.equal(a);
}
