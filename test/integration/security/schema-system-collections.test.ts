import { expect } from 'chai';
import { describeEachDatabase, type ServerContext } from '../../support/server.js';
import { expectError, expectOk, schemaApi } from '../catalog/schema-api.js';
import { dumpTables } from './helpers.js';

/*
 * A snapshot holds no system collection, field of one, or relation one holds (as in Directus
 * 10), so a diff has nothing to say about them: a hand-made /schema/apply diff once added a
 * column to svc_users. Such entries are refused (422 UNPROCESSABLE_ENTITY, as altering a system
 * collection is) before any step, and nothing changes; a user collection's relation to
 * svc_users still goes through a snapshot.
 */

const CATALOGUE: readonly (readonly [string, string])[] = [
  ['svc_collections', 'collection'],
  ['svc_fields', 'id'],
  ['svc_relations', 'id'],
  ['svc_users', 'id'],
];

async function state(ctx: ServerContext): Promise<unknown> {
  const { db } = ctx.server;
  return {
    tables: await dumpTables(db, CATALOGUE),
    userColumns: Object.keys(await db('svc_users').columnInfo()).sort(),
    plainColumns: Object.keys(await db('plain').columnInfo()).sort(),
  };
}

const newField = (collection: string, field: string) => ({
  collection,
  field,
  diff: [
    {
      kind: 'N',
      rhs: { collection, field, type: 'string', meta: null, schema: { max_length: 50, is_nullable: true } },
    },
  ],
});

describeEachDatabase('security: a schema diff may not change system collections', (ctx) => {
  const api = schemaApi(ctx);
  /** A plan from a real diff (its hash is the current schema's) adding plain.note. */
  let plan: { hash: string; diff: { collections: unknown[]; fields: unknown[]; relations: unknown[] } };

  before(async () => {
    expectOk(
      await api('POST', '/collections', {
        collection: 'plain',
        schema: {},
        fields: [{ field: 'title', type: 'string' }],
      }),
    );
  });

  beforeEach(async () => {
    const snapshot = expectOk(await api('GET', '/schema/snapshot'));
    snapshot.fields.push(newField('plain', 'note').diff[0]?.rhs);
    plan = expectOk(await api('POST', '/schema/diff', snapshot));
    expect(plan.diff.fields).to.have.length(1);
  });

  it('a hand-made diff adding a column to svc_users is refused, and the rest of it not applied', async () => {
    const before = await state(ctx());
    const forged = {
      hash: plan.hash,
      diff: { ...plan.diff, fields: [...plan.diff.fields, newField('svc_users', 'pwned')] },
    };
    expectError(
      await api('POST', '/schema/apply', forged),
      422,
      'UNPROCESSABLE_ENTITY',
      /System collection "svc_users" is not a snapshot's to change \(diff\.fields\[1\]\)\.?$/,
    );
    const alone = {
      hash: plan.hash,
      diff: { collections: [], fields: [newField('svc_users', 'pwned')], relations: [] },
    };
    expectError(await api('POST', '/schema/apply', alone), 422, 'UNPROCESSABLE_ENTITY', /svc_users/);
    expect(await state(ctx())).to.deep.equal(before);
  });

  it('collection, relation and disguised entries on system collections are refused too', async () => {
    const before = await state(ctx());
    const collection = {
      collection: 'svc_roles',
      diff: [{ kind: 'E', path: ['meta', 'note'], lhs: null, rhs: 'mine now' }],
    };
    expectError(
      await api('POST', '/schema/apply', { hash: plan.hash, diff: { ...plan.diff, collections: [collection] } }),
      422,
      'UNPROCESSABLE_ENTITY',
      /svc_roles/,
    );
    const relation = {
      collection: 'svc_users',
      field: 'role',
      related_collection: 'svc_roles',
      diff: [{ kind: 'D', lhs: { collection: 'svc_users', field: 'role', related_collection: 'svc_roles' } }],
    };
    expectError(
      await api('POST', '/schema/apply', { hash: plan.hash, diff: { ...plan.diff, relations: [relation] } }),
      422,
      'UNPROCESSABLE_ENTITY',
      /svc_users/,
    );
    // An entry under a user collection whose new object names a system one.
    const disguised = newField('plain', 'pwned');
    disguised.diff[0]!.rhs.collection = 'svc_users';
    expectError(
      await api('POST', '/schema/apply', { hash: plan.hash, diff: { ...plan.diff, fields: [disguised] } }),
      400,
      'INVALID_PAYLOAD',
      /describes another one \("svc_users\.pwned"\)/,
    );
    // A snapshot naming system collections: refused at the diff already.
    const snapshot = expectOk(await api('GET', '/schema/snapshot'));
    snapshot.collections.push({ collection: 'svc_users', meta: null, schema: { name: 'svc_users' } });
    snapshot.fields.push(newField('svc_users', 'pwned').diff[0]?.rhs);
    expectError(await api('POST', '/schema/diff', snapshot), 422, 'UNPROCESSABLE_ENTITY', /svc_users/);
    expect(await state(ctx())).to.deep.equal(before);
  });

  it('a user collection relation to svc_users still goes through a snapshot', async () => {
    expectOk(await api('POST', '/fields/plain', { field: 'owner', type: 'uuid' }));
    expectOk(await api('POST', '/relations', { collection: 'plain', field: 'owner', related_collection: 'svc_users' }));
    const withOwner = expectOk(await api('GET', '/schema/snapshot'));
    expectOk(await api('DELETE', '/fields/plain/owner'), 204);
    const restore = expectOk(await api('POST', '/schema/diff', withOwner));
    expect(restore.diff.relations).to.have.length(1);
    expectOk(await api('POST', '/schema/apply', restore), 204);
    const [relation] = expectOk(await api('GET', '/relations/plain')) as {
      field: string;
      related_collection: string;
    }[];
    expect(relation).to.deep.include({ field: 'owner', related_collection: 'svc_users' });
    expectOk(await api('DELETE', '/fields/plain/owner'), 204);
  });
});
