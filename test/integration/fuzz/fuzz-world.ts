import { expect } from 'chai';
import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ERROR_STATUS, type ErrorCode } from '../../../src/errors.js';
import { TEST_ADMIN, type ServerContext } from '../../support/server.js';
import { rawRequest, type RawAnswer, type RawRequest } from '../../support/raw-request.js';
import { createQueryFixture } from '../query/fixture-schema.js';
import { createCaller, grant } from '../access/permission-helpers.js';

/*
 * What every fuzz property shares: the fixture and its three callers, the bounded, replayable
 * run settings, and the checks of every answer (never 5xx, the error body when >= 400, the
 * server still up, a refused write changes no row).
 */

/**
 * FUZZ_RUNS: runs per property and database (CI keeps the whole suite at about two minutes
 * across the three databases); FUZZ_SEED: replay a reported failure.
 */
export const FUZZ_SETTINGS = {
  seed: Number(process.env['FUZZ_SEED'] ?? 20261125),
  runs: Number(process.env['FUZZ_RUNS'] ?? 40),
} as const;

const storageRoot = mkdtempSync(join(tmpdir(), 'svc-fuzz-'));
after(() => rmSync(storageRoot, { recursive: true, force: true }));

/** The server environment of the fuzz suites: file contents in a temporary folder. */
export const FUZZ_ENV = { STORAGE_LOCAL_ROOT: storageRoot } as const;

export type Role = 'admin' | 'limited' | 'public';
export const ROLES: readonly Role[] = ['admin', 'limited', 'public'];

export interface FuzzWorld {
  readonly ctx: ServerContext;
  /** The id of a small text file every caller may read (public read of svc_files). */
  readonly file: string;
  /** The bearer token of each caller; the public role sends none. */
  token(role: Role): string | undefined;
}

/** The read-side fixture, a limited role with reads, writes and row rules, and public reads of comments. */
export async function createFuzzWorld(ctx: ServerContext): Promise<FuzzWorld> {
  await createQueryFixture(ctx);
  const limited = await createCaller(ctx.server.db);
  await grant(ctx, limited.role, [
    {
      collection: 'articles',
      action: 'read',
      fields: ['id', 'title', 'status', 'views', 'author', 'comments', 'published'],
      permissions: { status: { _eq: 'published' } },
    },
    { collection: 'authors', action: 'read', fields: ['id', 'name'] },
    // Every comment readable: a GraphQL create re-reads what it wrote, and an error there would
    // read as a refused write that changed rows.
    { collection: 'comments', action: 'read', fields: ['id', 'text', 'article', 'sort'] },
    {
      collection: 'comments',
      action: 'create',
      fields: ['text', 'article', 'sort'],
      validation: { text: { _nnull: true } },
    },
    { collection: 'comments', action: 'update', fields: ['text'], permissions: { sort: { _gt: 1 } } },
    { collection: 'comments', action: 'delete', permissions: { article: { _eq: 3 } } },
  ]);
  await grant(ctx, null, [
    { collection: 'comments', action: 'read', fields: ['id', 'text', 'article'] },
    { collection: 'svc_files', action: 'read' },
  ]);
  const form = new FormData();
  form.append('file', new Blob(['hello fuzz'], { type: 'text/plain' }), 'hello.txt');
  const upload = await ctx.api('/files', {
    method: 'POST',
    body: form,
    headers: { Authorization: `Bearer ${TEST_ADMIN.token}` },
  });
  const file = ((await upload.json()) as { data: { id: string } }).data.id;
  return {
    ctx,
    file,
    token: (role) => (role === 'admin' ? TEST_ADMIN.token : role === 'limited' ? limited.token : undefined),
  };
}

/** Mocha's timeout of one property: FUZZ_RUNS of up to about a second each (argon2 in auth and utils). */
const FUZZ_TIMEOUT_MS = Math.max(30_000, FUZZ_SETTINGS.runs * 1_000);

