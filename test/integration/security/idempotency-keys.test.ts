import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { TEST_ADMIN, describeEachDatabase, type ServerContext } from '../../support/server.js';
import { createCaller, grant, type Caller } from '../access/permission-helpers.js';
import { createCommandSchema } from '../commands/schema.js';
import { dumpTables, type Row } from './helpers.js';

/*
 * Issue 36, item 15: a client that lost a write's answer (a 503 after the commit, a dropped
 * connection) retries with the same `Idempotency-Key` and must get the first answer, not a
 * second write, through every door: item writes on the direct path and through Express,
 * system collections, GraphQL mutations. The key is the caller's own, is recorded in the
 * write's transaction (a write that rolls back leaves no key: its retry runs), and is kept
 * a day.
 */

interface Answer {
  readonly status: number;
  readonly text: string;
  readonly replayed: string | null;
}

/** Sends the request to Express rather than the direct path (fast-path.ts `EXPRESS_HEADERS`). */
const VIA_EXPRESS = { 'X-Forwarded-For': '203.0.113.7' };

const WATCHED: readonly (readonly [string, string])[] = [
  ['articles', 'id'],
  ['svc_roles', 'id'],
  ['svc_activity', 'id'],
  ['svc_revisions', 'id'],
];

async function send(
  ctx: ServerContext,
  method: string,
  path: string,
  body: unknown,
  options: { key?: string; token?: string; headers?: Readonly<Record<string, string>> } = {},
): Promise<Answer> {
  const headers: Record<string, string> = {
    ...options.headers,
    Authorization: `Bearer ${options.token ?? TEST_ADMIN.token}`,
  };
  if (options.key !== undefined) headers['Idempotency-Key'] = options.key;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await ctx.api(path, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  return { status: res.status, text: await res.text(), replayed: res.headers.get('idempotent-replayed') };
}

function codeOf(answer: Answer): unknown {
  const body = JSON.parse(answer.text) as { errors?: { extensions: { code: unknown } }[] };
  return body.errors?.[0]?.extensions.code;
}

describeEachDatabase('writes with an Idempotency-Key are done once', (context) => {
  const ctx = () => context();
  const db = () => ctx().server.db;
  const count = async (table: string, where: Row = {}) =>
    Number(((await db()(table).where(where).count<Row[]>({ n: '*' }))[0] ?? {})['n']);
  let writer: Caller;
  let other: Caller;

  before(async () => {
    await createCommandSchema(ctx());
    [writer, other] = [await createCaller(db()), await createCaller(db())];
    for (const caller of [writer, other]) {
      await grant(ctx(), caller.role, [
        { collection: 'articles', action: 'create' },
        { collection: 'articles', action: 'read' },
      ]);
    }
  });

  for (const [door, headers] of [
    ['the direct path', {}],
    ['Express', VIA_EXPRESS],
  ] as const) {
    it(`POST, PATCH and DELETE /items retried with the same key answer the first answer and write once (${door})`, async () => {
      const key = randomUUID();
      const title = `Once ${key.slice(0, 8)}`;
      const first = await send(ctx(), 'POST', '/items/articles', { title }, { key, headers });
      expect(first.status, first.text).to.equal(200);
      const again = await send(ctx(), 'POST', '/items/articles', { title }, { key, headers });
      expect(again).to.deep.equal({ ...first, replayed: 'true' });
      expect(await count('articles', { title })).to.equal(1);
      const id = String((JSON.parse(first.text) as { data: Row }).data['id']);

      const patchKey = randomUUID();
      const patched = await send(ctx(), 'PATCH', `/items/articles/${id}`, { views: 7 }, { key: patchKey, headers });
      expect(patched.status, patched.text).to.equal(200);
      expect(
        await send(ctx(), 'PATCH', `/items/articles/${id}`, { views: 7 }, { key: patchKey, headers }),
      ).to.deep.equal({ ...patched, replayed: 'true' });
      expect(await count('svc_activity', { collection: 'articles', item: id, action: 'update' })).to.equal(1);

      const deleteKey = randomUUID();
      const deleted = await send(ctx(), 'DELETE', `/items/articles/${id}`, undefined, { key: deleteKey, headers });
      expect(deleted.status).to.equal(204);
      // Without the key the second delete is a 403 (the item is gone); with it, the first answer.
      expect(
        await send(ctx(), 'DELETE', `/items/articles/${id}`, undefined, { key: deleteKey, headers }),
      ).to.deep.equal({ ...deleted, replayed: 'true' });
      expect(await count('svc_activity', { collection: 'articles', item: id, action: 'delete' })).to.equal(1);
    });
  }

  it('system collections (POST /roles) and GraphQL mutations retried with the same key write once', async () => {
    const key = randomUUID();
    const name = `Role ${key.slice(0, 8)}`;
    const first = await send(ctx(), 'POST', '/roles', { name }, { key });
    expect(first.status, first.text).to.equal(200);
    expect(await send(ctx(), 'POST', '/roles', { name }, { key })).to.deep.equal({ ...first, replayed: 'true' });
    expect(await count('svc_roles', { name })).to.equal(1);

    const title = `GraphQL ${key.slice(0, 8)}`;
    const mutation = { query: `mutation { create_articles_item(data: { title: "${title}" }) { id title } }` };
    const gqlKey = randomUUID();
    const created = await send(ctx(), 'POST', '/graphql', mutation, { key: gqlKey, token: writer.token });
    expect(created.status, created.text).to.equal(200);
    expect(created.text).to.include(title);
    expect(await send(ctx(), 'POST', '/graphql', mutation, { key: gqlKey, token: writer.token })).to.deep.equal({
      ...created,
      replayed: 'true',
    });
    expect(await count('articles', { title })).to.equal(1);
  });

  it('the same key with another request is 422 and writes nothing; another caller with the same key is independent', async () => {
    const key = randomUUID();
    const first = await send(ctx(), 'POST', '/items/articles', { title: 'First body' }, { key, token: writer.token });
    expect(first.status, first.text).to.equal(200);
    const before = await dumpTables(db(), WATCHED);
    for (const [method, path, body] of [
      ['POST', '/items/articles', { title: 'Other body' }],
      ['POST', '/items/articles?fields=id', { title: 'First body' }],
      ['PATCH', '/items/articles/1', { title: 'First body' }],
    ] as const) {
      const reused = await send(ctx(), method, path, body, { key, token: writer.token });
      expect(reused.status, reused.text).to.equal(422);
      expect(codeOf(reused)).to.equal('UNPROCESSABLE_ENTITY');
    }
    expect(await dumpTables(db(), WATCHED), 'nothing written').to.deep.equal(before);
    // Another caller's key of the same text is theirs: their write runs, and each retry gets its own answer.
    const theirs = await send(ctx(), 'POST', '/items/articles', { title: 'First body' }, { key, token: other.token });
    expect(theirs.status, theirs.text).to.equal(200);
    expect(theirs.text).to.not.equal(first.text);
    expect(await count('articles', { title: 'First body' })).to.equal(2);
    expect(
      await send(ctx(), 'POST', '/items/articles', { title: 'First body' }, { key, token: writer.token }),
    ).to.deep.equal({ ...first, replayed: 'true' });
  });

  it('a write that fails records no key: its retry runs; a malformed key is 400', async () => {
    const key = randomUUID();
    // `title` holds 20 characters: the database refuses the write, which rolls back.
    const failed = await send(ctx(), 'POST', '/items/articles', { title: 'x'.repeat(30) }, { key });
    expect(failed.status, failed.text).to.equal(400);
    expect(await count('svc_idempotency', { key })).to.equal(0);
    const retried = await send(ctx(), 'POST', '/items/articles', { title: 'Retried' }, { key });
    expect(retried.status, retried.text).to.equal(200);
    expect(retried.replayed).to.equal(null);
    expect(await count('svc_idempotency', { key })).to.equal(1);

    const before = await dumpTables(db(), WATCHED);
    for (const bad of ['x'.repeat(256), 'with space', '']) {
      const res = await send(ctx(), 'POST', '/items/articles', { title: 'Bad key' }, { key: bad });
      expect(res.status, res.text).to.equal(400);
      expect(codeOf(res)).to.equal('INVALID_PAYLOAD');
    }
    expect(await dumpTables(db(), WATCHED)).to.deep.equal(before);
  });

  it('a committed write whose answer was lost is not repeated (409); a key older than a day is forgotten', async () => {
    const key = randomUUID();
    const first = await send(ctx(), 'POST', '/items/articles', { title: 'Lost answer' }, { key });
    expect(first.status, first.text).to.equal(200);
    // As after a failure between the commit and the answer (a database gone, a dropped connection).
    await db()('svc_idempotency').where({ key }).update({ status: null, body: null, content_type: null });
    const before = await dumpTables(db(), WATCHED);
    const retry = await send(ctx(), 'POST', '/items/articles', { title: 'Lost answer' }, { key });
    expect(retry.status, retry.text).to.equal(409);
    expect(codeOf(retry)).to.equal('IDEMPOTENCY_CONFLICT');
    expect(await dumpTables(db(), WATCHED)).to.deep.equal(before);

    await db()('svc_idempotency')
      .where({ key })
      .update({ created: Date.now() - 25 * 60 * 60 * 1000 });
    const fresh = await send(ctx(), 'POST', '/items/articles', { title: 'Lost answer' }, { key });
    expect(fresh.status, fresh.text).to.equal(200);
    expect(fresh.replayed).to.equal(null);
    expect(await count('articles', { title: 'Lost answer' })).to.equal(2);
  });

  it('when storing the answer fails after the commit, a retry is 409 and the write is not repeated', async () => {
    // A trigger refuses every update of svc_idempotency: the answer of a committed write cannot be
    // stored, as when the database goes away between the commit and the answer.
    const refuse: Record<string, readonly string[]> = {
      postgres: [
        `create function test_refuse_answers() returns trigger as $$ begin raise exception 'refused'; end $$ language plpgsql`,
        'create trigger test_refuse_answers before update on svc_idempotency for each row execute function test_refuse_answers()',
      ],
      sqlite: [
        `create trigger test_refuse_answers before update on svc_idempotency begin select raise(abort, 'refused'); end`,
      ],
      mariadb: [
        `create trigger test_refuse_answers before update on svc_idempotency for each row signal sqlstate '45000' set message_text = 'refused'`,
      ],
    };
    const allow: Record<string, readonly string[]> = {
      postgres: ['drop trigger test_refuse_answers on svc_idempotency', 'drop function test_refuse_answers()'],
      sqlite: ['drop trigger test_refuse_answers'],
      mariadb: ['drop trigger test_refuse_answers'],
    };
    const { dialect } = ctx();
    for (const sql of refuse[dialect] ?? []) await db().raw(sql);
    const key = randomUUID();
    try {
      const first = await send(ctx(), 'POST', '/items/articles', { title: 'Unstored answer' }, { key });
      expect(first.status, first.text).to.equal(200);
      const before = await dumpTables(db(), WATCHED);
      const retry = await send(ctx(), 'POST', '/items/articles', { title: 'Unstored answer' }, { key });
      expect(retry.status, retry.text).to.equal(409);
      expect(codeOf(retry)).to.equal('IDEMPOTENCY_CONFLICT');
      expect(await dumpTables(db(), WATCHED)).to.deep.equal(before);
      expect(await count('articles', { title: 'Unstored answer' })).to.equal(1);
    } finally {
      for (const sql of allow[dialect] ?? []) await db().raw(sql);
    }
  });

  it('the same key sent many times at once writes once; the others replay or are told it is in progress', async () => {
    const key = randomUUID();
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => send(ctx(), 'POST', '/items/articles', { title: 'Concurrent' }, { key })),
    );
    expect(await count('articles', { title: 'Concurrent' })).to.equal(1);
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 200).length, JSON.stringify(answers)).to.be.at.least(1);
    expect(
      statuses.every((s) => s === 200 || s === 409),
      JSON.stringify(answers),
    ).to.equal(true);
    const bodies = new Set(answers.filter((a) => a.status === 200).map((a) => a.text));
    expect(bodies.size).to.equal(1);
  });
});
