/**
 * Writes of many items in one request, audit on: PATCH by query (COUNT items, one field) and
 * DELETE by keys (COUNT keys), on the rows bench/run-import.ts left in `bench_import` (run it
 * first with ROWS >= COUNT). Prints the seconds of each and checks the audit rows per item.
 *   SERVICE_URL=http://127.0.0.1:8055 TOKEN=... COUNT=10000 node --import tsx bench/run-bulk-writes.ts
 */
const SERVICE_URL = process.env['SERVICE_URL'] ?? 'http://127.0.0.1:8055';
const TOKEN = process.env['TOKEN'] ?? 'bench-static-admin-token';
const COUNT = Number(process.env['COUNT'] ?? 10_000);
const headers = { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' };

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  const res = await fetch(`${SERVICE_URL}${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, json: text === '' ? undefined : JSON.parse(text) };
}

async function timed(what: string, run: () => Promise<{ status: number; json: unknown }>): Promise<void> {
  const started = performance.now();
  const { status, json } = await run();
  const seconds = (performance.now() - started) / 1000;
  if (status >= 300) throw new Error(`${what}: ${status} ${JSON.stringify(json).slice(0, 300)}`);
  console.log(`${what}: ${seconds.toFixed(2)} s`);
}

async function activityCount(action: string): Promise<number> {
  const { json } = await call(
    'GET',
    `/activity?filter[collection][_eq]=bench_import&filter[action][_eq]=${action}&aggregate[count]=*`,
  );
  return Number((json as { data: { count: number | string }[] }).data[0]?.count ?? 0);
}

const { json } = await call('GET', `/items/bench_import?fields=id&sort=id&limit=${2 * COUNT}`);
const ids = (json as { data: { id: number }[] }).data.map((row) => row.id);
if (ids.length < 2 * COUNT) throw new Error(`bench_import has ${ids.length} rows; import ${2 * COUNT} first`);
const updatesBefore = await activityCount('update');
const last = ids[COUNT - 1];
await timed(`PATCH by query, ${COUNT} items`, () =>
  call('PATCH', '/items/bench_import?fields=id', {
    query: { filter: { id: { _lte: last } }, limit: -1 },
    data: { status: 'published' },
  }),
);
console.log(`  update activity rows written: ${(await activityCount('update')) - updatesBefore}`);
const deletesBefore = await activityCount('delete');
await timed(`DELETE by keys, ${COUNT} items`, () => call('DELETE', '/items/bench_import', ids.slice(COUNT)));
console.log(`  delete activity rows written: ${(await activityCount('delete')) - deletesBefore}`);