/** `it` for a property: its timeout grows with FUZZ_RUNS. */
export function fuzzIt(title: string, run: () => Promise<void>): void {
  it(title, function () {
    this.timeout(FUZZ_TIMEOUT_MS);
    return run();
  });
}

/** Runs a property with the suite's seed and run count; a failure names the seed and the shrunk case. */
export async function checkProperty<T>(
  arbitrary: fc.Arbitrary<T>,
  predicate: (value: T) => Promise<void>,
): Promise<void> {
  await fc.assert(fc.asyncProperty(arbitrary, predicate), {
    seed: FUZZ_SETTINGS.seed,
    numRuns: FUZZ_SETTINGS.runs,
    endOnFailure: false,
  });
}

/** Tables whose row counts a refused write must leave as they were. */
const WATCHED = ['articles', 'comments', 'svc_activity', 'svc_revisions', 'svc_files'] as const;

export async function rowCounts(world: FuzzWorld): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of WATCHED) {
    const [row] = await world.ctx.server.db(table).count<Record<string, unknown>[]>({ n: '*' });
    counts[table] = Number(row?.['n']);
  }
  return counts;
}

/** The request, then the checks every answer passes; returns the answer for more. */
export async function send(world: FuzzWorld, role: Role, req: Omit<RawRequest, 'token'>): Promise<RawAnswer> {
  const label = `${role} ${req.method} ${req.path} ${typeof req.body === 'string' ? req.body.slice(0, 300) : ''}`;
  const answer = await rawRequest(world.ctx.server.url, { ...req, token: world.token(role) });
  expectSoundAnswer(answer, label);
  const ping = await rawRequest(world.ctx.server.url, { method: 'GET', path: '/server/ping' });
  expect(ping.status, `${label}: /server/ping afterwards`).to.equal(200);
  return answer;
}

/** Never a 5xx; from 400 on, the error body of docs/errors.md with the status of its codes. */
export function expectSoundAnswer(answer: RawAnswer, label: string): void {
  expect(answer.status, `${label} → ${answer.text.slice(0, 500)}`).to.be.within(200, 499);
  if (answer.status >= 400) expectErrorBody(answer, label);
  // GraphQL answers resolver errors with 200: none of them may be an unexpected one.
  const errors = (answer.json as { errors?: unknown } | undefined)?.errors;
  if (answer.status < 400 && Array.isArray(errors)) {
    for (const error of errors as { extensions?: { code?: unknown } }[]) {
      expect(error.extensions?.code, `${label} → ${answer.text.slice(0, 500)}`)
        .to.be.a('string')
        .and.not.equal('INTERNAL_SERVER_ERROR');
    }
  }
}

function expectErrorBody(answer: RawAnswer, label: string): void {
  const body = answer.json as { errors?: { message?: unknown; extensions?: { code?: unknown } }[] } | undefined;
  const where = `${label} → ${answer.text.slice(0, 500)}`;
  expect(body, where).to.be.an('object');
  expect(Object.keys(body ?? {}), where).to.deep.equal(['errors']);
  expect(body?.errors, where).to.be.an('array').that.is.not.empty;
  for (const error of body?.errors ?? []) {
    expect(error.message, where).to.be.a('string');
    const code = error.extensions?.code;
    expect(code, where).to.be.oneOf(Object.keys(ERROR_STATUS));
    expect(ERROR_STATUS[code as ErrorCode], where).to.equal(answer.status);
  }
}

/** A write: when it is refused (>= 400, or GraphQL errors), no watched table changed. */
export async function sendWrite(
  world: FuzzWorld,
  role: Role,
  req: Omit<RawRequest, 'token'>,
  isRefused = (a: RawAnswer) => a.status >= 400,
): Promise<RawAnswer> {
  const before = await rowCounts(world);
  const answer = await send(world, role, req);
  if (isRefused(answer))
    expect(await rowCounts(world), `${role} ${req.method} ${req.path}: a refused write changed rows`).to.deep.equal(
      before,
    );
  return answer;
}

export const JSON_HEADERS = { 'Content-Type': 'application/json' } as const;
