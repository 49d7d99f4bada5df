/**
 * Times the GraphQL schema build for 500 collections (issue #7): the admin role's schemas
 * from the overview until graphql-js has validated them (every type thunk run), which is what
 * the first request after a schema change pays: one scope (a scope's schema is made on first
 * use), then both.
 *   npx tsx bench/graphql-schema-500.ts      (PG at 127.0.0.1:5432 as root; PG* variables override)
 * The scratch database of scratch-500.ts, with the one-to-many alias of every relation.
 */
import { assertValidSchema, parse, validate } from 'graphql';
import { buildOverview } from '../catalog/overview/build.js';
import { FULL_READ_ACCESS } from '../src/access/read-access.js';
import { buildSchemas, fullSchemaAccess } from '../src/graphql/index.js';
import { withScratchSchema } from './scratch-500.js';

const COLLECTIONS = Number(process.env['COLLECTIONS'] ?? 500);
const RUNS = Number(process.env['RUNS'] ?? 10);

await withScratchSchema({ collections: COLLECTIONS, reverse: true }, async (db) => {
  const overview = await buildOverview(db, { version: 1 });
  const document = parse('{ bench_c1(limit: 1) { id ref { title children { id } } } }');
  const first: number[] = [];
  const both: number[] = [];
  let types = 0;
  for (let run = 0; run <= RUNS; run += 1) {
    const started = performance.now();
    const schemas = buildSchemas(overview, fullSchemaAccess(FULL_READ_ACCESS));
    assertValidSchema(schemas.items);
    const errors = validate(schemas.items, document);
    const firstDone = performance.now();
    assertValidSchema(schemas.system);
    const bothDone = performance.now();
    if (errors.length > 0) throw new Error(errors.map((e) => e.message).join('\n'));
    if (run > 0) {
      // run 0 warms the JIT
      first.push(firstDone - started);
      both.push(bothDone - started);
    }
    types = Object.keys(schemas.items.getTypeMap()).length;
  }
  const summary = (timings: number[]) => {
    timings.sort((a, b) => a - b);
    const at = (q: number) => timings[Math.min(timings.length - 1, Math.floor(q * timings.length))]?.toFixed(0);
    return `min ${at(0)} ms, median ${at(0.5)} ms, max ${at(1)} ms`;
  };
  console.log(
    `GraphQL schemas: ${Object.keys(overview.collections).length} collections, ${types} types per scope, ${RUNS} runs`,
  );
  console.log(`  one scope (the first request):   ${summary(first)}`);
  console.log(`  both scopes:                     ${summary(both)}`);
});
