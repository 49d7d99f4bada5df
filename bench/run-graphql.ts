/**
 * GraphQL read benchmark (issue #7): the "three-level nesting" scenario of scenarios.ts as a
 * GraphQL query, against the service, next to the same scenario over REST and on the floor.
 *   node --import tsx bench/run-graphql.ts
 * Env as run-reads.ts: SERVICE_URL, FLOOR_URL, TOKEN, DURATION (seconds per run), CONNECTIONS;
 * ROUNDS (3): the three endpoints are measured in turn, ROUNDS times, after a warm-up of each,
 * and the median of each is reported, so load from elsewhere on the machine hits all alike.
 * SERVICE_PID (Linux): also the service's CPU time per request, which other load barely moves.
 */
import autocannon from 'autocannon';
import { isDeepStrictEqual } from 'node:util';
import { READ_SCENARIOS } from './scenarios.js';
import { withCpuPerRequest } from './service-start.js';

const SERVICE_URL = process.env['SERVICE_URL'] ?? 'http://127.0.0.1:8055';
const FLOOR_URL = process.env['FLOOR_URL'] ?? 'http://127.0.0.1:8099';
const TOKEN = process.env['TOKEN'] ?? 'bench-static-admin-token';
const DURATION = Number(process.env['DURATION'] ?? 10);
const CONNECTIONS = Number(process.env['CONNECTIONS'] ?? 10);
const ROUNDS = Number(process.env['ROUNDS'] ?? 3);
const SERVICE_PID = process.env['SERVICE_PID'] === undefined ? undefined : Number(process.env['SERVICE_PID']);
const auth = { Authorization: `Bearer ${TOKEN}` };

const scenario = READ_SCENARIOS.find((s) => s.name === 'three-level nesting');
if (scenario === undefined) throw new Error('scenarios.ts has no "three-level nesting"');
const query = '{ articles(limit: 10) { id title category { name } comments { body author { name email } } } }';
const graphqlRequest = {
  method: 'POST' as const,
  headers: { ...auth, 'Content-Type': 'application/json' },
  body: JSON.stringify({ query }),
};

interface Figures {
  readonly rps: number;
  readonly p99: number;
  readonly errors: number;
  /** The service's CPU milliseconds per request, when SERVICE_PID is given. */
  readonly cpuMs: number | undefined;
}

async function measure(options: autocannon.Options, duration = DURATION): Promise<Figures> {
  const { result, cpuMs } = await withCpuPerRequest(SERVICE_PID, () =>
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

/** GraphQL serialises keys as ID strings; the floor's are numbers. */
function normalize(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalize);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, k === 'id' ? String(v) : normalize(v)]));
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
for (const options of Object.values(endpoints)) await measure(options, 3);
const runs: Record<keyof typeof endpoints, Figures[]> = { floor: [], rest: [], graphql: [] };
for (let round = 0; round < ROUNDS; round += 1) {
  for (const [name, options] of Object.entries(endpoints) as [keyof typeof endpoints, autocannon.Options][]) {
    runs[name].push(await measure(options));
  }
}
const [floor, rest, graphql] = [median(runs.floor), median(runs.rest), median(runs.graphql)];
const row = (name: string, m: Figures) =>
  `| ${name} | ${m.rps.toFixed(0)} | ${(m.rps / floor.rps).toFixed(2)} | ${m.p99} | ${m.cpuMs?.toFixed(2) ?? '–'} | ${m.errors} |`;
console.log(`three-level nesting, GraphQL body same as the floor's: ${same ? 'yes' : 'NO'}`);
console.log('| endpoint | req/s | of the floor | p99 ms | service CPU ms/request | errors |');
console.log('|---|---|---|---|---|---|');
console.log(row('floor (hand-written SQL)', { ...floor, cpuMs: undefined }));
console.log(row('REST GET /items/articles', rest));
console.log(row('GraphQL POST /graphql', graphql));
