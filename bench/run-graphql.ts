/**
 * GraphQL read benchmark (issue #7): the "three-level nesting" scenario of scenarios.ts as a
 * GraphQL query, against the service, next to the same scenario over REST and on the floor.
 *   node --import tsx bench/run-graphql.ts
 * Env as run-reads.ts: SERVICE_URL, FLOOR_URL, TOKEN, DURATION (seconds per run), CONNECTIONS;
 * ROUNDS (3): the three endpoints are measured in turn, ROUNDS times, after a warm-up of each,
 * and the median of each is reported, so load from elsewhere on the machine hits all alike.
 * SERVICE_PID, FLOOR_PID (Linux): also each one's CPU time per request, which other load barely
 * moves, and the ratios of the service's to the floor's and of GraphQL's to REST's.
 * TYPENAMES=1: the query as Apollo Client sends it, `__typename` in every selection set (the
 * answer then differs from REST's and the floor's by those keys alone, left out to compare).
 */
import autocannon from 'autocannon';
import { isDeepStrictEqual } from 'node:util';
import { READ_SCENARIOS, THREE_LEVELS_GRAPHQL } from './scenarios.js';
import { withCpuPerRequest } from './service-start.js';

const SERVICE_URL = process.env['SERVICE_URL'] ?? 'http://127.0.0.1:8055';
const FLOOR_URL = process.env['FLOOR_URL'] ?? 'http://127.0.0.1:8099';
const TOKEN = process.env['TOKEN'] ?? 'bench-static-admin-token';
const DURATION = Number(process.env['DURATION'] ?? 10);
const CONNECTIONS = Number(process.env['CONNECTIONS'] ?? 10);
const ROUNDS = Number(process.env['ROUNDS'] ?? 3);
const pidOf = (name: string) => (process.env[name] === undefined ? undefined : Number(process.env[name]));
const SERVICE_PID = pidOf('SERVICE_PID');
const FLOOR_PID = pidOf('FLOOR_PID');
const auth = { Authorization: `Bearer ${TOKEN}` };

const scenario = READ_SCENARIOS.find((s) => s.name === 'three-level nesting');
if (scenario === undefined) throw new Error('scenarios.ts has no "three-level nesting"');
const TYPENAMES = process.env['TYPENAMES'] === '1';
const query = TYPENAMES
  ? '{ articles(limit: 10) { __typename id title category { __typename name } comments { __typename body author { __typename name email } } } }'
  : THREE_LEVELS_GRAPHQL;
const graphqlRequest = {
  method: 'POST' as const,
  headers: { ...auth, 'Content-Type': 'application/json' },
  body: JSON.stringify({ query }),
};

interface Figures {
  readonly rps: number;
  readonly p99: number;
  readonly errors: number;
  /** The server's CPU milliseconds per request, when its pid (SERVICE_PID, FLOOR_PID) is given. */
  readonly cpuMs: number | undefined;
}

async function measure(options: autocannon.Options, duration = DURATION, pid = SERVICE_PID): Promise<Figures> {
  const { result, cpuMs } = await withCpuPerRequest(pid, () =>
    autocannon({ duration, connections: CONNECTIONS, ...options }),
  );
  return { rps: result.requests.average, p99: result.latency.p99, errors: result.errors + result.non2xx, cpuMs };
}

function median(runs: readonly Figures[]): Figures {
  const sorted = [...runs].sort((a, b) => a.rps - b.rps);
  const middle = sorted[Math.floor(sorted.length / 2)];
  if (middle === undefined) throw new Error('no runs');
  return { ...middle, errors: runs.reduce((sum, r) => sum + r.errors, 0) };
}

/** GraphQL serialises keys as ID strings; the floor's are numbers; the floor has no `__typename`. */
function normalize(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalize);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([k]) => k !== '__typename')
        .map(([k, v]) => [k, k === 'id' ? String(v) : normalize(v)]),
    );
  }
  return value;
}

const floorBody = (await fetch(FLOOR_URL + scenario.path).then((r) => r.json())) as { data: unknown };
const graphqlBody = (await fetch(`${SERVICE_URL}/graphql`, graphqlRequest).then((r) => r.json())) as {
  data: { articles: unknown };
};
const same = isDeepStrictEqual(normalize(graphqlBody.data.articles), normalize(floorBody.data));

const endpoints: Record<'floor' | 'rest' | 'graphql', autocannon.Options> = {
  floor: { url: FLOOR_URL + scenario.path },
  rest: { url: SERVICE_URL + scenario.path, headers: auth },
  graphql: { url: `${SERVICE_URL}/graphql`, ...graphqlRequest },
};
const pids: Record<keyof typeof endpoints, number | undefined> = {
  floor: FLOOR_PID,
  rest: SERVICE_PID,
  graphql: SERVICE_PID,
};
for (const options of Object.values(endpoints)) await measure(options, 3);
const runs: Record<keyof typeof endpoints, Figures[]> = { floor: [], rest: [], graphql: [] };
for (let round = 0; round < ROUNDS; round += 1) {
  for (const [name, options] of Object.entries(endpoints) as [keyof typeof endpoints, autocannon.Options][]) {
    runs[name].push(await measure(options, DURATION, pids[name]));
  }
}
const [floor, rest, graphql] = [median(runs.floor), median(runs.rest), median(runs.graphql)];
const ratio = (cpuMs: number | undefined, of: number | undefined) =>
  cpuMs === undefined || of === undefined ? '–' : (cpuMs / of).toFixed(2);
const row = (name: string, m: Figures) =>
  `| ${name} | ${m.rps.toFixed(0)} | ${(m.rps / floor.rps).toFixed(2)} | ${m.p99} | ${m.cpuMs?.toFixed(3) ?? '–'} | ${ratio(m.cpuMs, floor.cpuMs)} | ${ratio(m.cpuMs, rest.cpuMs)} | ${m.errors} |`;
console.log(`three-level nesting, GraphQL body same as the floor's: ${same ? 'yes' : 'NO'}`);
console.log(
  "| endpoint | req/s | of the floor | p99 ms | CPU ms/request | CPU of the floor's | CPU of REST's | errors |",
);
console.log('|---|---|---|---|---|---|---|---|');
console.log(row('floor (hand-written SQL)', floor));
console.log(row('REST GET /items/articles', rest));
console.log(row('GraphQL POST /graphql', graphql));
