import { expect } from 'chai';
import { createHmac } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import {
  fencedBlocks,
  readDoc,
  runShellBlocks,
  runTypeScriptBlocks,
  sectionOf,
  typeCheckTypeScriptBlocks,
} from '../support/doc-examples.js';
import { describeEachDatabase, TEST_ADMIN } from '../support/server.js';
import { adminApi, createCommandSchema, dataOf } from './commands/schema.js';
import { Receiver } from './flows/receiver.js';

/**
 * The examples of README.md run exactly as written against a fresh server: the curl blocks,
 * and the client-library example (on the articles docs/tutorial.md makes, as the README says).
 * docs/api.md's CORS example too, on a server started as its comment says.
 */
const README = readDoc('README.md');
/** README's sh blocks that only call the API (the others start, build or configure things). */
const CURL_BLOCKS = fencedBlocks(README, 'sh').filter((block) =>
  block
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.startsWith('#'))
    .every((line) => line.startsWith('curl ')),
);
/** The webhook of "Flows and webhooks", run on its own (it needs a receiver); the client library's example. */
const WEBHOOK_BLOCKS = fencedBlocks(sectionOf(README, 'Flows and webhooks'), 'ts');
const TS_BLOCKS = fencedBlocks(README, 'ts').filter((block) => !WEBHOOK_BLOCKS.includes(block));
const TUTORIAL_SETUP = fencedBlocks(readDoc('docs/tutorial.md'), 'sh').filter(
  (block) => !/\bmake start\b/.test(block) && !block.includes('/utils/export/'),
);

const CORS_BLOCK = fencedBlocks(readDoc('docs/api.md'), 'sh').find((block) => block.includes('OPTIONS')) ?? '';
/** `# with NAME=value ... make start`: the variables the CORS example's server needs. */
const CORS_ENV = Object.fromEntries(
  [...(/^# with (.*) make start/m.exec(CORS_BLOCK)?.[1] ?? '').matchAll(/\b([A-Z_]+)=(\S+)/g)].map((m) => [
    m[1] ?? '',
    m[2] ?? '',
  ]),
);

describe('README.md examples', () => {
  it('has a curl example and one client-library example', () => {
    expect(CURL_BLOCKS.length).to.be.at.least(1);
    expect(TS_BLOCKS).to.have.length(1);
    expect(WEBHOOK_BLOCKS).to.have.length(1);
    // "in five lines": the whole program a reader copies.
    expect(WEBHOOK_BLOCKS[0]?.trim().split('\n')).to.have.length.at.most(5);
    expect(CORS_ENV).to.include({ CORS_ENABLED: 'true' });
  });

  it('the webhook type-checks with the strict options a reader may have', async function () {
    this.timeout(120_000);
    expect(await typeCheckTypeScriptBlocks(WEBHOOK_BLOCKS)).to.equal('');
  });
});

describeEachDatabase('README.md examples, as written', (ctx) => {
  const values = () => ({ url: ctx().server.url, adminPassword: TEST_ADMIN.password });

  it('the curl examples answer what their comments say', async function () {
    this.timeout(120_000);
    const output = await runShellBlocks(CURL_BLOCKS, values());
    expect(output.stdout).to.contain('pong');
  });

  it('the client-library example logs in as the administrator and reads the tutorial articles', async function () {
    this.timeout(300_000);
    await runShellBlocks(TUTORIAL_SETUP, values());
    const output = await runTypeScriptBlocks(TS_BLOCKS, values(), { ADMIN_PASSWORD: TEST_ADMIN.password });
    expect(output.stdout.trim()).to.equal("[ { id: 3, title: 'Notes on engines' } ]");
    expect(output.stderr).to.equal('');
  });

  it('with a wrong password the example stops in a few lines naming INVALID_CREDENTIALS, not a dump of the response', async function () {
    this.timeout(120_000);
    const failure = await runTypeScriptBlocks(TS_BLOCKS, values(), { ADMIN_PASSWORD: 'not the password' }).then(
      () => expect.fail('the example ran with a wrong password'),
      (error: Error) => error.message,
    );
    const stderr = failure.split('--- stderr:\n')[1]?.split('\n--- stdout:')[0] ?? '';
    expect(stderr).to.contain('TransportError: Invalid user credentials.').and.to.contain('INVALID_CREDENTIALS');
    expect(stderr.trim().split('\n').length).to.be.below(20);
  });
});

describeEachDatabase(
  "docs/api.md's CORS example, on a server started as it says",
  (ctx) => {
    it('the preflight answers 204 with the origin allowed', async function () {
      this.timeout(120_000);
      const output = await runShellBlocks([CORS_BLOCK], { url: ctx().server.url, adminPassword: TEST_ADMIN.password });
      expect(output.stdout).to.match(/^HTTP\/1\.1 204/);
      expect(output.stdout).to.match(/^access-control-allow-origin: https:\/\/app\.example\.com\r?$/im);
      expect(output.stdout).to.match(/^access-control-allow-methods: .*PATCH/im);
    });
  },
  { env: CORS_ENV },
);

const SECRET_BYTES = Buffer.from('the build hook of the README');

describeEachDatabase(
  "README.md's webhook, as written, to a receiver on loopback",
  (ctx) => {
    const receiver = new Receiver();
    before(async () => {
      await createCommandSchema(ctx());
      await receiver.start();
    });
    after(() => receiver.stop());

    it('an article published is delivered, signed with the secret; a draft saved is not', async function () {
      this.timeout(120_000);
      const api = (method: string, path: string, body?: unknown) => adminApi(ctx(), method, path, body);
      const secret = `whsec_${SECRET_BYTES.toString('base64')}`;
      await runTypeScriptBlocks(
        WEBHOOK_BLOCKS,
        {
          url: ctx().server.url,
          adminPassword: TEST_ADMIN.password,
          replace: { 'https://api.netlify.com/build_hooks/<id>': `${receiver.url}/build`, 'whsec_<base64>': secret },
        },
        { TOKEN: TEST_ADMIN.token },
      );
      // The API reads its event flows again after a second (src/flows/event-hooks.ts).
      await delay(1100);
      const id = dataOf<{ id: number }>(await api('POST', '/items/articles', { title: 'Draft' })).id;
      dataOf(await api('PATCH', `/items/articles/${id}`, { title: 'Still a draft' }));
      dataOf(await api('PATCH', `/items/articles/${id}`, { status: 'published' }));
      const [delivery] = await receiver.waitFor(1, 30_000);
      expect(delivery?.url).to.equal('/build');
      const signed = `${String(delivery?.headers['webhook-id'])}.${String(delivery?.headers['webhook-timestamp'])}.${delivery?.body ?? ''}`;
      expect(delivery?.headers['webhook-signature']).to.equal(
        `v1,${createHmac('sha256', SECRET_BYTES).update(signed).digest('base64')}`,
      );
      expect(JSON.parse(delivery?.body ?? '')).to.deep.include({
        event: 'items.update',
        collection: 'articles',
        keys: [id],
        payload: { status: 'published' },
      });
      await delay(1000);
      expect(receiver.requests, 'the draft edits are not delivered').to.have.length(1);
    });
  },
  { env: { IMPORT_IP_DENY_LIST: '169.254.0.0/16' } },
);
