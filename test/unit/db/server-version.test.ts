import { expect } from 'chai';
import { databaseDialect } from '../../../src/db/dialects/index.js';

// DB_CLIENT=mysql serves MariaDB 10.5 and later: a start on anything else stops with one line
// (src/db/connection-failure.ts, checkServerVersion), before the catalogue is migrated.
describe('the database server versions a dialect serves', () => {
  const mysql = databaseDialect('mysql').serverVersion;
  const unsupported = (version: string) => mysql?.unsupported(version, 'db.example:3306');

  it('MariaDB 10.5 and later are served, whatever the distribution adds to the version', () => {
    for (const version of ['10.5.0-MariaDB', '10.11.19-MariaDB-0+deb12u1', '11.4.2-MariaDB-log', '12.0.1-MariaDB'])
      expect(unsupported(version), version).to.equal(undefined);
  });

  it('a MariaDB before 10.5 is too old, and the line names the server and what it needs', () => {
    expect(unsupported('10.4.32-MariaDB')).to.equal(
      'MariaDB 10.4.32-MariaDB at db.example:3306 is too old: DB_CLIENT=mysql needs MariaDB 10.5 or later (INSERT ... RETURNING, JSON_ARRAYAGG with ORDER BY). Set DB_HOST / DB_PORT to such a server.',
    );
    expect(unsupported('5.5.68-MariaDB')).to.match(/^MariaDB 5\.5\.68-MariaDB at db\.example:3306 is too old/);
  });

  it('MySQL is not served, even with a higher version number', () => {
    for (const version of ['8.0.36', '8.4.0-commercial', '11.0.0'])
      expect(unsupported(version), version).to.match(
        new RegExp(
          `^MySQL ${version.replace(/\./g, '\\.')} at db\\.example:3306 is not supported: DB_CLIENT=mysql needs MariaDB 10\\.5`,
        ),
      );
  });

  it('PostgreSQL and SQLite ask nothing of the version', () => {
    expect(databaseDialect('pg').serverVersion).to.equal(undefined);
    expect(databaseDialect('sqlite3').serverVersion).to.equal(undefined);
  });
});
