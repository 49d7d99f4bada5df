import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DB_CLIENTS } from '../../../src/db-client.js';
import { databaseDialect, dialectOfVendor } from '../../../src/db/dialects/index.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * Where a database's name may be compared: where the client is chosen (config reads DB_CLIENT
 * and sits below db/; db/index.ts opens the connection) and the dialects themselves.
 */
const ALLOWED = [
  /^src\/config\//,
  /^src\/db\/index\.ts$/,
  /^src\/db\/dialects\//,
  /^src\/query\/compile\/(pg|mysql|sqlite)\//,
  // Released migrations import no live code: they must not change when it does.
  /^catalog\/migrations\//,
];

/** `=== 'pg'`, `!== 'mysql2'`, `case 'sqlite3':`: a branch on a database's name. */
const NAME_BRANCH = /(?:[!=]==\s*|case\s+)'(?:pg|postgres|postgresql|mysql|mysql2|sqlite|sqlite3)'/;

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

describe('dialect checks stay behind the dialect interfaces (db/dialects, query/compile)', () => {
  it('no file outside the dialects and where the client is chosen branches on a database name', () => {
    const branching = ['src', 'catalog', 'workers']
      .flatMap(sources)
      .map((path) => relative(ROOT, join(ROOT, path)))
      .filter((path) => !ALLOWED.some((allowed) => allowed.test(path)))
      .flatMap((path) =>
        readFileSync(join(ROOT, path), 'utf8')
          .split('\n')
          .flatMap((line, i) => (NAME_BRANCH.test(line) ? [`${path}:${i + 1}: ${line.trim()}`] : [])),
      );
    expect(branching).to.deep.equal([]);
  });

  it('has one database dialect per client, and each vendor leads back to it', () => {
    for (const client of DB_CLIENTS) {
      const dialect = databaseDialect(client);
      expect(dialect.client).to.equal(client);
      expect(dialectOfVendor(dialect.vendor)).to.equal(dialect);
    }
    expect(dialectOfVendor('oracle')).to.equal(undefined);
  });
});
