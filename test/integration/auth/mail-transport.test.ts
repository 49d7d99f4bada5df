import { expect } from 'chai';
import { startServer } from '../../../src/server.js';
import { capturingLogger } from '../../support/capturing-logger.js';
import { testConfig, TEST_ADMIN, type ServerContext } from '../../support/server.js';
import { sqliteTarget } from '../../support/services.js';
import { asAdmin } from '../access/permission-helpers.js';
import { createRole, postJson } from './helpers.js';

type LogLine = Record<string, unknown> & { msg: string; level: number };

async function eventually<T>(find: () => T | undefined, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = find();
    if (found !== undefined) return found;
    if (Date.now() > deadline) expect.fail('not logged in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const SENDMAIL = '/nonexistent/sendmail';

// The sendmail transport chosen (EMAIL_TRANSPORT) on a machine without sendmail: the service
// still serves, says so once, reports it in /server/health, and the mail routes answer as if
// mail left.
describe('no usable mail transport', () => {
  let ctx: ServerContext | undefined;
  const lines: LogLine[] = [];
  const logger = capturingLogger(lines as Record<string, unknown>[]);
  const context = () => ctx ?? expect.fail('not started');

  before(async () => {
    const database = await sqliteTarget.create();
    const env = {
      EMAIL_TRANSPORT: 'sendmail',
      EMAIL_VERIFY_SETUP: 'true',
      EMAIL_SENDMAIL_PATH: SENDMAIL,
      LOGIN_STALL_TIME: '0',
    };
    const server = await startServer(testConfig(database, env), { logger });
    ctx = { dialect: 'sqlite', database, server, env, api: (path, init) => fetch(server.url + path, init) };
  });
  after(async () => {
    await ctx?.server.close();
    await ctx?.database.drop();
  });

  const mailLines = () => lines.filter((line) => /e-mail/.test(line.msg));

  it('logs one warning line at start naming the transport and what to set, without a stack', async () => {
    const warning = await eventually(() => mailLines()[0]);
    expect(mailLines()).to.have.length(1);
    expect(warning.level).to.equal(40);
    expect(warning.msg).to.equal(
      `e-mail cannot be sent: the sendmail transport is not usable (${SENDMAIL} is not an executable program (EMAIL_SENDMAIL_PATH)); invites, password resets and registration mails are not delivered. Set EMAIL_TRANSPORT=smtp with EMAIL_SMTP_HOST, or EMAIL_SENDMAIL_PATH`,
    );
    expect(warning).not.to.have.property('err');
    expect(warning.msg).not.to.contain('\n');
  });

  it('/server/health reports the transport as a warning check; the service stays up (200)', async () => {
    const admin = await context().api('/server/health', { headers: { Authorization: `Bearer ${TEST_ADMIN.token}` } });
    expect(admin.status).to.equal(200);
    const body = (await admin.json()) as { status: string; checks: Record<string, unknown[]> };
    expect(body.status).to.equal('warn');
    expect(body.checks['email:connection']).to.deep.equal([
      {
        componentType: 'email',
        status: 'warn',
        output: `${SENDMAIL} is not an executable program (EMAIL_SENDMAIL_PATH)`,
      },
    ]);
    const anonymous = await context().api('/server/health');
    expect([anonymous.status, await anonymous.json()]).to.deep.equal([200, { status: 'warn' }]);
  });

  it('a password reset answers 204 for a known and an unknown address alike; the log names the failed delivery', async () => {
    const known = await postJson(context().api, '/auth/password/request', { email: TEST_ADMIN.email });
    const unknown = await postJson(context().api, '/auth/password/request', { email: 'nobody@example.com' });
    expect([known.status, await known.text()]).to.deep.equal([204, '']);
    expect([unknown.status, await unknown.text()]).to.deep.equal([204, '']);
    const failed = await eventually(() => lines.find((line) => line.msg.startsWith('e-mail "Password Reset Request"')));
    expect(failed.level).to.equal(50);
    expect(failed.msg).to.equal(
      `e-mail "Password Reset Request" to ${TEST_ADMIN.email} was not sent: spawn ${SENDMAIL} ENOENT`,
    );
    expect(failed).not.to.have.property('err');
    expect(lines.filter((line) => line.msg.includes('nobody@example.com'))).to.deep.equal([]);
  });

  it('an invite answers 204 and creates the invited user; the log names the failed delivery', async () => {
    const role = await createRole(context().server.db);
    const email = 'invitee-no-mail@example.com';
    const res = await asAdmin(context(), 'POST', '/users/invite', { email, role });
    expect(res.status).to.equal(204);
    const row = await context()
      .server.db('svc_users')
      .where({ email })
      .first<{ status: string; role: string } | undefined>('status', 'role');
    expect(row).to.deep.equal({ status: 'invited', role });
    const failed = await eventually(() =>
      lines.find((line) => line.msg.startsWith(`e-mail "You've been invited" to ${email}`)),
    );
    expect(failed.msg).to.match(/was not sent: /);
  });
});

// A fresh install: EMAIL_TRANSPORT unset and no sendmail. Mail is "not configured", which is
// not a fault: one info line at start, and /server/health stays `ok` with a note.
describe('mail not configured', () => {
  let ctx: ServerContext | undefined;
  const lines: LogLine[] = [];
  const logger = capturingLogger(lines as Record<string, unknown>[]);
  const context = () => ctx ?? expect.fail('not started');

  before(async () => {
    const database = await sqliteTarget.create();
    const env = { EMAIL_VERIFY_SETUP: 'true', EMAIL_SENDMAIL_PATH: SENDMAIL };
    const server = await startServer(testConfig(database, env), { logger });
    ctx = { dialect: 'sqlite', database, server, env, api: (path, init) => fetch(server.url + path, init) };
  });
  after(async () => {
    await ctx?.server.close();
    await ctx?.database.drop();
  });

  it('logs one info line at start saying mail is not configured and what to set; no warning', async () => {
    const line = await eventually(() => lines.find((l) => /e-mail/.test(l.msg)));
    expect(line.level).to.equal(30);
    expect(line.msg).to.equal(
      'e-mail not configured (EMAIL_TRANSPORT unset), mails are not sent: set EMAIL_TRANSPORT=smtp and EMAIL_SMTP_HOST to send them',
    );
    expect(lines.filter((l) => l.level >= 40)).to.deep.equal([]);
  });

  it('/server/health is ok, the mail check ok with the note', async () => {
    await eventually(() => lines.find((l) => /e-mail/.test(l.msg)));
    const admin = await context().api('/server/health', { headers: { Authorization: `Bearer ${TEST_ADMIN.token}` } });
    const body = (await admin.json()) as { status: string; checks: Record<string, { status?: string }[]> };
    // The mail makes nothing `warn`: only a round trip slower than its threshold (a busy machine) may.
    const isSlow = (checks: Record<string, { status?: string }[]>) =>
      Object.entries(checks).some(
        ([name, list]) => name.endsWith(':responseTime') && list.some((check) => check.status === 'warn'),
      );
    expect([admin.status, body.status]).to.deep.equal([200, isSlow(body.checks) ? 'warn' : 'ok']);
    expect(body.checks['email:connection']).to.deep.equal([
      {
        componentType: 'email',
        status: 'ok',
        output: `e-mail not configured (EMAIL_TRANSPORT unset), mails are not sent: ${SENDMAIL} is not an executable program (EMAIL_SENDMAIL_PATH)`,
      },
    ]);
    const anonymous = await context().api('/server/health');
    // Without a token, the status alone.
    expect(anonymous.status).to.equal(200);
    expect(await anonymous.json()).to.have.all.keys('status');
  });
});
