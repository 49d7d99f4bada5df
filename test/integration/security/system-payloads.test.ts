import { expect } from 'chai';
import { describeEachDatabase, TEST_ADMIN, type ServerContext } from '../../support/server.js';
import { capturingLogger } from '../../support/capturing-logger.js';
import { PermissionStore } from '../../../src/access/permission-store.js';
import { createQueryFixture } from '../query/fixture-schema.js';
import { asAdmin, call, dataOf, grant, type JsonResponse } from '../access/permission-helpers.js';
import { graphql } from '../graphql/graphql-client.js';
import { createUser } from '../auth/helpers.js';

/*
 * System items every later request reads (permissions, roles, presets, users) are checked when
 * they are written: a payload the service could not use is a 400 and writes nothing, through
 * every door (REST one and batch, GraphQL). Rows written around those checks (straight into the
 * database, or made stale by a schema change) grant nothing instead of failing every request.
 */

type Row = Record<string, unknown>;

function expectError(res: JsonResponse, status: number, code: string, field?: string): void {
  expect(res.status, JSON.stringify(res.body)).to.equal(status);
  expect(Object.keys(res.body ?? {})).to.deep.equal(['errors']);
  const [error] = res.body?.['errors'] as { message: string; extensions: Row }[];
  expect(error?.extensions['code'], JSON.stringify(res.body)).to.equal(code);
  if (field !== undefined) expect(error?.extensions['field'], JSON.stringify(res.body)).to.equal(field);
}

const count = async (ctx: ServerContext, table: string): Promise<number> => {
  const [row] = await ctx.server.db(table).count<Row[]>({ n: '*' });
  return Number(row?.['n']);
};

/** The public caller's everyday requests: none may fail because of a permission row. */
async function expectPublicRequestsWork(ctx: ServerContext): Promise<void> {
  expectError(await call(ctx, undefined, 'GET', '/items/nope'), 403, 'FORBIDDEN');
  expect((await call(ctx, undefined, 'GET', '/server/specs/oas')).status).to.equal(200);
  const gql = await call(ctx, undefined, 'POST', '/graphql', { query: '{ __typename }' });
  expect(gql.status, JSON.stringify(gql.body)).to.equal(200);
}

