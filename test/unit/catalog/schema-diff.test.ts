import { expect } from 'chai';
import { applyEntries, diffSnapshots, parseApplyBody, parseSnapshot } from '../../../catalog/schema/diff.js';
import { canonicalJson, snapshotHash, type Snapshot } from '../../../catalog/schema/snapshot.js';

const base: Snapshot = {
  version: 1,
  service: 'test',
  vendor: 'postgres',
  collections: [{ collection: 'posts', meta: { note: 'a', icon: null }, schema: { name: 'posts' } }],
  fields: [
    { collection: 'posts', field: 'id', type: 'integer', meta: null, schema: { is_primary_key: true } },
    { collection: 'posts', field: 'title', type: 'string', meta: { sort: 1 }, schema: { max_length: 10 } },
  ],
  relations: [],
};

const clone = (s: Snapshot): any => structuredClone(s);

describe('catalog/schema: snapshot diff', () => {
  it('finds nothing between equal snapshots, whatever their key order or vendor', () => {
    const reordered = {
      ...clone(base),
      vendor: 'mysql',
      collections: [{ schema: { name: 'posts' }, meta: { icon: null, note: 'a' }, collection: 'posts' }],
    };
    expect(diffSnapshots(base, reordered)).to.deep.equal({ collections: [], fields: [], relations: [] });
    expect(snapshotHash(reordered)).to.equal(snapshotHash(base));
    expect(canonicalJson({ b: 1, a: [{ d: 1, c: 2 }] })).to.equal('{"a":[{"c":2,"d":1}],"b":1}');
  });

  it('lists new and removed objects whole and edits by path; applying the edits gives the target', () => {
    const target = clone(base);
    target.collections[0].meta.note = 'b';
    target.collections[0].meta.color = '#fff';
    target.fields[1].schema.max_length = 20;
    target.fields.push({ collection: 'posts', field: 'body', type: 'text', meta: null, schema: {} });
    target.fields.splice(0, 1);
    const diff = diffSnapshots(base, target);
    expect(diff.collections).to.deep.equal([
      {
        collection: 'posts',
        diff: [
          { kind: 'E', path: ['meta', 'note'], lhs: 'a', rhs: 'b' },
          { kind: 'N', path: ['meta', 'color'], rhs: '#fff' },
        ],
      },
    ]);
    expect(diff.fields).to.deep.equal([
      { collection: 'posts', field: 'title', diff: [{ kind: 'E', path: ['schema', 'max_length'], lhs: 10, rhs: 20 }] },
      { collection: 'posts', field: 'body', diff: [{ kind: 'N', rhs: target.fields[1] }] },
      { collection: 'posts', field: 'id', diff: [{ kind: 'D', lhs: base.fields[0] }] },
    ]);
    const [collectionDiff] = diff.collections;
    expect(applyEntries(base.collections[0], collectionDiff?.diff ?? [])).to.deep.equal(target.collections[0]);
    expect(applyEntries(base.fields[0], [{ kind: 'D', lhs: base.fields[0] }])).to.equal(undefined);
    expect(base.collections[0]?.meta).to.deep.equal({ note: 'a', icon: null });
  });

  it('refuses what is not a snapshot, naming the problem', () => {
    const refuse = (body: unknown, message: RegExp) => expect(() => parseSnapshot(body)).to.throw(message);
    refuse('text', /must be an object/);
    refuse({ ...clone(base), version: 3 }, /version 3 is newer/);
    refuse({ ...clone(base), version: '1' }, /positive integer/);
    refuse({ ...clone(base), vendor: 7 }, /"vendor"/);
    refuse({ ...clone(base), relations: undefined }, /"relations" of the snapshot must be an array/);
    refuse({ ...clone(base), fields: [{ collection: 'posts', type: 'string' }] }, /"field" of field 0/);
    refuse(
      { ...clone(base), fields: [{ collection: 'nowhere', field: 'x', type: 'string' }] },
      /belongs to no collection/,
    );
    refuse(
      { ...clone(base), collections: [...base.collections, ...base.collections] },
      /lists collection "posts" twice/,
    );
    refuse(
      { ...clone(base), relations: [{ collection: 'posts', field: 'author', related_collection: 'users' }] },
      /has no field/,
    );
    expect(parseSnapshot(clone(base))).to.deep.equal(base);
  });

  it('reads an apply body and refuses entries of unknown kinds', () => {
    const body = { hash: 'h', diff: { fields: [{ collection: 'posts', field: 'x', diff: [{ kind: 'D', lhs: 1 }] }] } };
    expect(parseApplyBody(body)).to.deep.equal({
      hash: 'h',
      diff: {
        collections: [],
        fields: [{ collection: 'posts', field: 'x', diff: [{ kind: 'D', lhs: 1 }] }],
        relations: [],
      },
    });
    expect(() => parseApplyBody({ diff: {} })).to.throw(/"hash" is required/);
    expect(() =>
      parseApplyBody({ hash: 'h', diff: { fields: [{ collection: 'posts', field: 'x', diff: [{ kind: 'A' }] }] } }),
    ).to.throw(/kind/);
    expect(() =>
      parseApplyBody({ hash: 'h', diff: { fields: [{ collection: 'posts', field: 'x', diff: [] }] } }),
    ).to.throw(/non-empty/);
    expect(() =>
      parseApplyBody({ hash: 'h', diff: { fields: [{ collection: 'posts', field: 'x', diff: [{ kind: 'E' }] }] } }),
    ).to.throw(/needs a path/);
    const polluting = {
      hash: 'h',
      diff: { collections: [{ collection: 'posts', diff: [{ kind: 'E', path: ['__proto__', 'polluted'], rhs: 1 }] }] },
    };
    expect(() => parseApplyBody(polluting)).to.throw(/array of keys/);
    expect(() => applyEntries({}, [{ kind: 'E', path: ['__proto__', 'polluted'], lhs: null, rhs: 1 }])).to.throw(
      /doesn't fit/,
    );
    expect(({} as Record<string, unknown>)['polluted']).to.equal(undefined);
  });
});
