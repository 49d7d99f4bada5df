import { expect } from 'chai';
import knex from 'knex';
import type { SchemaOverview } from '../../../catalog/overview/types.js';
import { FULL_READ_ACCESS, type ReadAccess } from '../../../src/access/read-access.js';
import { databaseDialect } from '../../../src/db/dialects/index.js';
import type { CompiledSql } from '../../../src/db/dialects/read.js';
import { andConditions } from '../../../src/query/ast/build-condition.js';
import { buildKeysCondition, buildReadAst } from '../../../src/query/ast/build-read-ast.js';
import { compileReadJson } from '../../../src/query/compile/compile-read.js';
import { parseQuery, parseQueryString } from '../../../src/query/parse/parse-query.js';
import type { Query } from '../../../src/query/query.js';
import type { ReadContext, Reader } from '../../../src/query/read-context.js';
import { rememberedJsonRead } from '../../../src/query/remembered-reads.js';
import { testBuildContext } from './build-context.js';
import { FIXTURE_OVERVIEW } from './fixture-overview.js';

type Key = string | number;

describe('query: JSON reads compiled once (remembered-reads.ts)', () => {
  // Never connects: it only gives the statements PostgreSQL's dialect.
  const db = knex({ client: 'pg' });
  after(() => db.destroy());
  const limits = { queryLimitDefault: 100, queryLimitMax: Infinity, maxRelationalDepth: 10 };
  const who = (user: string, admin = true) => ({
    user,
    role: '00000000-0000-4000-8000-00000000000f',
    admin,
    app: true,
    ip: null,
    userAgent: null,
    origin: null,
  });
  const admin: Reader = { access: FULL_READ_ACCESS, accountability: who('00000000-0000-4000-8000-000000000001') };

  /** A schema of its own per test: what one remembers, another does not see. */
  const freshOverview = (): SchemaOverview => ({ ...FIXTURE_OVERVIEW });
  const query = (qs: string): Query => parseQuery(parseQueryString(`?${qs}`));

  /** The read compiled as read-items.ts compiles it (keys ANDed in, no window), counting compilations. */
  function compiler(overview: SchemaOverview, collection: string, read: Query) {
    const counted = {
      calls: 0,
      compile: (reader: Reader, key: Key | undefined): CompiledSql => {
        counted.calls++;
        return direct(overview, reader, collection, read, key);
      },
    };
    return counted;
  }

  function direct(overview: SchemaOverview, reader: Reader, collection: string, read: Query, key?: Key): CompiledSql {
    const build = testBuildContext({ overview, access: reader.access, accountability: reader.accountability });
    const base = buildReadAst(build, collection, read);
    const ast =
      key === undefined
        ? base
        : {
            ...base,
            level: {
              ...base.level,
              filter: andConditions(base.level.filter, buildKeysCondition(build, collection, [key])),
              limit: null,
              offset: 0,
            },
          };
    return compileReadJson(databaseDialect('pg'), ast);
  }

  function remembered(
    overview: SchemaOverview,
    reader: Reader,
    collection: string,
    read: Query,
    counted: ReturnType<typeof compiler>,
    key?: Key,
  ): CompiledSql | null {
    const ctx: ReadContext = { db, overview, limits };
    return rememberedJsonRead(ctx, reader, collection, read, { form: 'api', key }, (one) =>
      counted.compile(reader, one),
    );
  }

  it('a list: compiled once per schema and query, again for another schema', () => {
    const overview = freshOverview();
    const counted = compiler(overview, 'articles', query('fields=id,title&sort=-id&limit=5'));
    const first = remembered(overview, admin, 'articles', query('fields=id,title&sort=-id&limit=5'), counted);
    const second = remembered(overview, admin, 'articles', query('fields=id,title&sort=-id&limit=5'), counted);
    expect(counted.calls).to.equal(1);
    expect(second).to.deep.equal(first);
    remembered(overview, admin, 'articles', query('fields=id,title&sort=-id&limit=6'), counted);
    expect(counted.calls, 'another query').to.equal(2);
    remembered(freshOverview(), admin, 'articles', query('fields=id,title&sort=-id&limit=5'), counted);
    expect(counted.calls, 'another schema').to.equal(3);
  });

  it('a key: compiled twice the first time, then each key bound where the first one was', () => {
    const overview = freshOverview();
    const read = query('fields=id,title,author.name,comments.text&filter[views][_gt]=7');
    const counted = compiler(overview, 'articles', read);
    for (const key of [4242, 1, 2, 7, 4242]) {
      const statement = remembered(overview, admin, 'articles', read, counted, key);
      expect(statement, String(key)).to.deep.equal(direct(overview, admin, 'articles', read, key));
    }
    expect(counted.calls).to.equal(2);
    // uuid keys, in either case, the same way.
    const roles = compiler(overview, 'svc_roles', query('fields=id,name'));
    for (const key of [
      '7d4e2a3c-1b2a-4c5d-8e9f-0a1b2c3d4e5f',
      '00000000-0000-4000-8000-000000000001',
      'AAAAAAAA-0000-4000-8000-000000000001',
    ]) {
      const statement = remembered(overview, admin, 'svc_roles', query('fields=id,name'), roles, key);
      expect(statement, key).to.deep.equal(direct(overview, admin, 'svc_roles', query('fields=id,name'), key));
    }
    expect(roles.calls).to.equal(2);
  });

  it('a key the builder drops (not of the key type) is compiled as ever, each time', () => {
    const overview = freshOverview();
    const read = query('fields=id');
    const counted = compiler(overview, 'articles', read);
    remembered(overview, admin, 'articles', read, counted, 1);
    expect(counted.calls).to.equal(2);
    for (const key of ['abc', 'abc', 1.5]) {
      const statement = remembered(overview, admin, 'articles', read, counted, key);
      expect(statement, String(key)).to.deep.equal(direct(overview, admin, 'articles', read, key));
    }
    expect(counted.calls, 'once for each of the three').to.equal(5);
  });

  it('a keyed read whose two statements do not line up is compiled once per key, never twice', () => {
    const overview = freshOverview();
    const ctx: ReadContext = { db, overview, limits };
    let calls = 0;
    // The key written into the text, not bound: no position holds it.
    const inline = (key: Key | undefined): CompiledSql => {
      calls++;
      return { sql: `select ${String(key)}`, values: [] };
    };
    const read = query('fields=id');
    expect(rememberedJsonRead(ctx, admin, 'articles', read, { form: 'api', key: 3 }, inline)?.sql).to.equal('select 3');
    expect(calls, 'with its key and another, the first time').to.equal(2);
    for (const key of [4, 5, 3])
      expect(rememberedJsonRead(ctx, admin, 'articles', read, { form: 'api', key }, inline)?.sql).to.equal(
        `select ${key}`,
      );
    expect(calls).to.equal(5);
  });

  it('$NOW is compiled each time; $CURRENT_USER once per user', () => {
    const overview = freshOverview();
    const now = query('fields=id&filter[published][_lte]=$NOW');
    const counted = compiler(overview, 'articles', now);
    remembered(overview, admin, 'articles', now, counted);
    remembered(overview, admin, 'articles', now, counted);
    expect(counted.calls).to.equal(2);

    const mine = query('fields=id&filter[title][_eq]=$CURRENT_USER');
    const perUser = compiler(overview, 'articles', mine);
    const other: Reader = { ...admin, accountability: who('00000000-0000-4000-8000-000000000002') };
    const first = remembered(overview, admin, 'articles', mine, perUser);
    remembered(overview, admin, 'articles', mine, perUser);
    const second = remembered(overview, other, 'articles', mine, perUser);
    expect(perUser.calls).to.equal(2);
    expect(first?.values).to.include(admin.accountability.user);
    expect(second?.values).to.include(other.accountability.user).and.not.include(admin.accountability.user);
  });

  it('a reader with permissions (their values read per request) is compiled each time', () => {
    const overview = freshOverview();
    const everything: ReadAccess = { rowFilter: () => null, readableFields: () => '*' };
    const limited: Reader = { access: everything, accountability: who('00000000-0000-4000-8000-000000000003', false) };
    const read = query('fields=id,title');
    const counted = compiler(overview, 'articles', read);
    remembered(overview, limited, 'articles', read, counted, 1);
    remembered(overview, limited, 'articles', read, counted, 1);
    remembered(overview, limited, 'articles', read, counted);
    expect(counted.calls).to.equal(3);
  });
});
