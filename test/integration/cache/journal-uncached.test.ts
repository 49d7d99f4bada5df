import { expect } from 'chai';
import { describeEachDatabase } from '../../support/server.js';
import { latestExport, waitForExport } from '../files/export-status.js';
import { graphqlData } from '../graphql/graphql-client.js';
import { adminWrite, createNotes, read, retitleInSql, titleOf } from './cache-helpers.js';

type Row = Record<string, unknown>;

/** The newest row of `path` (a journal read) as the admin sees it. */
async function newest(api: Parameters<typeof read>[0], path: string): Promise<Row | undefined> {
  const res = await read(api, path);
  expect(res.status, res.text).to.equal(200);
  return (res.body.data as Row[])[0];
}

// CACHE_ENABLED without CACHE_AUTO_PURGE, a long TTL: every other read may be an hour old, the
// journal (export progress, activity, revisions) never is.
describeEachDatabase(
  'journal reads with the data cache on',
  (ctx) => {
    before(() => createNotes(ctx()));

    it('the cache is on for items: a change made in SQL is not seen', async () => {
      const { api, server } = ctx();
      expect(await titleOf(api, 1)).to.equal('first');
      await retitleInSql(server.db, 1, 'changed in SQL');
      expect(await titleOf(api, 1)).to.equal('first');
    });

    it("an export's progress polled through /activity reaches done (not a cached earlier state)", async () => {
      const { api } = ctx();
      expect(await latestExport(ctx()), 'no export yet (a cached empty list would stick)').to.equal(undefined);
      const progressUrl = '/activity?filter[action][_eq]=export&sort=-id';
      expect(await newest(api, progressUrl)).to.equal(undefined);

      await adminWrite(api, 'POST', '/utils/export/notes', { format: 'json', query: { fields: ['id', 'title'] } });
      const done = await waitForExport(ctx(), (row) => row.status.status === 'done', 10_000);
      expect(done.status).to.include({ rows_done: 3, rows_total: 3, error: null });
      // The README's poll, the same URL read before the export.
      const row = await newest(api, progressUrl);
      expect(JSON.parse(String(row?.['comment']))).to.include({ status: 'done', file: done.status.file });
    });

    it('/revisions, /activity and GraphQL activity show a write at once', async () => {
      const { api } = ctx();
      const revisionsUrl = '/revisions?sort=-id&limit=1&fields=id,collection,item,data';
      const activityUrl = '/activity?sort=-id&limit=1&fields=id,action,collection,item';
      const activityQuery = '{ activity(sort: ["-id"], limit: 1) { id action collection item } }';
      const revisionBefore = await newest(api, revisionsUrl);
      const activityBefore = await newest(api, activityUrl);
      const graphqlBefore = await graphqlData(ctx(), activityQuery, { scope: 'system' });

      await adminWrite(api, 'PATCH', '/items/notes/2', { title: 'second, patched' });

      const revision = await newest(api, revisionsUrl);
      expect(revision?.['id']).not.to.equal(revisionBefore?.['id']);
      expect(revision).to.include({ collection: 'notes', item: '2' });
      const activity = await newest(api, activityUrl);
      expect(activity?.['id']).not.to.equal(activityBefore?.['id']);
      expect(activity).to.include({ action: 'update', collection: 'notes', item: '2' });
      const after = await graphqlData(ctx(), activityQuery, { scope: 'system' });
      expect(after).not.to.deep.equal(graphqlBefore);
      expect((after['activity'] as Row[])[0]).to.include({ action: 'update', collection: 'notes', item: '2' });
    });
  },
  { env: { CACHE_ENABLED: 'true', CACHE_TTL: '1h' } },
);
