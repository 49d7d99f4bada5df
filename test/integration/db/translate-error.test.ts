import { expect } from 'chai';
import { createDatabase, dialectOf, type Knex } from '../../../src/db/index.js';
import { badInputOf, translateBadInput, translateDatabaseError } from '../../../src/db/translate-error.js';
import { InvalidPayloadError, InvalidQueryError, ServiceError } from '../../../src/errors.js';
import { testConfig } from '../../support/server.js';
import { DATABASE_TARGETS, requireOrSkip, type TestDatabase } from '../../support/services.js';

/** The service error a statement fails with, translated as the write side does it. */
async function failureOf(db: Knex, collection: string, statement: () => Promise<unknown>): Promise<ServiceError> {
  try {
    await statement();
  } catch (error) {
    const translated = translateDatabaseError(error, dialectOf(db), { collection, primaryKey: 'id' });
    if (translated instanceof ServiceError) return translated;
    throw error;
  }
  throw new Error('the statement did not fail');
}

for (const target of DATABASE_TARGETS) {
  describe(`translateDatabaseError against real violations [${target.dialect}]`, function () {
    let database: TestDatabase | undefined;
    let db: Knex;

    before(async function () {
      requireOrSkip(this, await target.unavailable());
      database = await target.create();
      db = createDatabase(testConfig(database).db);
      await db.schema.createTable('parents', (t) => {
        t.increments('id');
        t.string('slug', 5).unique();
        t.string('name', 255).notNullable();
        t.smallint('rank');
      });
      await db.schema.createTable('children', (t) => {
        t.increments('id');
        t.integer('parent').unsigned().references('id').inTable('parents');
      });
      await db('parents').insert({ id: 1, slug: 'taken', name: 'first' });
    });

    after(async () => {
      await db?.destroy();
      await database?.drop();
    });

    it('a duplicate unique value is RECORD_NOT_UNIQUE naming collection and field', async () => {
      const e = await failureOf(db, 'parents', () => db('parents').insert({ id: 2, slug: 'taken', name: 'x' }));
      expect(e.code).to.equal('RECORD_NOT_UNIQUE');
      expect(e.extensions).to.deep.equal({ collection: 'parents', field: 'slug' });
      expect(e.message).to.equal('Value for field "slug" in collection "parents" has to be unique.');
    });

    it('a duplicate primary key is RECORD_NOT_UNIQUE on the primary key', async () => {
      const e = await failureOf(db, 'parents', () => db('parents').insert({ id: 1, name: 'x' }));
      expect(e.code).to.equal('RECORD_NOT_UNIQUE');
      expect(e.extensions).to.deep.equal({ collection: 'parents', field: 'id' });
    });

    it('null into a NOT NULL column is NOT_NULL_VIOLATION naming the field', async () => {
      const e = await failureOf(db, 'parents', () => db('parents').insert({ id: 3, name: null }));
      expect(e.code).to.equal('NOT_NULL_VIOLATION');
      expect(e.extensions).to.deep.equal({ collection: 'parents', field: 'name' });
    });

    it('a missing NOT NULL column without default is NOT_NULL_VIOLATION naming the field', async () => {
      const e = await failureOf(db, 'parents', () => db('parents').insert({ id: 4, slug: 'c' }));
      expect(e.code).to.equal('NOT_NULL_VIOLATION');
      expect(e.extensions).to.deep.equal({ collection: 'parents', field: 'name' });
    });

    it('a key that points nowhere is INVALID_FOREIGN_KEY', async () => {
      const e = await failureOf(db, 'children', () => db('children').insert({ parent: 99 }));
      expect(e.code).to.equal('INVALID_FOREIGN_KEY');
      expect(e.extensions['collection']).to.equal('children');
      // SQLite does not report which foreign key failed.
      expect(e.extensions['field']).to.equal(target.dialect === 'sqlite' ? null : 'parent');
    });

    it('deleting a row still referenced is INVALID_FOREIGN_KEY', async () => {
      await db('children').insert({ id: 10, parent: 1 });
      const e = await failureOf(db, 'parents', () => db('parents').where({ id: 1 }).delete());
      expect(e.code).to.equal('INVALID_FOREIGN_KEY');
      expect(e.extensions['collection']).to.equal('parents');
      await db('children').where({ id: 10 }).delete();
    });

    // SQLite enforces neither column lengths nor numeric ranges: validation does (payload rules).
    it('a string above the column length is VALUE_TOO_LONG', async function () {
      if (target.dialect === 'sqlite') this.skip(); // no length enforcement in SQLite
      const e = await failureOf(db, 'parents', () => db('parents').insert({ id: 5, slug: 'much too long', name: 'x' }));
      expect(e.code).to.equal('VALUE_TOO_LONG');
      expect(e.extensions['collection']).to.equal('parents');
      expect(e.extensions['field']).to.equal(target.dialect === 'mariadb' ? 'slug' : null);
    });

    it('a number outside the column range is VALUE_OUT_OF_RANGE', async function () {
      if (target.dialect === 'sqlite') this.skip(); // no range enforcement in SQLite
      const e = await failureOf(db, 'parents', () => db('parents').insert({ id: 6, name: 'x', rank: 100000 }));
      expect(e.code).to.equal('VALUE_OUT_OF_RANGE');
      expect(e.extensions['collection']).to.equal('parents');
      expect(e.extensions['field']).to.equal(target.dialect === 'mariadb' ? 'rank' : null);
    });

    it('a refused value in a read is INVALID_QUERY, in a write INVALID_PAYLOAD, with a fixed reason', async () => {
      const statement = {
        postgres: () => db.raw('select * from parents where rank = ?', ['40000']), // 22003 for a smallint
        mariadb: () => db('parents').insert({ id: 8, name: 'x', rank: 'abc' }), // 1366 incorrect integer value (strict mode)
        sqlite: () => db.raw('insert into parents (id, name) values (?, ?)', ['abc', 'x']), // datatype mismatch on the integer key
      }[target.dialect];
      const original = await statement().then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(original).to.not.equal(undefined);
      const read = translateBadInput(original, dialectOf(db), 'read');
      const write = translateBadInput(original, dialectOf(db), 'write');
      expect(read).to.be.instanceOf(InvalidQueryError);
      expect(write).to.be.instanceOf(InvalidPayloadError);
      expect((read as ServiceError).message)
        .to.not.include('parents')
        .and.not.include('select');
      expect(translateDatabaseError(original, dialectOf(db), { collection: 'parents' })).to.be.instanceOf(ServiceError);
    });

    it('NUL in text is refused by PostgreSQL and translated', async function () {
      if (target.dialect !== 'postgres') this.skip(); // MariaDB and SQLite store NUL (db/storable-text.ts)
      const original = await db('parents')
        .insert({ id: 7, name: 'a\u0000b' })
        .then(
          () => undefined,
          (error: unknown) => error,
        );
      expect(badInputOf(original, 'pg')).to.equal('unstorable text');
      expect(await db('parents').where({ id: 7 }).first()).to.equal(undefined);
    });

    it('other errors pass through unchanged', async () => {
      const original = await db.raw('select * from no_such_table').catch((error: unknown) => error);
      expect(translateDatabaseError(original, dialectOf(db), { collection: 'parents' })).to.equal(original);
    });
  });
}
