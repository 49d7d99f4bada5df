import { expect } from 'chai';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeEachDatabase, TEST_ADMIN, type ServerContext } from '../../support/server.js';
import { postgresTarget, TEST_REDIS_URL } from '../../support/services.js';
import { call, createCaller, grant, type Caller, type JsonResponse } from '../access/permission-helpers.js';
import { createCommandSchema } from '../commands/schema.js';
import { nodeArgsOf, WORKER_ENTRY } from '../../support/service-process.js';

type Row = Record<string, unknown>;

const dir = mkdtempSync(join(tmpdir(), 'svc-export-retry-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const ROWS = 6;
// One attempt: a failing export is `failed` at once, for its retry.
const env = { TEMP_PATH: join(dir, 'tmp'), STORAGE_LOCAL_ROOT: join(dir, 'uploads'), JOBS_ATTEMPTS: '1' };

/** Starts an export as `token` whose file goes to `folder`: checked and queued (204), its job id. */
async function startExport(ctx: ServerContext, token: string, folder: string): Promise<string> {
  const res = await call(ctx, token, 'POST', '/utils/export/articles', {
    format: 'csv',
    query: { fields: ['id', 'title'], sort: ['id'] },
    file: { folder },
  });
  expect(res.status, JSON.stringify(res.body)).to.equal(204);
  const id = (await ctx.server.db('svc_activity').where({ action: 'export' }).orderBy('id', 'desc').first('item')) as
    { item: string } | undefined;
  return String(id?.item);
}

/** The job resource once `until` holds (fails the test after a generous deadline). */
async function waitForJob(ctx: ServerContext, id: string, until: (job: Row) => boolean): Promise<Row> {
  const deadline = Date.now() + 60_000;
  let job: Row = {};
  while (Date.now() < deadline) {
    const res = await call(ctx, TEST_ADMIN.token, 'GET', `/utils/export/jobs/${id}`);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    job = res.body?.['data'] as Row;
    if (until(job)) return job;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  expect.fail(`the export did not reach the expected state; last: ${JSON.stringify(job)}`);
}

const retry = (ctx: ServerContext, token: string | undefined, id: string): Promise<JsonResponse> =>
  call(ctx, token, 'POST', `/utils/export/jobs/${id}/retry`);

const codeOf = (res: JsonResponse): unknown =>
  ((res.body?.['errors'] as Row[] | undefined)?.[0]?.['extensions'] as Row | undefined)?.['code'];

/** The retry's behaviour, whichever queue runs the exports. */
function describeRetry(ctx: () => ServerContext): void {
  let owner: Caller;

  before(async () => {
    await createCommandSchema(ctx());
    for (let i = 1; i <= ROWS; i += 1)
      await ctx()
        .server.db('articles')
        .insert({ title: `Row ${String(i)}` });
    owner = await createCaller(ctx().server.db);
    await grant(ctx(), owner.role, [
      { collection: 'articles', action: 'read' },
      { collection: 'svc_files', action: 'create' },
      { collection: 'svc_files', action: 'read' },
    ]);
  });

  it('a failed export, retried by an administrator once its cause is gone, runs again under its id for its user and is done', async () => {
    // Passes the checks, fails when its file row is written: the folder does not exist yet.
    const folder = '00000000-0000-4000-8000-0000000000a1';
    const id = await startExport(ctx(), owner.token, folder);
    const failed = await waitForJob(ctx(), id, (job) => job['status'] === 'failed');
    expect(failed['error']).to.match(/foreign key.*"folder"/i);

    // Its user, the public and unknown jobs: FORBIDDEN (an administrator's endpoint).
    for (const res of [
      await retry(ctx(), owner.token, id),
      await retry(ctx(), undefined, id),
      await retry(ctx(), TEST_ADMIN.token, '00000000-0000-4000-8000-000000000000'),
    ]) {
      expect([res.status, codeOf(res)]).to.deep.equal([403, 'FORBIDDEN']);
    }

    await ctx().server.db('svc_folders').insert({ id: folder, name: 'Exports' });
    const retried = await retry(ctx(), TEST_ADMIN.token, id);
    expect(retried.status, JSON.stringify(retried.body)).to.equal(200);
    const answered = retried.body?.['data'] as Row;
    expect(answered).to.include({ id, collection: 'articles', format: 'csv', error: null });
    expect(['queued', 'running', 'done']).to.include(answered['status']);

    const done = await waitForJob(ctx(), id, (job) => job['status'] === 'done' || job['status'] === 'failed');
    expect(done).to.include({ status: 'done', rows_done: ROWS, rows_total: ROWS, error: null });
    // The file is its user's, in the folder the request named, with every row.
    const file = await ctx()
      .server.db('svc_files')
      .where({ id: String(done['file']) })
      .first('uploaded_by', 'folder');
    expect(file).to.deep.equal({ uploaded_by: owner.user, folder });
    const content = await (
      await ctx().api(`/assets/${String(done['file'])}`, { headers: { Authorization: `Bearer ${owner.token}` } })
    ).text();
    expect(content.trim().split(/\r?\n/)).to.have.length(ROWS + 1);

    // Only a failed export is retried.
    const again = await retry(ctx(), TEST_ADMIN.token, id);
    expect([again.status, codeOf(again)]).to.deep.equal([400, 'INVALID_PAYLOAD']);
  });

  it('two retries at once queue the export once; one still failing is failed again with its error', async () => {
    const id = await startExport(ctx(), owner.token, '00000000-0000-4000-8000-0000000000b2');
    await waitForJob(ctx(), id, (job) => job['status'] === 'failed');
    const answers = await Promise.all([retry(ctx(), TEST_ADMIN.token, id), retry(ctx(), TEST_ADMIN.token, id)]);
    expect(answers.map((res) => res.status).sort()).to.deep.equal([200, 400]);
    expect(answers.map(codeOf)).to.include('INVALID_PAYLOAD');
    const failed = await waitForJob(ctx(), id, (job) => job['status'] === 'failed');
    expect(failed).to.include({ file: null, attempt: 1 });
    expect(failed['error']).to.match(/foreign key.*"folder"/i);
  });

  it("the retry runs for the export's user as they are now: one no longer active is refused", async () => {
    const leaving = await createCaller(ctx().server.db);
    await grant(ctx(), leaving.role, [
      { collection: 'articles', action: 'read' },
      { collection: 'svc_files', action: 'create' },
    ]);
    const id = await startExport(ctx(), leaving.token, '00000000-0000-4000-8000-0000000000c3');
    await waitForJob(ctx(), id, (job) => job['status'] === 'failed');
    await ctx().server.db('svc_users').where({ id: leaving.user }).update({ status: 'suspended' });
    const res = await retry(ctx(), TEST_ADMIN.token, id);
    expect([res.status, codeOf(res)]).to.deep.equal([400, 'INVALID_PAYLOAD']);
    expect(await waitForJob(ctx(), id, () => true)).to.include({ status: 'failed' });
  });
}

describeEachDatabase('POST /utils/export/jobs/:id/retry, in-process without Redis', describeRetry, { env });

describeEachDatabase(
  'POST /utils/export/jobs/:id/retry through bull and a worker process',
  (ctx) => {
    let worker: ChildProcessWithoutNullStreams | undefined;
    let output = '';

    before(async () => {
      worker = spawn(process.execPath, nodeArgsOf(WORKER_ENTRY), {
        env: {
          PATH: process.env['PATH'] ?? '',
          ...ctx().database.env,
          ...ctx().env,
          LOG_LEVEL: 'info',
          LOG_STYLE: 'raw',
        },
      });
      worker.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      worker.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const deadline = Date.now() + 60_000;
      while (!output.includes('"msg":"worker ready"')) {
        if (Date.now() > deadline || worker.exitCode !== null) expect.fail(`no "worker ready" line:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    });

    after(async () => {
      if (worker === undefined || worker.exitCode !== null) return;
      const exited = new Promise((resolve) => worker?.once('exit', resolve));
      worker.kill('SIGTERM');
      await exited;
    });

    describeRetry(ctx);
  },
  { targets: [postgresTarget], env: { ...env, REDIS: TEST_REDIS_URL }, timeoutMs: 120_000 },
);
