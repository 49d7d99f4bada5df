import { expect } from 'chai';
import { describeEachDatabase } from '../../support/server.js';
import { adminData, statementsDuring } from './read-client.js';

const ROWS = 50;
const BATCH = 7;

/**
 * limit=-1 streams: rows arrive in batches of EXPORT_BATCH_SIZE (a cursor on PostgreSQL,
 * key-range or offset batches elsewhere), never all at once, and the result is the same as
 * a bounded read.
 */
describeEachDatabase(
  'read: limit=-1 streams in batches',
  (ctx) => {
    before(async () => {
      const db = ctx().server.db;
      await db.schema.createTable('events', (t) => {
        t.increments('id').primary();
        t.integer('n');
        t.string('label', 40);
      });
      await db.schema.createTable('event_notes', (t) => {
        t.increments('id').primary();
        t.integer('event').unsigned().references('id').inTable('events');
        t.string('text', 40);
      });
      await db('svc_fields').insert({ collection: 'events', field: 'notes', special: 'o2m' });
      await db('svc_relations').insert({
        many_collection: 'event_notes',
        many_field: 'event',
        one_collection: 'events',
        one_field: 'notes',
      });
      const events = Array.from({ length: ROWS }, (_, i) => ({
        id: i + 1,
        n: ((i + 1) * 37) % ROWS,
        label: `e${i + 1}`,
      }));
      await db.batchInsert('events', events, 25);
      await db('event_notes').insert(
        events.filter((e) => e.id % 10 === 0).map((e) => ({ event: e.id, text: `note ${e.id}` })),
      );
      await ctx().server.schema.invalidate();
    });

    it('returns every row in order, nested relations included, one statement per batch', async () => {
      await adminData(ctx(), '/items/events?fields=id&limit=1');
      let body: { data: { id: number; notes: { text: string }[] }[] } | undefined;
      const statements = await statementsDuring(ctx(), async (token) => {
        const res = await ctx().api('/items/events?fields=id,notes.text&limit=-1', {
          headers: { Authorization: `Bearer ${token}` },
        });
        expect(res.status).to.equal(200);
        expect(res.headers.get('content-type')).to.match(/^application\/json/);
        body = (await res.json()) as typeof body;
      });
      const data = body?.data ?? [];
      expect(data.map((e) => e.id)).to.deep.equal(Array.from({ length: ROWS }, (_, i) => i + 1));
      expect(data[9]).to.deep.equal({ id: 10, notes: [{ text: 'note 10' }] });
      expect(data[10]).to.deep.equal({ id: 11, notes: [] });
      const batches = Math.ceil((ROWS + 1) / BATCH);
      if (ctx().dialect === 'postgres') {
        expect(statements.filter((s) => s.startsWith('declare'))).to.have.length(1);
        expect(statements.filter((s) => s.startsWith('fetch'))).to.have.length(batches);
      } else {
        expect(statements.filter((s) => s.startsWith('select'))).to.have.length(batches);
      }
    });

    it('any sort, offset and filter give the same rows as a bounded read', async () => {
      const query = 'fields=id,n,label&sort=-n&offset=3&filter[n][_gte]=5';
      const bounded = await adminData(ctx(), `/items/events?${query}&limit=1000`);
      const streamed = await adminData(ctx(), `/items/events?${query}&limit=-1`);
      expect(streamed).to.deep.equal(bounded);
      expect(streamed).to.have.length(ROWS - 5 - 3);
      const byKey = await adminData(ctx(), '/items/events?fields=id&sort=-id&limit=-1&offset=2');
      expect((byKey as { id: number }[]).map((e) => e.id)).to.deep.equal(
        Array.from({ length: ROWS - 2 }, (_, i) => ROWS - 2 - i),
      );
    });

    it('a bad query on an unlimited read still gets its error response', async () => {
      const res = await ctx().api('/items/events?limit=-1&filter[n][_eq]=x', {
        headers: { Authorization: 'Bearer test-admin-static-token' },
      });
      expect(res.status).to.equal(400);
      expect(
        ((await res.json()) as { errors: { extensions: { code: string } }[] }).errors[0]?.extensions.code,
      ).to.equal('INVALID_QUERY');
    });
  },
  { env: { EXPORT_BATCH_SIZE: String(BATCH) } },
);
