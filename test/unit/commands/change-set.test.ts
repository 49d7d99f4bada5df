import { expect } from 'chai';
import type { Knex } from 'knex';
import { noteChange, noteCreated, openChangeSet, takeChanges } from '../../../src/commands/change-set.js';

describe('change set: the items a transaction changed, for the live-data feed', () => {
  // The set is kept per transaction object; nothing here runs a statement.
  const transaction = () => ({}) as Knex.Transaction;

  it('gives each (collection, action) once, its keys in the order noted, each once', () => {
    const trx = transaction();
    openChangeSet(trx);
    noteChange(trx, 'update', 'articles', 5);
    noteChange(trx, 'update', 'articles', 6);
    noteChange(trx, 'create', 'tags', 'a');
    noteChange(trx, 'update', 'articles', 5);
    noteChange(trx, 'update', 'articles', 2);
    expect(takeChanges(trx)).to.deep.equal([
      { collection: 'articles', action: 'update', keys: [5, 6, 2] },
      { collection: 'tags', action: 'create', keys: ['a'] },
    ]);
    expect(takeChanges(trx), 'forgotten once taken').to.deep.equal([]);
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
    expect(takeChanges(trx)).to.deep.equal([
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
    expect(takeChanges(trx)).to.deep.equal([]);
  });
});
