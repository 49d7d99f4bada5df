/**
 * Times buildOverview on a PostgreSQL database of 500 collections (issue #3: under a second).
 *   npx tsx bench/overview-500.ts            (PG at 127.0.0.1:5432 as root; PG* variables override)
 * Creates a scratch database, 500 tables of 10 columns (every one with a unique key and a
 * foreign key to the previous table) plus svc_collections / svc_fields / svc_relations rows
 * for each, builds the overview RUNS times, prints the timings and drops the database.
 */
import { buildOverview } from '../catalog/overview/build.js';
import { withScratchSchema } from './scratch-500.js';

const COLLECTIONS = Number(process.env['COLLECTIONS'] ?? 500);
const RUNS = Number(process.env['RUNS'] ?? 10);

await withScratchSchema({ collections: COLLECTIONS }, async (db) => {
  const timings: number[] = [];
  let collections = 0;
  let relations = 0;
  for (let run = 0; run <= RUNS; run += 1) {
    const started = performance.now();
    const overview = await buildOverview(db, { version: run });
    const elapsed = performance.now() - started;
    if (run > 0) timings.push(elapsed); // run 0 warms the pool and the catalog caches
    collections = Object.keys(overview.collections).length;
    relations = overview.relations.length;
  }
  timings.sort((a, b) => a - b);
  const at = (q: number) => timings[Math.min(timings.length - 1, Math.floor(q * timings.length))]?.toFixed(0);
  console.log(
    `buildOverview: ${collections} collections (${COLLECTIONS} user + system), ${relations} relations, ` +
      `${RUNS} runs: min ${at(0)} ms, median ${at(0.5)} ms, max ${at(1)} ms`,
  );
});
