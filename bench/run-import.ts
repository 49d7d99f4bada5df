/**
 * Import benchmark: POST /utils/import/:collection of a generated CSV or JSON file of ROWS
 * rows (audit on: an activity row and a revision per item), streamed to the service as it is
 * generated; prints rows/s end to end and, with SERVICE_PID, the service's peak RSS and CPU time.
 *   SERVICE_URL=http://127.0.0.1:8055 TOKEN=... ROWS=100000 FORMAT=csv node --import tsx bench/run-import.ts
 * READS=1: also a read on 4 connections for 10 s idle, then during the import: its p99 both
 * ways. The read is R1 (bench/scenarios.ts) on the bench dataset, else (READ_PATH=items) a GET
 * of 10 imported items; its client runs in a worker thread, so that making the file does not
 * delay it. FLOOR_URL (bench/floor-server.ts, PostgreSQL, CSV): the same file imported by the
 * floor first (bench/import-floor.ts), and the service's speed as a ratio to it; with READS=1,
 * the reads (still through the service) during the floor's import too. Works on any
 * database the service runs on: it creates the collection `bench_import` through the schema
 * API (once) and leaves the rows it imports there. KEYS_FROM=n: row i of the file gives the key
 * n + i, as a file exported by id does, so rows whose key exists are updated (an upsert).
 */
import autocannon from 'autocannon';
import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { READ_SCENARIOS } from './scenarios.js';
import { tsWorker } from './ts-worker.js';

const SERVICE_URL = process.env['SERVICE_URL'] ?? 'http://127.0.0.1:8055';
const TOKEN = process.env['TOKEN'] ?? 'bench-static-admin-token';
const ROWS = Number(process.env['ROWS'] ?? 100_000);
const FORMAT = process.env['FORMAT'] === 'json' ? 'json' : 'csv';
const SERVICE_PID = process.env['SERVICE_PID'];
const COLLECTION = 'bench_import';
const READS = process.env['READS'] === '1';
const FLOOR_URL = process.env['FLOOR_URL'];
const KEYS_FROM = process.env['KEYS_FROM'] === undefined ? undefined : Number(process.env['KEYS_FROM']);
const READ_PATH =
  process.env['READ_PATH'] === 'items' ? `/items/${COLLECTION}?limit=10` : (READ_SCENARIOS[0]?.path ?? '');
const auth = { Authorization: `Bearer ${TOKEN}` };

async function ensureCollection(): Promise<void> {
  const found = await fetch(`${SERVICE_URL}/collections/${COLLECTION}`, { headers: auth });
  if (found.status === 200) return;
  const field = (name: string, type: string) => ({ field: name, type, meta: { interface: 'input' }, schema: {} });
  const res = await fetch(`${SERVICE_URL}/collections`, {
    method: 'POST',
    headers: { ...auth, 'Content-Type': 'application/json' },
    body: JSON.stringify({
      collection: COLLECTION,
      schema: {},
      meta: {},
      fields: [
        {
          field: 'id',
          type: 'integer',
          meta: { hidden: true },
          schema: { is_primary_key: true, has_auto_increment: true },
        },
        field('title', 'string'),
        field('status', 'string'),
        field('views', 'integer'),
        field('rating', 'float'),
        field('body', 'text'),
      ],
    }),
  });
  if (res.status !== 200) throw new Error(`creating ${COLLECTION}: ${res.status} ${await res.text()}`);
}

/** The file, generated in chunks of 1,000 rows as the upload reads it. */
function* fileChunks(): Generator<string> {
  const keyed = KEYS_FROM !== undefined;
  if (FORMAT === 'csv') yield `${keyed ? 'id,' : ''}title,status,views,rating,body\n`;
  else yield '[';
  for (let start = 0; start < ROWS; start += 1000) {
    const lines: string[] = [];
    for (let i = start; i < Math.min(ROWS, start + 1000); i++) {
      const body = `Row ${i}, with a comma and "quotes"`;
      const id = keyed ? KEYS_FROM + i : undefined;
      if (FORMAT === 'csv')
        lines.push(
          `${keyed ? `${id},` : ''}Imported ${i},draft,${i % 997},${(i % 50) / 10},"${body.replaceAll('"', '""')}"\n`,
        );
      else
        lines.push(
          (i === 0 ? '' : ',') +
            JSON.stringify({
              id,
              title: `Imported ${i}`,
              status: 'draft',
              views: i % 997,
              rating: (i % 50) / 10,
              body,
            }),
        );
    }
    yield lines.join('');
  }
  if (FORMAT === 'json') yield ']';
}

