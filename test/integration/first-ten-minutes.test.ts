import { expect } from 'chai';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  fencedBlocks,
  readDoc,
  runShellBlocks,
  runTypeScriptBlocks,
  sectionOf,
  typeCheckTypeScriptBlocks,
  type RunResult,
  type Substitutions,
} from '../support/doc-examples.js';
import { describeEachDatabase, TEST_ADMIN, type ServerContext } from '../support/server.js';
import { DATABASE_TARGETS } from '../support/services.js';
import { SmtpInbox, type ReceivedMail } from '../support/smtp-inbox.js';
import { asAdmin, dataOf } from './access/permission-helpers.js';

/**
 * docs/api.md's "First ten minutes: a blog", run as written against an empty server per
 * database: its ```sh blocks in order in one bash with curl and jq, its ```ts blocks as one
 * program through tsx. The invitation's token, which the reader copies from the mail, is read
 * from the mail the server sent while the blocks run. What the guide says is what the service
 * does, and a step that stops working fails here, naming its block.
 */
const GUIDE = sectionOf(readDoc('docs/api.md'), 'First ten minutes: a blog');
const SH = fencedBlocks(GUIDE, 'sh');
const TS = fencedBlocks(GUIDE, 'ts');
const TOKEN_PLACEHOLDER = `'<the token from the mailed link>'`;
const EDITOR = 'editor@example.com';
const TARGETS = DATABASE_TARGETS.filter((t) => t.dialect === 'sqlite' || t.dialect === 'postgres');

