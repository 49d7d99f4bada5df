/**
 * The database's share of each list read: the service's JSON statement (compileReadJson, as
 * an admin) and the floor's SQL, each run under EXPLAIN (ANALYZE, BUFFERS) RUNS times in turn;
 * prints the median execution and planning times (the service plans each read: its prepared
 * statements keep custom plans). Unlike req/s, little moved by the rest of the shared machine.
 *   node --import tsx bench/explain-reads.ts   (BENCH_DB, default svc_bench; RUNS, default 25;
 *   SCENARIO: only scenarios whose name contains it; SHOW_SQL=1 prints the service's SQL)
 */
import { buildOverview } from '../catalog/overview/build.js';
import { FULL_READ_ACCESS } from '../src/access/read-access.js';
import { databaseDialect } from '../src/db/dialects/index.js';
import { createDatabase, type Knex } from '../src/db/index.js';
import type { BuildContext } from '../src/query/ast/build-context.js';
import { buildReadAst } from '../src/query/ast/build-read-ast.js';
import { compileReadJson } from '../src/query/compile/compile-read.js';
import type { CompiledSql } from '../src/db/dialects/read.js';
import { parseQuery, parseQueryString } from '../src/query/parse/parse-query.js';
import { READ_SCENARIOS } from './scenarios.js';

const RUNS = Number(process.env['RUNS'] ?? 25);
const ONLY = process.env['SCENARIO'] ?? '';

const db = createDatabase({
  client: 'pg',
  filename: '',
  host: process.env['PGHOST'] ?? '127.0.0.1',
  port: undefined,
  database: process.env['BENCH_DB'] ?? 'svc_bench',
  user: process.env['PGUSER'] ?? 'root',
  password: undefined,
  connectionString: undefined,
  searchPath: ['public'],
  pool: { min: 1, max: 1 },
  excludeTables: [],
  healthcheckThresholdMs: 0,
  connectWaitMs: 0,
});

try {
  const overview = await buildOverview(db, { version: 1 });
  const build: BuildContext = {
    overview,
    access: FULL_READ_ACCESS,
    accountability: { user: null, role: null, admin: true },
    limits: { queryLimitDefault: 100, queryLimitMax: Infinity, maxRelationalDepth: 10 },
    now: new Date(),
  };
  for (const scenario of READ_SCENARIOS) {
    // Lists only: a read by id goes through the by-key read, not this statement alone.
    const list = /^\/items\/(\w+)\?(.*)$/.exec(scenario.path);
    if (list === null || !scenario.name.includes(ONLY)) continue;
    const [, collection = '', qs = ''] = list;
    const ast = buildReadAst(build, collection, parseQuery(parseQueryString(qs)));
    const service = compileReadJson(databaseDialect('pg'), ast);
    if (process.env['SHOW_SQL'] === '1')
      console.log(`-- ${scenario.name}\n${service.sql}\n-- ${JSON.stringify(service.values)}`);
    const floor: CompiledSql = { sql: scenario.sql, values: [] };
    const serviceTimes: Timing[] = [];
    const floorTimes: Timing[] = [];
    for (let run = 0; run <= RUNS; run += 1) {
      const s = await explain(service);
      const f = await explain(floor);
      if (run === 0) continue; // warms the caches
      serviceTimes.push(s);
      floorTimes.push(f);
    }
    console.log(`${scenario.name} (median of ${RUNS}): service ${format(serviceTimes)}; floor ${format(floorTimes)}`);
  }
} finally {
  await db.destroy();
}

interface Timing {
  readonly execution: number;
  readonly planning: number;
}

async function explain(compiled: CompiledSql): Promise<Timing> {
  const result = (await db.raw(`explain (analyze, buffers, format json) ${compiled.sql}`, [
    ...compiled.values,
  ] as Knex.RawBinding[])) as {
    rows: { 'QUERY PLAN': [{ 'Execution Time': number; 'Planning Time': number }] }[];
  };
  const plan = result.rows[0]?.['QUERY PLAN'][0];
  return { execution: plan?.['Execution Time'] ?? NaN, planning: plan?.['Planning Time'] ?? NaN };
}

function format(timings: readonly Timing[]): string {
  const ms = (values: number[]) => median(values).toFixed(3);
  return `execution ${ms(timings.map((t) => t.execution))} ms, planning ${ms(timings.map((t) => t.planning))} ms`;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] ?? NaN) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}
