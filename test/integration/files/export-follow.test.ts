import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { access } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dialectOf } from '../../../src/db/index.js';
import { toDatabaseTimestamp } from '../../../src/db/to-database-timestamp.js';
import { describeEachDatabase, TEST_ADMIN, type ServerContext } from '../../support/server.js';
import { call, createCaller, dataOf, grant, type Caller } from '../access/permission-helpers.js';
import { createCommandSchema } from '../commands/schema.js';

type Row = Record<string, unknown>;

const dir = mkdtempSync(join(tmpdir(), 'svc-export-follow-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const ROWS = 12;
const STATUSES = ['queued', 'running', 'done', 'failed'];

interface Started {
  readonly id: string;
  readonly location: string;
}

/** POST /utils/export/articles as `token`: 204, and the job named in `Location` and `X-Export-Job`. */
async function startExport(ctx: ServerContext, token: string, format = 'csv'): Promise<Started> {
  const res = await ctx.api('/utils/export/articles', {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ format, query: { fields: ['id', 'title'], sort: ['id'] } }),
  });
  expect(res.status, await res.clone().text()).to.equal(204);
  expect(await res.text()).to.equal('');
  const id = res.headers.get('x-export-job') ?? '';
  expect(id).to.match(/^[0-9a-f-]{36}$/);
  expect(res.headers.get('location')).to.equal(`/utils/export/jobs/${id}`);
  return { id, location: res.headers.get('location') ?? '' };
}

/** Follows the job resource until it is done or failed; every answer seen, in order. */
async function follow(ctx: ServerContext, token: string, location: string): Promise<Row[]> {
  const seen: Row[] = [];
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    const res = await call(ctx, token, 'GET', location);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    const job = res.body?.['data'] as Row;
    seen.push(job);
    if (job['status'] === 'done' || job['status'] === 'failed') return seen;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  expect.fail(`the export did not end; last: ${JSON.stringify(seen.at(-1))}`);
}

async function seedArticles(ctx: ServerContext): Promise<void> {
  await createCommandSchema(ctx);
  for (let i = 1; i <= ROWS; i += 1) await ctx.server.db('articles').insert({ title: `Row ${String(i)}` });
}

describeEachDatabase(
  'exports a client can follow (Location, X-Export-Job, GET /utils/export/jobs/:id)',
  (ctx) => {
    let owner: Caller;
    let other: Caller;

    before(async () => {
      await seedArticles(ctx());
      [owner, other] = [await createCaller(ctx().server.db), await createCaller(ctx().server.db)];
      for (const caller of [owner, other]) {
        await grant(ctx(), caller.role, [
          { collection: 'articles', action: 'read' },
          { collection: 'svc_files', action: 'create' },
          { collection: 'svc_files', action: 'read' },
        ]);
      }
    });

    it('the job resource goes from queued or running to done with the row counts and a file that downloads', async () => {
      const { id, location } = await startExport(ctx(), TEST_ADMIN.token);
      const seen = await follow(ctx(), TEST_ADMIN.token, location);
      for (const job of seen) expect(STATUSES).to.include(job['status']);
      const rowsDone = seen.map((job) => Number(job['rows_done']));
      expect(rowsDone).to.deep.equal([...rowsDone].sort((a, b) => a - b));
      const done = seen.at(-1) ?? {};
      expect(done).to.deep.include({
        id,
        collection: 'articles',
        format: 'csv',
        status: 'done',
        rows_done: ROWS,
        rows_total: ROWS,
        error: null,
      });
      expect(done['file']).to.be.a('string');
      const content = await (
        await ctx().api(`/assets/${String(done['file'])}`, { headers: { Authorization: `Bearer ${TEST_ADMIN.token}` } })
      ).text();
      const lines = content.trim().split(/\r?\n/);
      expect(lines).to.have.length(ROWS + 1);
      expect(lines[0]).to.equal('"id","title"');
      expect(lines[1]).to.match(/,"Row 1"$/);
    });

    it('the user who started it reads the job; another user, the public and unknown ids are FORBIDDEN; an admin reads any', async () => {
      const { location } = await startExport(ctx(), owner.token, 'json');
      const done = (await follow(ctx(), owner.token, location)).at(-1) ?? {};
      expect(done).to.include({ status: 'done', rows_done: ROWS });
      for (const token of [other.token, undefined]) {
        const res = await call(ctx(), token, 'GET', location);
        expect([res.status, (res.body?.['errors'] as Row[])[0]?.['extensions']]).to.deep.equal([
          403,
          { code: 'FORBIDDEN' },
        ]);
      }
      expect((await call(ctx(), TEST_ADMIN.token, 'GET', location)).status).to.equal(200);
      for (const unknown of ['00000000-0000-4000-8000-000000000000', 'x'.repeat(300), '%20']) {
        expect((await call(ctx(), TEST_ADMIN.token, 'GET', `/utils/export/jobs/${unknown}`)).status).to.equal(403);
      }
      // The job id in another case names no job (MariaDB's collation would match it).
      expect(
        (
          await call(
            ctx(),
            TEST_ADMIN.token,
            'GET',
            location.toUpperCase().replace('/UTILS/EXPORT/JOBS/', '/utils/export/jobs/'),
          )
        ).status,
      ).to.equal(403);
    });
  },
  { env: { TEMP_PATH: join(dir, 'tmp'), EXPORT_BATCH_SIZE: '5', STORAGE_LOCAL_ROOT: join(dir, 'uploads') } },
);

