import { expect } from 'chai';
import { request } from 'node:http';
import { describeEachDatabase, TEST_ADMIN } from '../../support/server.js';
import { createCommandSchema } from '../commands/schema.js';

/*
 * A client that goes away in the middle of an import's upload: the import fails where it
 * stands and its transaction is rolled back at once (http/multipart.ts), rather than waiting
 * for the rest of a body that never comes while holding its locks and connection.
 */
describeEachDatabase('an import whose client goes away', (ctx) => {
  const db = () => ctx().server.db;

  before(() => createCommandSchema(ctx()));

  let lastSeen = '';

  /** Transactions of this database left open (PostgreSQL, MariaDB); SQLite: 0 once its one writer is free. */
  async function openTransactions(): Promise<number> {
    const dialect = ctx().dialect;
    if (dialect === 'postgres') {
      const result = await db().raw<{ rows: { n: string }[] }>(
        "select count(*) as n from pg_stat_activity where datname = current_database() and state like 'idle in transaction%'",
      );
      return Number(result.rows[0]?.n);
    }
    if (dialect === 'mariadb') {
      const [rows] = await db().raw<[Record<string, unknown>[]]>(
        'select t.trx_state, t.trx_started, t.trx_query, t.trx_operation_state, p.command, p.state, p.info ' +
          'from information_schema.innodb_trx t ' +
          'join information_schema.processlist p on p.id = t.trx_mysql_thread_id ' +
          'where p.db = database() and t.trx_mysql_thread_id <> connection_id()',
      );
      // What is open, for the failure's message.
      lastSeen = JSON.stringify(rows);
      return rows?.length ?? 0;
    }
    // SQLite's one connection is the import's until its transaction ends.
    await db()('articles').count({ n: '*' });
    return 0;
  }

  /** Sends the head of an import and goes away after `leaveAfterMs`; then nothing may stay written or open. */
  async function leaveImport(leaveAfterMs: number): Promise<void> {
    const before = Number((await db()('articles').count({ n: '*' }))[0]?.['n']);
    const boundary = 'abort-boundary';
    const head =
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="rows.csv"\r\n` +
      'Content-Type: text/csv\r\n\r\ntitle,views\n';
    const rows = Array.from({ length: 5_000 }, (_, i) => `left ${i},${i}\n`).join('');
    const url = new URL('/utils/import/articles', ctx().server.url);
    const req = request(url, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${TEST_ADMIN.token}`,
        'Content-Type': `multipart/form-data; boundary=${boundary}`,
        'Content-Length': String(10 * 1024 * 1024),
      },
    });
    req.on('error', () => undefined);
    await new Promise<void>((resolve) => req.write(head + rows, () => resolve()));
    await new Promise((resolve) => setTimeout(resolve, leaveAfterMs));
    req.destroy();
    // Not waiting for the declared 10 MB: the rollback starts at once. Its own time is the
    // database's (some seconds for MariaDB's undo on a busy machine), so the wait is generous.
    let open = -1;
    for (const end = Date.now() + 15_000; open !== 0 && Date.now() < end;) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      open = await openTransactions();
    }
    expect(open, `transactions still open 15 s after the client went: ${lastSeen}`).to.equal(0);
    expect(Number((await db()('articles').count({ n: '*' }))[0]?.['n'])).to.equal(before);
  }

  it('rolls back at once: nothing written, no transaction left open', async () => {
    // The first batches are written inside the import's transaction; then the client goes.
    await leaveImport(500);
  });

  it('a client gone before the import reads its body: nothing written, no transaction left open', async () => {
    // Gone while the request is still being authenticated (a busy server): its close came first.
    await leaveImport(0);
  });
});
