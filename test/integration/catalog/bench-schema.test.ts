import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { getFieldRelation } from '../../../catalog/overview/lookup.js';
import { describeEachDatabase, TEST_ADMIN } from '../../support/server.js';

const run = promisify(execFile);
const DATA_DIR = new URL('../../../bench/data', import.meta.url).pathname;
const SCRIPT = `${DATA_DIR}/create-schema.mjs`;

// The benchmark's data model is created through the schema API only: an acceptance test of it.
describeEachDatabase('benchmark data model through the schema API', (ctx) => {
  const createSchema = () =>
    run(process.execPath, [SCRIPT], { env: { ...process.env, BASE_URL: ctx().server.url, TOKEN: TEST_ADMIN.token } });

  it('create-schema.mjs succeeds, and again (idempotent)', async () => {
    const first = await createSchema();
    expect(first.stdout).to.match(/schema ready/);
    expect(first.stdout).to.match(/ok {2}POST \/relations articles_tags\.tags_id -> tags/);
    const second = await createSchema();
    expect(second.stdout).to.match(/skip relation articles_tags\.tags_id \(exists\)/);

    const overview = await ctx().server.schema.getOverview();
    const comments = getFieldRelation(overview, 'articles', 'comments');
    expect(comments?.kind === 'o2m' && comments.related).to.equal('comments');
    const tags = getFieldRelation(overview, 'articles', 'tags');
    expect(tags?.kind === 'o2m' && [tags.related, tags.relation.meta?.junctionField]).to.deep.equal([
      'articles_tags',
      'tags_id',
    ]);
    expect(overview.collections['articles']?.fields['status']).to.include({ defaultValue: 'draft', nullable: false });
    expect(overview.collections['articles']?.fields['published_at']?.type).to.equal('timestamp');
  });
});
