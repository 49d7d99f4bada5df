/**
 * Instructions per request of the service and of the floor (floor-server.ts), counted by
 * valgrind's callgrind while only the measured requests run: each process starts under
 * callgrind with counting off, takes WARMUP requests (its code compiled and optimized), then
 * counts REQUESTS more, sent one at a time. CPU time on a shared machine moves by a third from
 * run to run; this count moves by well under 1 % for the floor and a few percent for the
 * service, so a change of some 5 % shows, and the service's cost as a ratio to the floor's is the same on a busy machine as on a quiet one.
 * Needs Debian's valgrind and the bench database (setup.sh); each process runs some 50x slower.
 *   node --import tsx bench/run-instructions.ts
 *   SERVICE_DIR=/tmp/before node --import tsx bench/run-instructions.ts   (another built checkout)
 * ONLY [r1,r7,r6,r6rest,w1,w2]: R1 a flat list of 100, R7 one item by id, R6 the three-level
 * read as GraphQL (run-graphql.ts's query) and over REST, W1 create an article with its activity
 * and revision, W2 update an article's title with both (the floor: its one-statement writes, its
 * prepared reads; the three levels by REST's URL for both R6 rows). SERVICE_DIR [this checkout,
 * built], WARMUP [300], REQUESTS [500], BENCH_DB [svc_bench]. Writes add rows and revisions: run setup.sh again now and then.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { benchArticle, READ_SCENARIOS, THREE_LEVELS_GRAPHQL } from './scenarios.js';
import { makefileFlags } from './service-start.js';

const ROOT = new URL('..', import.meta.url).pathname;
const SERVICE_DIR = resolve(process.env['SERVICE_DIR'] ?? ROOT);
const WARMUP = Number(process.env['WARMUP'] ?? 300);
const REQUESTS = Number(process.env['REQUESTS'] ?? 500);
const ONLY = (process.env['ONLY'] ?? 'r1,r7,r6,r6rest,w1,w2').split(',');
const BENCH_DB = process.env['BENCH_DB'] ?? 'svc_bench';
const TOKEN = 'bench-static-admin-token';
const API_FLAGS = makefileFlags('API_NODE_FLAGS');

interface Request {
  readonly method: 'GET' | 'POST' | 'PATCH';
  readonly path: string;
  readonly body?: string;
}

/** Each scenario's n-th request to the service and to the floor. */
const readPath = (name: string) => READ_SCENARIOS.find((read) => read.name === name)?.path ?? '';
const SCENARIOS: Record<string, { name: string; service: (n: number) => Request; floor: (n: number) => Request }> = {
  r1: {
    name: 'R1 flat list of 100',
    service: () => ({ method: 'GET', path: readPath('flat list of 100') }),
    floor: () => ({ method: 'GET', path: readPath('flat list of 100') }),
  },
  r7: {
    name: 'R7 one item by id',
    service: () => ({ method: 'GET', path: readPath('read by id') }),
    floor: () => ({ method: 'GET', path: readPath('read by id') }),
  },
  r6: {
    name: 'R6 three levels, GraphQL',
    service: () => ({ method: 'POST', path: '/graphql', body: JSON.stringify({ query: THREE_LEVELS_GRAPHQL }) }),
    floor: () => ({ method: 'GET', path: readPath('three-level nesting') }),
  },
  r6rest: {
    name: 'R6 three levels, REST',
    service: () => ({ method: 'GET', path: readPath('three-level nesting') }),
    floor: () => ({ method: 'GET', path: readPath('three-level nesting') }),
  },
  w1: {
    name: 'W1 create with activity and revision',
    service: (n) => ({ method: 'POST', path: '/items/articles?fields=id', body: JSON.stringify(benchArticle(n)) }),
    floor: (n) => ({ method: 'POST', path: '/items/articles?floor=one', body: JSON.stringify(benchArticle(n)) }),
  },
  w2: {
    name: 'W2 update with activity and revision',
    service: (n) => ({
      method: 'PATCH',
      path: `/items/articles/${50_001 + (n % 49_000)}?fields=id`,
      body: JSON.stringify({ title: `Updated ${n}` }),
    }),
    floor: (n) => ({
      method: 'PATCH',
      path: `/items/articles/${50_001 + (n % 49_000)}?floor=one`,
      body: JSON.stringify({ title: `Updated ${n}` }),
    }),
  },
};

