import { expect } from 'chai';
import type { ServerContext } from '../../support/server.js';
import { adminApi, dataOf } from '../commands/schema.js';

type Row = Record<string, unknown>;

export interface ExportStatusRow {
  readonly id: number;
  readonly user: string | null;
  readonly collection: string;
  readonly item: string;
  readonly status: {
    status: string;
    format: string;
    rows_done: number;
    rows_total: number | null;
    attempt: number;
    file: string | null;
    error: string | null;
  };
}

/** The newest export's status, read the way its user reads it: through /activity. */
export async function latestExport(ctx: ServerContext): Promise<ExportStatusRow | undefined> {
  const rows = dataOf<Row[]>(
    await adminApi(
      ctx,
      'GET',
      '/activity?filter[action][_eq]=export&sort=-id&limit=1&fields=id,user,collection,item,comment',
    ),
  );
  const row = rows[0];
  if (row === undefined) return undefined;
  return {
    id: Number(row['id']),
    user: row['user'] as string | null,
    collection: String(row['collection']),
    item: String(row['item']),
    status: JSON.parse(String(row['comment'])) as ExportStatusRow['status'],
  };
}

/** Polls the newest export until `until` holds (or fails the test after `timeoutMs`). */
export async function waitForExport(
  ctx: ServerContext,
  until: (row: ExportStatusRow) => boolean,
  timeoutMs = 30_000,
  intervalMs = 50,
): Promise<ExportStatusRow> {
  const deadline = Date.now() + timeoutMs;
  let last: ExportStatusRow | undefined;
  while (Date.now() < deadline) {
    last = await latestExport(ctx);
    if (last !== undefined && until(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  expect.fail(`export did not reach the expected state; last: ${JSON.stringify(last)}`);
}
