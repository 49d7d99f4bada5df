import { expect } from 'chai';
import type { Knex } from 'knex';
import { noteChange, noteCreated, openChangeSet, takeChanges } from '../../../src/commands/change-set.js';
import type { KeyList } from '../../../src/commands/key-runs.js';

describe('change set: the items a transaction changed, for the live-data feed', () => {
  // The set is kept per transaction object; nothing here runs a statement.
  const transaction = () => ({}) as Knex.Transaction;
  /** The changes of `trx`, their keys as arrays. */
  const taken = (trx: Knex.Transaction) => takeChanges(trx).map((change) => ({ ...change, keys: change.keys.slice() }));

  it('gives each (collection, action) once, its keys in the order noted, each once', () => {
    const trx = transaction();
    openChangeSet(trx);
    noteChange(trx, 'update', 'articles', 5);
    noteChange(trx, 'update', 'articles', 6);
    noteChange(trx, 'create', 'tags', 'a');
    noteChange(trx, 'update', 'articles', 5);
    noteChange(trx, 'update', 'articles', 2);
    expect(taken(trx)).to.deep.equal([
      { collection: 'articles', action: 'update', keys: [5, 6, 2] },
      { collection: 'tags', action: 'create', keys: ['a'] },
    ]);
    expect(taken(trx), 'forgotten once taken').to.deep.equal([]);
  });

  it('keeps created batches, ranges of a sequence or not, after the single notes', () => {
    const trx = transaction();
    openChangeSet(trx);
    noteCreated(trx, 'articles', [10, 11, 12]);
    noteChange(trx, 'create', 'articles', 3);
    noteCreated(trx, 'articles', [20, 22, 21]);
    noteCreated(trx, 'articles', []);
    noteCreated(trx, 'articles', ['9007199254740993', '9007199254740994']);
    noteCreated(trx, 'articles', [13, 14]);
    const [change] = takeChanges(trx);
    // Keys of a sequence stay ranges until read: nothing per key is held.
    expect((change?.keys as KeyList).segments).to.deep.include({ first: 10, count: 3 });
    expect([{ ...change, keys: change?.keys.slice() }]).to.deep.equal([
      {
        collection: 'articles',
        action: 'create',
        keys: [3, 10, 11, 12, 20, 22, 21, '9007199254740993', '9007199254740994', 13, 14],
      },
    ]);
  });

  it('notes nothing outside an open change set', () => {
    const trx = transaction();
    noteChange(trx, 'delete', 'articles', 1);
    noteCreated(trx, 'articles', [1, 2]);
    expect(taken(trx)).to.deep.equal([]);
  });
});
