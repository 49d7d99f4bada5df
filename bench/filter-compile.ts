/**
 * CPU per filter build + compile (issue 21: the operator table must not slow reads): one
 * query with 24 operators and a `_some`, parsed, built and compiled for PostgreSQL N times.
 *   node --import tsx bench/filter-compile.ts [label]
 * Env: N (20000). Compare with the same script on another commit in the same run.
 */
import { databaseDialect } from '../src/db/dialects/index.js';
import { buildReadAst } from '../src/query/ast/build-read-ast.js';
import { compileRead } from '../src/query/compile/compile-read.js';
import { parseQuery, parseQueryString } from '../src/query/parse/parse-query.js';
import { testBuildContext } from '../test/unit/query/build-context.js';

const filter = {
  _and: [
    { title: { _neq: 'x', _contains: 'a', _ncontains: 'b', _icontains: 'c' } },
    { title: { _starts_with: 'd', _nstarts_with: 'e', _istarts_with: 'f', _nistarts_with: 'g' } },
    { views: { _lt: 1, _lte: '2', _gt: 3, _gte: 4, _between: [5, 6], _nbetween: '7,8' } },
    { views: { _in: [1, 2], _nin: '3,4' } },
    { body: { _null: true }, status: { _nnull: true }, title: { _empty: true }, tags: { _nempty: true } },
    { comments: { _some: { text: { _eq: 'a' } } } },
  ],
};
const qs = 'fields=id&filter=' + encodeURIComponent(JSON.stringify(filter));
const dialect = databaseDialect('pg');
const ctx = testBuildContext();
const run = (n: number): void => {
  for (let i = 0; i < n; i++) compileRead(dialect, buildReadAst(ctx, 'articles', parseQuery(parseQueryString(qs))));
};

run(3000);
const n = Number(process.env['N'] ?? 20000);
const start = process.cpuUsage();
run(n);
const used = process.cpuUsage(start);
console.log(
  `${process.argv[2] ?? 'this tree'}: ${((used.user + used.system) / n).toFixed(1)} µs CPU per build+compile`,
);