describeEachDatabase('system payloads are checked when written', (ctx) => {
  before(async () => {
    await createQueryFixture(ctx());
  });

  describe('/permissions', () => {
    const base = { role: null, collection: 'articles', action: 'read', fields: ['*'] };
    const bad: readonly (readonly [string, Row, string])[] = [
      ['permissions that are not an object', { permissions: 'x' }, 'permissions'],
      ['permissions that are a list', { permissions: [{ views: { _eq: 1 } }] }, 'permissions'],
      ['validation that is not an object', { validation: 'x' }, 'validation'],
      ['presets that are not an object', { presets: 'x' }, 'presets'],
      ['an unknown action', { action: 'nope' }, 'action'],
      ['an unknown collection', { collection: 'nope' }, 'collection'],
      ['a filter on an unknown field', { permissions: { nope: { _eq: 1 } } }, 'permissions'],
      ['a filter value of the wrong type', { permissions: { views: { _eq: 'abc' } } }, 'permissions'],
      ['an operator the field type lacks', { permissions: { views: { _contains: 'a' } } }, 'permissions'],
      ['a malformed $NOW', { permissions: { published: { _lt: '$NOW(garbage)' } } }, 'permissions'],
      [
        'a $CURRENT_USER path naming no field',
        { permissions: { title: { _eq: '$CURRENT_USER.nope' } } },
        'permissions',
      ],
      ['a validation on an unknown field', { action: 'create', validation: { nope: { _nnull: true } } }, 'validation'],
      ['a field that does not exist (text)', { fields: 'x' }, 'fields'],
      ['a field that does not exist (list)', { fields: ['nope'] }, 'fields'],
    ];
    for (const [what, payload, field] of bad) {
      it(`refuses ${what} (400 FAILED_VALIDATION naming "${field}"), and public requests keep working`, async () => {
        const before = await count(ctx(), 'svc_permissions');
        expectError(
          await asAdmin(ctx(), 'POST', '/permissions', { ...base, ...payload }),
          400,
          'FAILED_VALIDATION',
          field,
        );
        expect(await count(ctx(), 'svc_permissions')).to.equal(before);
        await expectPublicRequestsWork(ctx());
      });
    }

    it('accepts filters, validations, presets and fields a read would accept', async () => {
      const created = dataOf<Row>(
        await asAdmin(ctx(), 'POST', '/permissions', [
          {
            ...base,
            permissions: {
              _or: [{ author: { name: { _eq: '$CURRENT_USER.email' } } }, { published: { _gte: '$NOW(-1 year)' } }],
            },
            fields: 'id,title,author',
          },
          {
            ...base,
            action: 'create',
            validation: { title: { _regex: '^[A-Z]', _nnull: true }, body: { _submitted: true } },
            presets: { status: 'draft' },
          },
          { ...base, action: 'share', permissions: {}, presets: null },
        ]),
      );
      expect(created).to.have.length(3);
      await ctx().server.db('svc_permissions').delete();
    });

    it('checks an update against the stored row: its filter, and all of it when it moves collection', async () => {
      const row = dataOf<Row>(
        await asAdmin(ctx(), 'POST', '/permissions', { ...base, permissions: { views: { _gt: 1 } } }),
      );
      const id = String(row['id']);
      expectError(
        await asAdmin(ctx(), 'PATCH', `/permissions/${id}`, { permissions: { nope: { _eq: 1 } } }),
        400,
        'FAILED_VALIDATION',
        'permissions',
      );
      // comments has no field "views": the stored filter does not fit the new collection.
      expectError(
        await asAdmin(ctx(), 'PATCH', `/permissions/${id}`, { collection: 'comments' }),
        400,
        'FAILED_VALIDATION',
        'permissions',
      );
      expectError(
        await asAdmin(ctx(), 'PATCH', '/permissions', { keys: [id], data: { action: 'nope' } }),
        400,
        'FAILED_VALIDATION',
        'action',
      );
      dataOf(await asAdmin(ctx(), 'PATCH', `/permissions/${id}`, { permissions: { views: { _lt: 9 } } }));
      expect(
        await ctx().server.db('svc_permissions').where({ id: row['id'] }).first<Row>('collection', 'action'),
      ).to.deep.equal({ collection: 'articles', action: 'read' });
      await ctx().server.db('svc_permissions').delete();
    });

    it('refuses a batch with one bad row whole', async () => {
      expectError(
        await asAdmin(ctx(), 'POST', '/permissions', [base, { ...base, action: 'update', permissions: 'x' }]),
        400,
        'FAILED_VALIDATION',
        'permissions',
      );
      expect(await count(ctx(), 'svc_permissions')).to.equal(0);
    });

    it('refuses the same through GraphQL system mutations', async () => {
      const res = await graphql(
        ctx(),
        'mutation { create_permissions_item(data: { collection: "articles", action: "nope", fields: ["*"] }) { id } }',
        { scope: 'system' },
      );
      expect(res.body.errors?.[0]?.extensions['code'], JSON.stringify(res.body)).to.equal('FAILED_VALIDATION');
      expect(await count(ctx(), 'svc_permissions')).to.equal(0);
    });
  });

  describe('stored rows the service cannot use', () => {
    const unusable: readonly Row[] = [
      { collection: 'articles', action: 'read', permissions: '"x"', fields: '*' },
      { collection: 'articles', action: 'nope', fields: '*' },
      { collection: 'articles', action: 'read', permissions: '{"published":{"_lt":"$NOW(garbage)"}}', fields: '*' },
      { collection: 'articles', action: 'read', permissions: '{"title":{"_eq":"$CURRENT_USER.gone"}}', fields: '*' },
    ];

    afterEach(async () => {
      await ctx().server.db('svc_permissions').delete();
      await ctx().server.schema.invalidate();
    });

    it('grant nothing, log a warning once each, and leave the other rows working', async () => {
      // Only SQLite's json columns hold text that is not JSON at all.
      const rows = [
        ...unusable,
        ...(ctx().dialect === 'sqlite'
          ? [{ collection: 'articles', action: 'read', validation: '{oops', fields: '*' }]
          : []),
      ];
      await ctx()
        .server.db('svc_permissions')
        .insert(rows.map((row) => ({ role: null, ...row })));
      await grant(ctx(), null, [{ collection: 'comments', action: 'read', fields: ['id', 'text'] }]);
      await expectPublicRequestsWork(ctx());
      expect((await call(ctx(), undefined, 'GET', '/items/comments')).status).to.equal(200);
      expectError(await call(ctx(), undefined, 'GET', '/items/articles'), 403, 'FORBIDDEN');

      const lines: Row[] = [];
      const store = new PermissionStore(ctx().server.db, { enabled: false, log: capturingLogger(lines) });
      const overview = await ctx().server.schema.getOverview();
      for (let i = 0; i < 3; i++) {
        const rules = await store.rulesFor(null, false, overview);
        expect([...rules.byCollection.keys()]).to.deep.equal(['comments']);
      }
      const warnings = lines.filter((line) => line['level'] === 40).map((line) => String(line['msg']));
      expect(warnings).to.have.length(rows.length);
      const text = warnings.join('\n');
      for (const problem of ['permissions is not', 'unknown action "nope"', '$NOW(garbage)', '$CURRENT_USER.gone'])
        expect(text).to.include(problem);
    });
  });

  describe('/roles', () => {
    for (const ipAccess of ['notalist', ['999.1.1.1'], ['10.0.0.0/33'], [7]]) {
      it(`refuses ip_access ${JSON.stringify(ipAccess)}`, async () => {
        const before = await count(ctx(), 'svc_roles');
        expectError(
          await asAdmin(ctx(), 'POST', '/roles', { name: 'Bad', ip_access: ipAccess }),
          400,
          'FAILED_VALIDATION',
          'ip_access',
        );
        expect(await count(ctx(), 'svc_roles')).to.equal(before);
      });
    }

    it('accepts addresses and ranges of both families, and checks updates too', async () => {
      const role = dataOf<Row>(
        await asAdmin(ctx(), 'POST', '/roles', { name: 'Office', ip_access: ['10.0.0.0/8', '::1', '192.168.1.7'] }),
      );
      expect(role['ip_access']).to.deep.equal(['10.0.0.0/8', '::1', '192.168.1.7']);
      const id = String(role['id']);
      expectError(
        await asAdmin(ctx(), 'PATCH', `/roles/${id}`, { ip_access: ['1.2.3'] }),
        400,
        'FAILED_VALIDATION',
        'ip_access',
      );
      expect((await asAdmin(ctx(), 'DELETE', `/roles/${id}`)).status).to.equal(204);
    });
  });

  describe('/presets', () => {
    const bad: readonly (readonly [string, Row, string])[] = [
      ['an unknown collection', { collection: 'nope' }, 'collection'],
      ['a filter that is not an object', { collection: 'articles', filter: 'x' }, 'filter'],
      ['layout_query that is not an object', { collection: 'articles', layout_query: 'x' }, 'layout_query'],
      ['a filter on an unknown field', { collection: 'articles', filter: { nope: { _eq: 1 } } }, 'filter'],
    ];
    for (const [what, payload, field] of bad) {
      it(`refuses ${what}`, async () => {
        const before = await count(ctx(), 'svc_presets');
        expectError(await asAdmin(ctx(), 'POST', '/presets', payload), 400, 'FAILED_VALIDATION', field);
        expect(await count(ctx(), 'svc_presets')).to.equal(before);
      });
    }

    it('accepts a usable preset, and checks an update against its collection', async () => {
      const preset = dataOf<Row>(
        await asAdmin(ctx(), 'POST', '/presets', {
          collection: 'articles',
          bookmark: 'Popular',
          filter: { views: { _gt: 10 } },
          layout_query: { tabular: { sort: ['-views'] } },
        }),
      );
      const id = String(preset['id']);
      expectError(
        await asAdmin(ctx(), 'PATCH', `/presets/${id}`, { filter: { views: { _eq: 'many' } } }),
        400,
        'FAILED_VALIDATION',
        'filter',
      );
      expectError(
        await asAdmin(ctx(), 'PATCH', `/presets/${id}`, { collection: 'comments' }),
        400,
        'FAILED_VALIDATION',
        'filter',
      );
      expect((await asAdmin(ctx(), 'DELETE', `/presets/${id}`)).status).to.equal(204);
    });
  });

  describe('/users', () => {
    it('an e-mail address another user has in another case is RECORD_NOT_UNIQUE', async () => {
      const before = await count(ctx(), 'svc_users');
      expectError(
        await asAdmin(ctx(), 'POST', '/users', { email: TEST_ADMIN.email.toUpperCase() }),
        400,
        'RECORD_NOT_UNIQUE',
        'email',
      );
      // Also against a row written in mixed case before addresses were lower-cased.
      await createUser(ctx().server.db, { email: 'Legacy.Case@Example.com' });
      expectError(
        await asAdmin(ctx(), 'POST', '/users', { email: 'legacy.case@example.com' }),
        400,
        'RECORD_NOT_UNIQUE',
        'email',
      );
      expect(await count(ctx(), 'svc_users')).to.equal(before + 1);
    });

    it('stores e-mail addresses lower-cased; login takes any case', async () => {
      const user = dataOf<Row>(
        await asAdmin(ctx(), 'POST', '/users', { email: 'Mixed.Case@Example.com', password: 'a-password-1' }),
      );
      expect(user['email']).to.equal('mixed.case@example.com');
      const login = await call(ctx(), undefined, 'POST', '/auth/login', {
        email: 'MIXED.case@example.COM',
        password: 'a-password-1',
      });
      expect(login.status, JSON.stringify(login.body)).to.equal(200);
      const other = dataOf<Row>(await asAdmin(ctx(), 'POST', '/users', { email: 'other@example.com' }));
      expectError(
        await asAdmin(ctx(), 'PATCH', `/users/${String(other['id'])}`, { email: 'Mixed.CASE@example.com' }),
        400,
        'RECORD_NOT_UNIQUE',
        'email',
      );
      // The user's own address in another case is theirs.
      dataOf(await asAdmin(ctx(), 'PATCH', `/users/${String(other['id'])}`, { email: 'OTHER@example.com' }));
    });

    for (const [what, payload, field] of [
      ['an e-mail that is not one', { email: 'notanemail' }, 'email'],
      ['an unknown status', { email: 'status@example.com', status: 'nope' }, 'status'],
    ] as const) {
      it(`refuses ${what} (FAILED_VALIDATION)`, async () => {
        const before = await count(ctx(), 'svc_users');
        expectError(await asAdmin(ctx(), 'POST', '/users', payload), 400, 'FAILED_VALIDATION', field);
        expect(await count(ctx(), 'svc_users')).to.equal(before);
      });
    }
  });
});
