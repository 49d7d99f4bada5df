import { expect } from 'chai';
import { ContentClient } from '../../src/client/index.js';
import { describeEachDatabase } from '../support/server.js';
import { DATABASE_TARGETS } from '../support/services.js';
import { SmtpInbox } from '../support/smtp-inbox.js';
import { adminClient, expectServerError, rejection } from './support.js';

/**
 * The administrators' calls the Studio's operations and settings pages use: utils.mail.test
 * (POST /utils/mail/test, a real SMTP receiver) and server.metrics (GET /server/metrics).
 */
describe('client admin calls', () => {
  const inbox = new SmtpInbox();
  before(() => inbox.start());
  after(() => inbox.stop());

  describeEachDatabase(
    'client admin calls',
    (ctx) => {
      let client: ContentClient;

      before(async () => {
        client = await adminClient(ctx());
        await client.settings.update({ project_name: 'Mail Works' });
      });

      it('utils.mail.test sends one mail through the configured mailer, named after the project', async () => {
        await client.utils.mail.test('ops@example.com');
        const mail = await inbox.next('ops@example.com');
        expect(mail.to).to.deep.equal(['ops@example.com']);
        expect(mail.raw).to.match(/^Subject: Test mail from Mail Works/m);
        expect(mail.text).to.include('its mail settings work');
      });

      it('utils.mail.test refuses a bad address (400) and anyone but an administrator (403), sending nothing', async () => {
        expectServerError(await rejection(client.utils.mail.test('not-an-address')), 400, 'INVALID_PAYLOAD');
        const anonymous = new ContentClient(ctx().server.url);
        expectServerError(await rejection(anonymous.utils.mail.test('x@example.com')), 403, 'FORBIDDEN');
        expect(inbox.mailsTo('x@example.com')).to.deep.equal([]);
      });

      it('server.metrics answers the Prometheus text to an administrator', async () => {
        const text = await client.server.metrics();
        expect(text).to.match(/^# HELP svc_http_requests_total /m);
        expect(text).to.match(/^svc_http_request_duration_seconds_count\{/m);
      });
    },
    {
      targets: DATABASE_TARGETS.filter((t) => t.dialect === 'sqlite' || t.dialect === 'postgres'),
      env: () => ({ ...inbox.env(), METRICS_ENABLED: 'true' }),
    },
  );
});
