import { expect } from 'chai';
import {
  fencedBlocks,
  readDoc,
  runShellBlocks,
  runTypeScriptBlocks,
  typeCheckTypeScriptBlocks,
  type RunResult,
} from '../support/doc-examples.js';
import { describeEachDatabase, TEST_ADMIN } from '../support/server.js';
import { asAdmin, dataOf } from './access/permission-helpers.js';

/**
 * docs/tutorial.md, run as written against a fresh server per database: every ```sh block in
 * order in one bash with the machine's curl and jq, and every ```ts block as one program through
 * tsx. The page cannot rot: a request that stops working fails here, naming its block.
 */
const PAGE = readDoc('docs/tutorial.md');
const SH = fencedBlocks(PAGE, 'sh');
const TS = fencedBlocks(PAGE, 'ts');

/** The block that starts the service: the test starts its own server with the same variables instead. */
const START = SH.find((block) => /\bmake start\b/.test(block)) ?? '';
const START_ENV = Object.fromEntries(
  [...START.matchAll(/\b([A-Z_]+)=(\S+)/g)].map((match) => [match[1] ?? '', match[2] ?? '']),
);

describe('docs/tutorial.md', () => {
  it('has the steps the issue asks for, each as curl and as client-library code', () => {
    expect(START, 'a block starts the service').to.match(/^WEBSOCKETS_ENABLED=true make start$/m);
    for (const [what, pattern] of [
      ['a collection with a primary key', /POST "\$URL\/collections"[\s\S]*is_primary_key/],
      ['fields', /POST "\$URL\/fields\/articles"/],
      ['relations', /POST "\$URL\/relations"/],
      ['a role', /POST "\$URL\/roles"/],
      ['permissions', /POST "\$URL\/permissions"/],
      ['a user', /POST "\$URL\/users"/],
      ['nested writes', /"comments": \[\{"body"/],
      ['a nested read', /fields=id,title,status,author\.name,comments\.body/],
      ['a filter', /filter=/],
      ['an export', /\/utils\/export\/articles/],
    ] as const) {
      expect(SH.join('\n'), what).to.match(pattern);
    }
    for (const call of [
      'client.collections.createOne',
      'client.fields.createOne',
      'client.relations.createOne',
      'client.roles.createOne',
      'client.permissions.createMany',
      'client.users.createOne',
      'readByQuery',
      'client.utils.export(',
      'client.realtime',
    ]) {
      expect(TS.join('\n'), call).to.contain(call);
    }
  });

  it('the ts blocks type-check as one program (strict, as the repository compiles)', async function () {
    this.timeout(240_000);
    expect(await typeCheckTypeScriptBlocks(TS)).to.equal('');
  });

  it('README.md and docs/api.md link to it', () => {
    expect(readDoc('README.md')).to.contain('](docs/tutorial.md)');
    expect(readDoc('docs/api.md').split('\n').slice(0, 12).join('\n')).to.contain('](tutorial.md)');
  });
});

describeEachDatabase(
  'docs/tutorial.md: the sh blocks, run with curl',
  (ctx) => {
    let output: RunResult | undefined;

    it('every block runs in order and succeeds', async function () {
      this.timeout(300_000);
      const blocks = SH.filter((block) => block !== START);
      output = await runShellBlocks(blocks, { url: ctx().server.url, adminPassword: TEST_ADMIN.password });
      // The refused write is shown, not hidden by its `|| true`.
      expect(output.stdout).to.match(/(^|\})403$/m);
    });

    it('leaves what the page says: three articles, their authors and comments, a reader who sees the published ones', async () => {
      expect(output, 'the blocks ran').not.to.equal(undefined);
      const articles = dataOf<{ title: string; status: string; author: { name: string }; comments: unknown[] }[]>(
        await asAdmin(ctx(), 'GET', '/items/articles?fields=title,status,author.name,comments.id&sort=id'),
      );
      expect(articles.map((a) => [a.title, a.status, a.author.name, a.comments.length])).to.deep.equal([
        ['Hello world', 'published', 'Ada Lovelace', 3],
        ['Second thoughts', 'draft', 'Ada Lovelace', 0],
        ['Notes on engines', 'published', 'Charles Babbage', 0],
      ]);
      expect(output?.stdout).to.contain('{"data":[{"title":"Notes on engines","views":12}]}');
      expect(output?.stdout).to.contain(
        '{"data":[{"name":"Charles Babbage","articles":[{"title":"Notes on engines"}]}]}',
      );
    });

    it('the export is followed through its job to its CSV file', () => {
      expect(output?.stdout).to.match(/^"?id"?,"?title"?,"?status"?,"?author\.name"?\s*$/m);
      expect(output?.stdout).to.contain('Hello world');
    });
  },
  { env: START_ENV },
);

describeEachDatabase(
  'docs/tutorial.md: the ts blocks, run as one program with the client library',
  (ctx) => {
    let output: RunResult | undefined;

    it('the program runs to its end', async function () {
      this.timeout(300_000);
      const blocks = TS;
      output = await runTypeScriptBlocks(
        blocks,
        { url: ctx().server.url, adminPassword: TEST_ADMIN.password },
        { ADMIN_PASSWORD: TEST_ADMIN.password },
      );
    });

    it('wrote and read what the page says, and the subscription saw the new article', async () => {
      expect(output, 'the program ran').not.to.equal(undefined);
      const titles = dataOf<{ title: string }[]>(await asAdmin(ctx(), 'GET', '/items/articles?fields=title&sort=id'));
      expect(titles.map((a) => a.title)).to.deep.equal([
        'Hello world',
        'Second thoughts',
        'Notes on engines',
        'Live from the tutorial',
      ]);
      expect(output?.stdout).to.match(/^init 3$/m);
      expect(output?.stdout).to.match(/^create \[.*Live from the tutorial/m);
    });

    it('the export is followed through its job to its CSV file', () => {
      expect(output?.stdout).to.contain('Hello world');
      expect(output?.stdout).to.match(/author\.name/);
    });
  },
  { env: START_ENV },
);
