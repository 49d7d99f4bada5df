import { expect } from 'chai';
import type { Knex } from '../../../src/db/index.js';
import { TEST_ADMIN } from '../../support/server.js';

/** What a client of a fault test saw: status 0 when no answer came within ANSWER_WITHIN_MS. */
export interface Reply {
  readonly status: number;
  readonly body: { data?: unknown; errors?: { message: string; extensions: { code?: string } }[] } | undefined;
}

/** A request with no answer within this long counts as not answered. */
const ANSWER_WITHIN_MS = 5000;

/** An admin request with a JSON body. */
export async function adminRequest(url: string, method: string, path: string, body?: unknown): Promise<Reply> {
  try {
    const res = await fetch(url + path, {
      method,
      signal: AbortSignal.timeout(ANSWER_WITHIN_MS),
      headers: {
        Authorization: `Bearer ${TEST_ADMIN.token}`,
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, body: text === '' ? undefined : (JSON.parse(text) as Reply['body']) };
  } catch (error) {
    return { status: 0, body: { errors: [{ message: `no answer: ${(error as Error).message}`, extensions: {} }] } };
  }
}

/** The `notes` collection (id, title) the fault tests write to, created through the API (journaled). */
export async function createNotes(url: string): Promise<void> {
  const created = await adminRequest(url, 'POST', '/collections', {
    collection: 'notes',
    schema: {},
    fields: [
      { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } },
      { field: 'title', type: 'string', schema: {} },
    ],
  });
  expect(created.status, JSON.stringify(created.body)).to.equal(200);
}

/**
 * The notes, after checking nothing is half-written: no title twice, every note with its
 * `create` activity and its revision, no such journal row without its note.
 */
export async function journaledNotes(db: Knex): Promise<{ id: number; title: string }[]> {
  const notes = await db('notes').select<{ id: number; title: string }[]>('id', 'title');
  expect(new Set(notes.map((n) => n.title)).size, 'no title written twice').to.equal(notes.length);
  const ids = notes.map((n) => String(n.id)).sort();
  const activity = await db('svc_activity')
    .where({ collection: 'notes', action: 'create' })
    .select<{ id: number; item: string }[]>('id', 'item');
  const revisions = await db('svc_revisions')
    .where({ collection: 'notes' })
    .select<{ activity: number; item: string }[]>('activity', 'item');
  expect(activity.map((a) => String(a.item)).sort()).to.deep.equal(ids);
  expect(revisions.map((r) => String(r.item)).sort()).to.deep.equal(ids);
  const activityIds = new Set(activity.map((a) => a.id));
  expect(revisions.filter((r) => !activityIds.has(r.activity))).to.deep.equal([]);
  return notes;
}
