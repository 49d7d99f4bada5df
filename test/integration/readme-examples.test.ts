import { expect } from 'chai';
import { fencedBlocks, readDoc, runShellBlocks, runTypeScriptBlocks } from '../support/doc-examples.js';
import { describeEachDatabase, TEST_ADMIN } from '../support/server.js';

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
const TS_BLOCKS = fencedBlocks(README, 'ts');
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
    expect(CORS_ENV).to.include({ CORS_ENABLED: 'true' });
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