describeEachDatabase(
  'EXPORT_RETENTION: the cleanup deletes old exports with their file, keeps recent ones',
  (ctx) => {
    before(() => seedArticles(ctx()));

    it('an export older than the retention loses its file record, its stored file and its job; a recent one stays', async () => {
      const db = ctx().server.db;
      const old = await startExport(ctx(), TEST_ADMIN.token);
      const oldFile = String((await follow(ctx(), TEST_ADMIN.token, old.location)).at(-1)?.['file']);
      const recent = await startExport(ctx(), TEST_ADMIN.token);
      const recentFile = String((await follow(ctx(), TEST_ADMIN.token, recent.location)).at(-1)?.['file']);
      const disk = async (file: string): Promise<string> =>
        join(
          dir,
          'uploads',
          String((await db('svc_files').where({ id: file }).first<Row>('filename_disk'))['filename_disk']),
        );
      const [oldPath, recentPath] = [await disk(oldFile), await disk(recentFile)];
      await access(oldPath);
      // Asked for two hours ago: past the one-hour retention.
      const twoHoursAgo = toDatabaseTimestamp(new Date(Date.now() - 2 * 3_600_000), dialectOf(db));
      await db('svc_activity').where({ action: 'export', item: old.id }).update({ timestamp: twoHoursAgo });
      const deadline = Date.now() + 60_000;
      while ((await db('svc_files').where({ id: oldFile }).first('id')) !== undefined) {
        if (Date.now() > deadline) expect.fail('the cleanup did not delete the old export');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      // The content goes after the row, in the same run: wait for it too.
      while (
        await access(oldPath).then(
          () => true,
          () => false,
        )
      ) {
        if (Date.now() > deadline) expect.fail('the cleanup left the old export content');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      // Then its status row (the job): the last step of the same run.
      while ((await call(ctx(), TEST_ADMIN.token, 'GET', old.location)).status !== 403) {
        if (Date.now() > deadline) expect.fail('the cleanup left the old export job');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(await db('svc_files').where({ id: recentFile }).first('id')).not.to.equal(undefined);
      await access(recentPath);
      const kept = await call(ctx(), TEST_ADMIN.token, 'GET', recent.location);
      expect([kept.status, (kept.body?.['data'] as Row)['file']]).to.deep.equal([200, recentFile]);
    });

    it("the project's export_retention overrides EXPORT_RETENTION from the next run; one that is no retention is refused", async () => {
      const db = ctx().server.db;
      const setRetention = (value: string | null) =>
        call(ctx(), TEST_ADMIN.token, 'PATCH', '/settings', { export_retention: value });
      expect((await setRetention('3h')).status).to.equal(200);
      try {
        const exported = async (): Promise<{ id: string; file: string }> => {
          const started = await startExport(ctx(), TEST_ADMIN.token);
          const file = String((await follow(ctx(), TEST_ADMIN.token, started.location)).at(-1)?.['file']);
          return { id: started.id, file };
        };
        const [twoHours, fourHours] = [await exported(), await exported()];
        const backdate = (id: string, hours: number) =>
          db('svc_activity')
            .where({ action: 'export', item: id })
            .update({ timestamp: toDatabaseTimestamp(new Date(Date.now() - hours * 3_600_000), dialectOf(db)) });
        // The two-hour one first: the run that finds the four-hour one has seen both.
        await backdate(twoHours.id, 2);
        await backdate(fourHours.id, 4);
        const deadline = Date.now() + 60_000;
        while ((await db('svc_files').where({ id: fourHours.file }).first('id')) !== undefined) {
          if (Date.now() > deadline) expect.fail('the cleanup did not delete the export past the 3h setting');
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        // Past EXPORT_RETENTION (1h), within the setting (3h): kept.
        expect(await db('svc_files').where({ id: twoHours.file }).first('id')).not.to.equal(undefined);
        const kept = await call(ctx(), TEST_ADMIN.token, 'GET', `/utils/export/jobs/${twoHours.id}`);
        expect([kept.status, (kept.body?.['data'] as Row)['file']]).to.deep.equal([200, twoHours.file]);

        const refused = await setRetention('a week');
        expect(refused.status).to.equal(400);
        const [error] = (refused.body?.['errors'] ?? []) as { extensions: Row }[];
        expect(error?.extensions).to.deep.include({ code: 'FAILED_VALIDATION', field: 'export_retention' });
        const stored = dataOf<Row>(await call(ctx(), TEST_ADMIN.token, 'GET', '/settings?fields=export_retention'));
        expect(stored['export_retention']).to.equal('3h');
      } finally {
        expect((await setRetention(null)).status).to.equal(200);
      }
    });
  },
  {
    env: {
      TEMP_PATH: join(dir, 'tmp-retention'),
      STORAGE_LOCAL_ROOT: join(dir, 'uploads'),
      EXPORT_RETENTION: '1h',
      RETENTION_INTERVAL: '100ms',
    },
  },
);