describe('docs/api.md, First ten minutes: a blog', () => {
  it('has every step the issue asks for, each as curl and as client-library code', () => {
    const sh = SH.join('\n');
    for (const [what, pattern] of [
      ['an integer key', /"field": "id", "type": "integer", "schema": \{"is_primary_key": true/],
      ['a required title', /"field": "title", "type": "string", "meta": \{"required": true\}/],
      ['date_created', /"special": \["date-created"\]/],
      ['user_created', /"special": \["user-created"\]/],
      ['a file field', /"related_collection": "svc_files"/],
      ['an author many-to-one', /"related_collection": "authors"/],
      ['a many-to-many junction', /"junction_field": "tags_id"/],
      ['a one-to-many', /"one_field": "comments"/],
      ['an upload', /POST "\$URL\/files"/],
      ['a role with app access', /"name": "Editors", "app_access": true/],
      ['own items only', /"user_created": \{"_eq": "\$CURRENT_USER"\}/],
      ['an invitation', /POST "\$URL\/users\/invite"/],
      ['its acceptance', /POST "\$URL\/users\/invite\/accept"/],
    ] as const) {
      expect(sh, what).to.match(pattern);
    }
    for (const call of [
      'client.collections.createOne',
      'client.fields.createOne',
      'client.relations.createOne',
      'client.files.createOne',
      'client.roles.createOne',
      'client.permissions.createMany',
      'client.users.invites.send',
      'client.users.invites.accept',
      "editor.items('articles').createOne",
      "editor.items('articles').readByQuery",
    ]) {
      expect(TS.join('\n'), call).to.contain(call);
    }
    expect(SH.filter((block) => block.includes(TOKEN_PLACEHOLDER))).to.have.length(1);
    expect(TS.filter((block) => block.includes(TOKEN_PLACEHOLDER))).to.have.length(1);
  });

  it('the ts blocks type-check as one program (strict, as the repository compiles)', async function () {
    this.timeout(240_000);
    expect(await typeCheckTypeScriptBlocks(TS)).to.equal('');
  });

  it("the page's introduction links to it", () => {
    expect(readDoc('docs/api.md').split('\n').slice(0, 14).join('\n')).to.contain('](#first-ten-minutes-a-blog)');
  });
});

interface Article {
  id: number;
  title: string;
  status: string;
  cover: { type: string } | null;
  author: { name: string } | null;
  tags: { tags_id: { name: string } }[];
  comments: { body: string }[];
  user_created: { email: string } | null;
  date_created: string | null;
}

/** What both runs leave: the blog, the Editors role and the editor, and the editor's article only changed. */
async function expectTheBlog(ctx: ServerContext): Promise<void> {
  const articles = dataOf<Article[]>(
    await asAdmin(
      ctx,
      'GET',
      '/items/articles?sort=id&fields=id,title,status,cover.type,author.name,tags.tags_id.name,comments.body,user_created.email,date_created',
    ),
  );
  expect(articles.map((a) => ({ ...a, date_created: typeof a.date_created }))).to.deep.equal([
    {
      id: 1,
      title: 'Hello world',
      status: 'published',
      cover: { type: 'image/png' },
      author: { name: 'Ada Lovelace' },
      tags: [{ tags_id: { name: 'news' } }, { tags_id: { name: 'engines' } }],
      comments: [{ body: 'First!' }],
      user_created: { email: TEST_ADMIN.email },
      date_created: 'string',
    },
    {
      id: 2,
      title: 'An editor rewrites',
      status: 'draft',
      cover: null,
      author: { name: 'Ada Lovelace' },
      tags: [{ tags_id: { name: 'news' } }],
      comments: [],
      user_created: { email: EDITOR },
      date_created: 'string',
    },
  ]);
  const [editor] = dataOf<{ status: string; role: { name: string; app_access: boolean; admin_access: boolean } }[]>(
    await asAdmin(
      ctx,
      'GET',
      `/users?filter[email][_eq]=${EDITOR}&fields=status,role.name,role.app_access,role.admin_access`,
    ),
  );
  expect(editor).to.deep.equal({
    status: 'active',
    role: { name: 'Editors', app_access: true, admin_access: false },
  });
}

describe('docs/api.md, First ten minutes: a blog, run against a server', () => {
  const inbox = new SmtpInbox();
  before(() => inbox.start());
  after(() => inbox.stop());

  /**
   * Runs the blocks with the invitation's placeholder replaced by `readToken(file)`, code that
   * waits for `file`; meanwhile the mail to the editor is awaited and its token written there.
   */
  async function runWithInvite(
    run: (values: Substitutions) => Promise<RunResult>,
    ctx: ServerContext,
    readToken: (file: string) => string,
  ): Promise<{ output: RunResult; mail: ReceivedMail }> {
    const dir = mkdtempSync(join(tmpdir(), 'svc-guide-token-'));
    const file = join(dir, 'token');
    const mailed = inbox.next(EDITOR, 200_000).then((mail) => {
      const token = /[?&]token=([\w.-]+)/.exec(mail.text)?.[1] ?? '';
      writeFileSync(`${file}.part`, token);
      renameSync(`${file}.part`, file);
      return mail;
    });
    // A run that fails first leaves the wait behind: its end is no error of its own.
    mailed.catch(() => undefined);
    try {
      const output = await run({
        url: ctx.server.url,
        adminPassword: TEST_ADMIN.password,
        replace: { [TOKEN_PLACEHOLDER]: readToken(file) },
      });
      return { output, mail: await mailed };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  describeEachDatabase(
    'the sh blocks, run with curl',
    (ctx) => {
      it('every block runs in order and succeeds, and the answers are those the guide shows', async function () {
        this.timeout(300_000);
        const { output, mail } = await runWithInvite(
          (values) => runShellBlocks(SH, values),
          ctx(),
          (file) => `"$(for i in $(seq 1200); do [ -s '${file}' ] && break; sleep 0.1; done; cat '${file}')"`,
        );
        expect(mail.text).to.match(/\/admin\/accept-invite\?token=/);
        expect(output.stdout).to.match(
          /"date_created":"[^"]+","id":1,"status":"published","tags":\[1,2\],"title":"Hello world"/,
        );
        expect(output.stdout).to.contain(
          '{"errors":[{"message":"Validation failed for field \\"title\\". Value is required.","extensions":{"field":"title","type":"required","code":"FAILED_VALIDATION"}}]}',
        );
        expect(output.stdout).to.match(/"id":2,"status":"draft","tags":\[3\],"title":"An editor writes"/);
        // The editor reads every article, the administrator's with who made it.
        expect(output.stdout).to.match(
          /\{"data":\[\{"id":1,"title":"Hello world","status":"published","author":\{"name":"Ada Lovelace"\},"tags":\[\{"tags_id":\{"name":"news"\}\},\{"tags_id":\{"name":"engines"\}\}\],"user_created":\{"email":"admin@example.com"\}\},\{"id":2,"title":"An editor writes","status":"draft",/,
        );
        expect(output.stdout).to.match(/"title":"An editor rewrites"/);
        // The refused update is shown, not hidden by its `|| true`.
        expect(output.stdout).to.match(/(^|\})403$/m);
        await expectTheBlog(ctx());
      });
    },
    { targets: TARGETS, env: () => inbox.env() },
  );

  describeEachDatabase(
    'the ts blocks, run as one program with the client library',
    (ctx) => {
      it('the program runs to its end, and the answers are those the guide shows', async function () {
        this.timeout(300_000);
        const { output } = await runWithInvite(
          (values) => runTypeScriptBlocks(TS, values, { ADMIN_PASSWORD: TEST_ADMIN.password }),
          ctx(),
          (file) =>
            `(await (async () => { const fs = await import('node:fs'); for (let i = 0; i < 1200 && !fs.existsSync('${file}'); i += 1) await new Promise((r) => setTimeout(r, 100)); return fs.readFileSync('${file}', 'utf8'); })())`,
        );
        expect(output.stdout).to.match(/^first \{.*"title":"Hello world"/m);
        expect(output.stdout).to.match(/^refused FAILED_VALIDATION$/m);
        expect(output.stdout).to.match(
          /^read \[\{"id":1,"title":"Hello world",.*"user_created":\{"email":"admin@example.com"\}\},\{"id":2,"title":"An editor writes"/m,
        );
        expect(output.stdout).to.match(/^refused 403$/m);
        await expectTheBlog(ctx());
      });
    },
    { targets: TARGETS, env: () => inbox.env() },
  );
});
