import { expect } from 'chai';
import { request } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '../../src/server.js';
import { createLogger } from '../../src/logger/index.js';
import { sqliteTarget } from '../support/services.js';
import { testConfig } from '../support/server.js';
import {
  PROCESS_TEST_TIMEOUT_MS,
  runUntilExit,
  SERVER_ENTRY,
  startServiceProcess,
} from '../support/service-process.js';

describe('the service process', function () {
  this.timeout(PROCESS_TEST_TIMEOUT_MS);
  const dir = mkdtempSync(join(tmpdir(), 'svc-process-'));
  const env = { DB_FILENAME: join(dir, 'database.sqlite'), SECRET: 'process-test' };
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('prints generated admin credentials on the first start only, and stops cleanly on SIGTERM', async () => {
    const first = await startServiceProcess(SERVER_ENTRY, env);
    const res = await fetch(`${first.url}/server/ping`);
    expect(await res.text()).to.equal('pong');
    expect(await first.stop('SIGTERM')).to.equal(0);
    expect(first.output()).to.match(/email: +admin@example\.com/);
    const password = /password: +([A-Za-z0-9_-]{16})/.exec(first.output())?.[1];
    expect(password, 'the generated password is printed').to.be.a('string');

    const second = await startServiceProcess(SERVER_ENTRY, env);
    expect(await second.stop('SIGTERM')).to.equal(0);
    expect(second.output()).not.to.contain('administrator account was created');
    expect(second.output()).not.to.contain(password);
  });

  it('refuses to start with an invalid variable, naming it', async () => {
    const { code, stderr } = await runUntilExit({ PORT: 'eighty', DB_FILENAME: join(dir, 'x.sqlite') });
    expect(code).to.equal(1);
    expect(stderr).to.contain('PORT').and.contain('must be an integer');
  });
});

describe('graceful shutdown', () => {
  it('lets an in-flight request finish, then refuses new connections', async () => {
    const database = await sqliteTarget.create();
    const server = await startServer(testConfig(database), {
      logger: createLogger({ logLevel: 'silent', logStyle: 'raw' }),
    });
    try {
      // A request whose body is still arriving when shutdown starts.
      const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request(`${server.url}/no-such-route`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'Content-Length': '7' },
        });
        req.on('response', (res) => {
          let body = '';
          res.on('data', (c: Buffer) => (body += c.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        });
        req.on('error', reject);
        req.write('{"a":');
        setTimeout(() => req.end('1}'), 300);
      });
      await new Promise((resolve) => setTimeout(resolve, 100));
      const closed = server.close();
      const answered = await response;
      expect(answered.status).to.equal(404);
      expect(JSON.parse(answered.body).errors[0].extensions.code).to.equal('ROUTE_NOT_FOUND');
      await closed;
      let refused = false;
      await fetch(`${server.url}/server/ping`).catch(() => (refused = true));
      expect(refused).to.equal(true);
    } finally {
      await server.close();
      await database.drop();
    }
  });
});
