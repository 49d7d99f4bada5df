import { expect } from 'chai';
import type { ContentClient } from '../../src/client/index.js';
import { describeEachDatabase } from '../support/server.js';
import { adminClient, expectServerError, rejection, SQLITE_ONLY } from './support.js';

describeEachDatabase(
  'client schema handler',
  (ctx) => {
    let client: ContentClient;

    before(async () => {
      client = await adminClient(ctx());
      await client.collections.createOne({
        collection: 'notes',
        schema: {},
        fields: [{ field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } }],
      });
    });

    it('snapshots, diffs (an object or an uploaded file) and applies a diff that drops data only when allowed', async () => {
      const snapshot = await client.schema.snapshot();
      expect(snapshot?.['collections']).to.be.an('array');
      expect(await client.schema.diff(snapshot ?? {})).to.equal(null);

      await client.fields.createOne('notes', { field: 'extra', type: 'string', schema: {} });
      await client.items('notes').createOne({ extra: 'kept until the diff drops it' });
      const diff = await client.schema.diff(new Blob([JSON.stringify(snapshot)], { type: 'application/json' }));
      expect(diff?.hash).to.be.a('string');
      expect(JSON.stringify(diff?.diff)).to.include('extra');
      if (diff === null) return;

      expectServerError(await rejection(client.schema.apply(diff)), 400, 'INVALID_PAYLOAD');
      await client.schema.apply(diff, true);
      expect((await client.fields.readMany('notes')).data?.map((f) => f.field)).to.deep.equal(['id']);
      expect(await client.schema.diff(snapshot ?? {})).to.equal(null);
    });

    it('fields: updateOne takes allow_destructive for a lossy type change, updateMany writes several', async () => {
      await client.fields.createOne('notes', { field: 'ratio', type: 'float', schema: {} });
      await client.items('notes').createOne({ ratio: 1.5 });
      const lossy = client.fields.updateOne('notes', 'ratio', { type: 'integer' });
      expectServerError(await rejection(lossy), 400, 'INVALID_PAYLOAD');
      await client.fields.updateOne('notes', 'ratio', { type: 'integer' }, { allowDestructive: true });
      expect((await client.fields.readOne('notes', 'ratio'))?.type).to.equal('integer');
      const sorted = await client.fields.updateMany('notes', [
        { field: 'ratio', meta: { sort: 1 } },
        { field: 'id', meta: { sort: 2 } },
      ]);
      expect(sorted?.map((f) => [f.field, f.meta?.['sort']])).to.deep.equal([
        ['ratio', 1],
        ['id', 2],
      ]);
    });
  },
  SQLITE_ONLY,
);
