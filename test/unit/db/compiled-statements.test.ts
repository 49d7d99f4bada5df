import Database from 'better-sqlite3';
import { expect } from 'chai';
import { COMPILED_VALUES_PER_CONNECTION, compiledStatement } from '../../../src/db/insert-rows.js';

describe('compiledStatement: SQLite statements kept compiled per connection', () => {
  let db: Database.Database;

  beforeEach(() => {
    db = new Database(':memory:');
    db.exec('create table notes (id integer primary key, title text)');
  });

  afterEach(() => db.close());

  it('the same SQL text gets the statement compiled before; other text or another connection, another', () => {
    const sql = 'select id, title from notes where id = ?';
    expect(compiledStatement(db, sql)).to.equal(compiledStatement(db, sql));
    expect(compiledStatement(db, `${sql} `)).not.to.equal(compiledStatement(db, sql));
    const other = new Database(':memory:');
    other.exec('create table notes (id integer primary key, title text)');
    expect(compiledStatement(other, sql)).not.to.equal(compiledStatement(db, sql));
    other.close();
  });

  it('a statement kept across a schema change reads the new schema', () => {
    compiledStatement(db, 'insert into notes (title) values (?)').run('first');
    const read = () => compiledStatement(db, 'select * from notes order by id').all();
    expect(read()).to.deep.equal([{ id: 1, title: 'first' }]);
    db.exec('alter table notes add column rank integer default 7');
    expect(read()).to.deep.equal([{ id: 1, title: 'first', rank: 7 }]);
  });

  /** A statement naming `count` values: an IN list of one named value repeated. */
  const naming = (count: number, tag: string) =>
    `select '${tag}' as tag from notes where id in (${Array.from({ length: count }, () => '@id').join(', ')})`;

  it('a statement naming more values than the budget is compiled each time; those kept stay kept', () => {
    const sql = 'select id from notes';
    const kept = compiledStatement(db, sql);
    const huge = naming(COMPILED_VALUES_PER_CONNECTION + 1, 'huge');
    expect(compiledStatement(db, huge)).not.to.equal(compiledStatement(db, huge));
    expect(compiledStatement(db, sql)).to.equal(kept);
  });

  it('forgets the least recently used first when the budget is full', () => {
    const first = 'select 1 as kept_first';
    const kept = compiledStatement(db, first);
    const third = Math.floor(COMPILED_VALUES_PER_CONNECTION / 3);
    const zero = compiledStatement(db, naming(third, '0'));
    compiledStatement(db, naming(third, '1'));
    expect(compiledStatement(db, first)).to.equal(kept);
    // A third and a fourth third: the least recently used, the statement `0`, goes.
    compiledStatement(db, naming(third, '2'));
    compiledStatement(db, naming(third, '3'));
    expect(compiledStatement(db, first)).to.equal(kept);
    expect(compiledStatement(db, naming(third, '3'))).to.equal(compiledStatement(db, naming(third, '3')));
    expect(compiledStatement(db, naming(third, '0'))).not.to.equal(zero);
  });
});
