import { statementsRunOn } from '../../support/statements.js';
import { expect } from 'chai';
import type { Knex } from 'knex';
import { TEST_ADMIN, type ServerContext } from '../../support/server.js';

export type Api = (path: string, init?: RequestInit) => Promise<Response>;

/**
 * `notes` (id, title, owner): a table made with plain SQL and served after the schema cache is
 * told, with rows 1 'first' (owner a), 2 'second' (owner b), 3 'third' (owner a).
 */
export async function createNotes(ctx: ServerContext): Promise<void> {
  const db = ctx.server.db;
  await db.schema.createTable('notes', (t) => {
    t.increments('id');
    t.string('title', 255);
    t.string('owner', 255);
  });
  await db('notes').insert([
    { title: 'first', owner: 'a' },
    { title: 'second', owner: 'b' },
    { title: 'third', owner: 'a' },
  ]);
  await ctx.server.schema.invalidate();
}

/** Changes a note behind the service's back, as another program would. */
export async function retitleInSql(db: Knex, id: number, title: string): Promise<void> {
  await db('notes').where('id', id).update({ title });
}

export interface Read {
  readonly status: number;
  readonly text: string;
  readonly body: { data?: unknown; errors?: unknown };
  readonly cacheControl: string | null;
}

/** GET as `token` (null: no token; the admin's by default). */
export async function read(
  api: Api,
  path: string,
  token: string | null = TEST_ADMIN.token,
  headers: Record<string, string> = {},
): Promise<Read> {
  const res = await api(path, {
    headers: { ...headers, ...(token === null ? {} : { Authorization: `Bearer ${token}` }) },
  });
  const text = await res.text();
  return {
    status: res.status,
    text,
    body: JSON.parse(text) as Read['body'],
    cacheControl: res.headers.get('cache-control'),
  };
}

/** The title of note `id` as `token` reads it. */
export async function titleOf(api: Api, id: number, token: string | null = TEST_ADMIN.token): Promise<unknown> {
  const res = await read(api, `/items/notes/${id}?fields=title`, token);
  expect(res.status, res.text).to.equal(200);
  return (res.body.data as { title: unknown }).title;
}

/** A JSON write as the admin that must succeed. */
export async function adminWrite(api: Api, method: string, path: string, body: unknown): Promise<unknown> {
  const res = await api(path, {
    method,
    headers: { Authorization: `Bearer ${TEST_ADMIN.token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  expect(res.status, text).to.be.oneOf([200, 204]);
  return text === '' ? undefined : (JSON.parse(text) as { data: unknown }).data;
}

/** Counts the statements run on `db` that name the notes table while `work` runs. */
export async function notesQueriesDuring(db: Knex, work: () => Promise<void>): Promise<number> {
  return (await statementsRunOn(db, work)).filter((sql) => /\bnotes\b/.test(sql)).length;
}