function rssMb(): number | undefined {
  if (SERVICE_PID === undefined) return undefined;
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${SERVICE_PID}/status`, 'utf8'));
  return match === null ? undefined : Math.round(Number(match[1]) / 1024);
}

/** autocannon's own aggregation of workers' results (not in its type definitions). */
/** The service's CPU time so far (user + system, s), from /proc: SQLite's own work included. */
function cpuSeconds(): number | undefined {
  if (SERVICE_PID === undefined) return undefined;
  const fields = readFileSync(`/proc/${SERVICE_PID}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  // utime and stime are fields 14 and 15 of stat, 12 and 13 after the command's name.
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

const aggregate = (
  autocannon as unknown as { aggregateResult: (results: unknown[], opts: object) => autocannon.Result }
).aggregateResult;

/** The read on 4 connections for `duration` s, or until stopped, from a worker thread (below). */
function readLoad(duration: number): { stop(): void; done: Promise<autocannon.Result> } {
  const worker = tsWorker(new URL(import.meta.url), { duration });
  const done = new Promise<autocannon.Result>((resolve, reject) => {
    // In a worker autocannon answers its histograms encoded, for the main thread to aggregate.
    worker.once('message', (encoded: autocannon.Result) => {
      resolve(aggregate([encoded], { url: SERVICE_URL, connections: 4 }));
      void worker.terminate();
    });
    worker.once('error', reject);
  });
  return { stop: () => worker.postMessage('stop'), done };
}

if (!isMainThread) {
  const { duration } = workerData as { duration: number };
  const url = `${SERVICE_URL}${READ_PATH}`;
  const instance = autocannon({ url, headers: auth, connections: 4, duration }, (error, result) => {
    if (error !== null && error !== undefined) throw error;
    parentPort?.postMessage(result);
  });
  parentPort?.once('message', () => instance.stop());
}

/** POSTs the generated file to `url` as multipart; the answer and the seconds it took. */
async function upload(url: string): Promise<{ status: number; text: string; seconds: number }> {
  const boundary = `bench${Date.now()}`;
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="rows.${FORMAT}"\r\nContent-Type: ${
    FORMAT === 'csv' ? 'text/csv' : 'application/json'
  }\r\n\r\n`;
  const body = Readable.from(
    (function* () {
      yield head;
      yield* fileChunks();
      yield `\r\n--${boundary}--\r\n`;
    })(),
  );
  const started = performance.now();
  const res = await fetch(`${url}/utils/import/${COLLECTION}`, {
    method: 'POST',
    headers: { ...auth, 'Content-Type': `multipart/form-data; boundary=${boundary}` },
    body: Readable.toWeb(body) as ReadableStream,
    duplex: 'half',
  } as RequestInit);
  const text = await res.text();
  return { status: res.status, text, seconds: (performance.now() - started) / 1000 };
}

/** `run`, with the read load (READS=1) running meanwhile: its outcome and the reads' figures. */
async function withReads<T>(run: () => Promise<T>): Promise<{ outcome: T; reads: autocannon.Result | undefined }> {
  const load = READS ? readLoad(3600) : undefined;
  const outcome = await run();
  load?.stop();
  return { outcome, reads: await load?.done };
}

const spread = (r: autocannon.Result | undefined) =>
  r === undefined ? '' : `p50 ${r.latency.p50}, p90 ${r.latency.p90}, p99 ${r.latency.p99} ms`;

async function main(): Promise<void> {
  if (KEYS_FROM !== undefined && (!Number.isSafeInteger(KEYS_FROM) || FLOOR_URL !== undefined))
    throw new Error('KEYS_FROM is an integer, and the floor imports no keys: without FLOOR_URL');
  await ensureCollection();
  const idle = READS ? await readLoad(10).done : undefined;
  // The floor first (bench/import-floor.ts, CSV only), the same file: the service's figures are ratios to it.
  const floor = FLOOR_URL !== undefined && FORMAT === 'csv' ? await withReads(() => upload(FLOOR_URL)) : undefined;
  if (floor !== undefined && floor.outcome.status >= 300)
    throw new Error(`floor: ${floor.outcome.status} ${floor.outcome.text.slice(0, 500)}`);
  let peak = rssMb() ?? 0;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb() ?? 0)), 200);
  const cpuBefore = cpuSeconds();
  const service = await withReads(() => upload(SERVICE_URL));
  const cpu = cpuBefore === undefined ? undefined : (cpuSeconds() ?? 0) - cpuBefore;
  clearInterval(sampler);
  const { status, text, seconds } = service.outcome;
  if (status >= 300) throw new Error(`import: ${status} ${text.slice(0, 500)}`);
  if (READS) {
    console.log(`reads idle: ${spread(idle)}`);
    if (floor !== undefined) console.log(`reads during the floor's import: ${spread(floor.reads)}`);
    console.log(`reads during the import: ${spread(service.reads)}`);
  }
  const rss =
    cpu === undefined
      ? ''
      : `, service peak RSS ${peak} MB, CPU ${cpu.toFixed(2)} s (${((cpu * 1e6) / ROWS).toFixed(1)} µs/row)`;
  console.log(`${FORMAT} ${ROWS} rows: ${seconds.toFixed(1)} s, ${Math.round(ROWS / seconds)} rows/s${rss}`);
  if (floor !== undefined) {
    const { seconds: floorSeconds } = floor.outcome;
    const ratio = (floorSeconds / seconds).toFixed(2);
    console.log(
      `floor: ${floorSeconds.toFixed(1)} s, ${Math.round(ROWS / floorSeconds)} rows/s; service / floor = ${ratio}`,
    );
  }
}

if (isMainThread) await main();
