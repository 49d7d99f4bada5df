import { expect } from 'chai';
import type { ServerContext } from '../../support/server.js';
import { TEST_ADMIN } from '../../support/server.js';
import type { DialectName } from '../../support/services.js';

export interface ApiResult {
  readonly status: number;
  readonly body: any;
}

/** JSON requests against the test server, as the admin unless `token` says otherwise (null: none). */
export function schemaApi(ctx: () => ServerContext) {
  return async (
    method: string,
    path: string,
    body?: unknown,
    token: string | null = TEST_ADMIN.token,
  ): Promise<ApiResult> => {
    const headers: Record<string, string> = {};
    if (token !== null) headers['Authorization'] = `Bearer ${token}`;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const res = await ctx().api(path, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, body: text === '' ? null : (JSON.parse(text) as unknown) };
  };
}

/** Asserts an error response: status, code, and (optionally) a message fragment. */
export function expectError(result: ApiResult, status: number, code: string, message?: RegExp): void {
  expect(result.status, JSON.stringify(result.body)).to.equal(status);
  expect(result.body.errors[0].extensions.code).to.equal(code);
  if (message !== undefined) expect(result.body.errors[0].message).to.match(message);
}

export function expectOk(result: ApiResult, status = 200): any {
  expect(result.status, JSON.stringify(result.body)).to.equal(status);
  return result.body?.data;
}

/** Inserts one row and returns its auto-increment id (no RETURNING on MySQL). */
export async function insertRow(
  ctx: () => ServerContext,
  table: string,
  row: Record<string, unknown>,
): Promise<number> {
  const { db } = ctx().server;
  await db(table).insert(row);
  const last = await db(table).max({ id: 'id' }).first();
  return Number(last?.['id']);
}

/** An auto-incrementing integer primary key in each dialect's DDL, for tables made outside the service. */
export function serialKey(dialect: DialectName): string {
  if (dialect === 'postgres') return 'serial PRIMARY KEY';
  if (dialect === 'mariadb') return 'integer AUTO_INCREMENT PRIMARY KEY';
  return 'integer PRIMARY KEY';
}

/** A field's is_unique and is_indexed as GET /fields shows them. */
export async function keysOf(
  api: ReturnType<typeof schemaApi>,
  collection: string,
  field: string,
): Promise<{ is_unique: unknown; is_indexed: unknown }> {
  const { schema } = expectOk(await api('GET', `/fields/${collection}/${field}`));
  return { is_unique: schema.is_unique, is_indexed: schema.is_indexed };
}

/** A field of every type a column can be created with (and an alias), some with schema and meta. */
export const EVERY_TYPE_FIELDS = [
  { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } },
  {
    field: 's',
    type: 'string',
    schema: { max_length: 40, is_nullable: false, default_value: 'hello', is_unique: true },
  },
  { field: 'tx', type: 'text' },
  { field: 'i', type: 'integer', schema: { default_value: 7 } },
  { field: 'bi', type: 'bigInteger' },
  { field: 'fl', type: 'float' },
  { field: 'de', type: 'decimal', schema: { numeric_precision: 12, numeric_scale: 3 } },
  { field: 'bo', type: 'boolean', schema: { default_value: true } },
  { field: 'da', type: 'date' },
  { field: 'ti', type: 'time' },
  { field: 'dt', type: 'dateTime' },
  { field: 'ts', type: 'timestamp', schema: { default_value: 'CURRENT_TIMESTAMP' } },
  { field: 'js', type: 'json' },
  { field: 'uu', type: 'uuid' },
  { field: 'ha', type: 'hash' },
  { field: 'cs', type: 'csv', meta: { special: ['cast-csv'] } },
  { field: 'bin', type: 'binary' },
  { field: 'divider', type: 'alias', meta: { special: ['alias', 'no-data'], interface: 'presentation-divider' } },
];