interface Counted {
  readonly process: ChildProcess;
  readonly url: string;
  readonly log: string;
}

/** `args` run by node under callgrind, counting nothing until told, on `port`. */
async function startCounted(dir: string, args: string[], env: Record<string, string>, port: number): Promise<Counted> {
  const log = join(work, `callgrind-${port}.log`);
  const child = spawn(
    'valgrind',
    [
      '--tool=callgrind',
      '--instr-atstart=no',
      `--callgrind-out-file=${join(work, `out-${port}`)}`,
      `--log-file=${log}`,
    ].concat(['node', ...args]),
    { cwd: dir, env: { ...process.env, ...env, PORT: String(port) }, stdio: 'ignore' },
  );
  const url = `http://127.0.0.1:${port}`;
  for (let waited = 0; waited < 300_000; waited += 500) {
    const answered = await fetch(`${url}/server/ping`).then(
      () => true,
      () => false,
    );
    if (answered) return { process: child, url, log };
    if (child.exitCode !== null) break;
    await new Promise((done) => setTimeout(done, 500));
  }
  child.kill();
  throw new Error(`${args.join(' ')} did not start under valgrind (${log})`);
}

/** Sends `count` requests one at a time from the `first`-th; any answer of 300 or more throws. */
async function send(url: string, request: (n: number) => Request, first: number, count: number): Promise<void> {
  const headers = { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' };
  for (let n = first; n < first + count; n += 1) {
    const { method, path, body } = request(n);
    const res = await fetch(`${url}${path}`, { method, headers, ...(body === undefined ? {} : { body }) });
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
  }
}

/** The instructions per request `request` costs the counted process. */
async function instructionsPerRequest(counted: Counted, request: (n: number) => Request): Promise<number> {
  const pid = String(counted.process.pid);
  await send(counted.url, request, 0, WARMUP);
  spawnSync('callgrind_control', ['--instr=on', pid], { stdio: 'ignore' });
  await send(counted.url, request, WARMUP, REQUESTS);
  spawnSync('callgrind_control', ['--instr=off', pid], { stdio: 'ignore' });
  const exited = new Promise((done) => counted.process.once('exit', done));
  counted.process.kill('SIGTERM');
  await exited;
  const collected = /Collected : (\d+)/.exec(readFileSync(counted.log, 'utf8'))?.[1];
  if (collected === undefined) throw new Error(`no count in ${counted.log}`);
  return Number(collected) / REQUESTS;
}

const work = mkdtempSync(join(tmpdir(), 'svc-instructions-'));
const database = {
  DB_CLIENT: 'pg',
  DB_HOST: '127.0.0.1',
  DB_DATABASE: BENCH_DB,
  DB_USER: process.env['DB_USER'] ?? 'root',
};
// No HOST: a service told to listen on 127.0.0.1 counts nothing under callgrind (valgrind 3.19).
const serviceEnv = { ...database, NODE_ENV: 'production', SECRET: 'bench', LOG_LEVEL: 'warn' };
try {
  console.log(`| request | service | floor | service / floor |\n| --- | --- | --- | --- |`);
  for (const key of ONLY) {
    const scenario = SCENARIOS[key];
    if (scenario === undefined) throw new Error(`unknown scenario ${key}: ${Object.keys(SCENARIOS).join(', ')}`);
    // Both at once: each counts only its own instructions.
    const [service, floor] = await Promise.all([
      startCounted(SERVICE_DIR, [...API_FLAGS, 'dist/src/server.js'], serviceEnv, 8061),
      startCounted(ROOT, ['--import', 'tsx', 'bench/floor-server.ts'], { BENCH_DB, FLOOR_PREPARED: '1' }, 8062),
    ]);
    const [own, floors] = await Promise.all([
      instructionsPerRequest(service, scenario.service),
      instructionsPerRequest(floor, scenario.floor),
    ]);
    const thousands = (count: number) => `${Math.round(count / 1000).toLocaleString('en')}k`;
    console.log(`| ${scenario.name} | ${thousands(own)} | ${thousands(floors)} | ${(own / floors).toFixed(2)} |`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
