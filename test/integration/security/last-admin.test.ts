import { expect } from 'chai';
import { describeEachDatabase, TEST_ADMIN, type ServerContext } from '../../support/server.js';
import { asAdmin, call, dataOf, type JsonResponse } from '../access/permission-helpers.js';
import { graphql } from '../graphql/graphql-client.js';
import { createUser } from '../auth/helpers.js';

/*
 * docs/errors.md: removing the last administrator is 422 UNPROCESSABLE_ENTITY, whichever door
 * the write comes through, and the write leaves nothing behind: the instance stays reachable.
 */

type Row = Record<string, unknown>;

function expectUnprocessable(res: JsonResponse): void {
  expect(res.status, JSON.stringify(res.body)).to.equal(422);
  expect(Object.keys(res.body ?? {})).to.deep.equal(['errors']);
  const [error] = res.body?.['errors'] as { extensions: Row }[];
  expect(error?.extensions['code']).to.equal('UNPROCESSABLE_ENTITY');
}

describeEachDatabase('the last administrator', (ctx) => {
  let admin: string;
  let adminRole: string;
  let snapshot: Row[];

  const users = async (c: ServerContext) =>
    c.server.db('svc_users').orderBy('id').select<Row[]>('id', 'role', 'status');

  before(async () => {
    const row = await ctx().server.db('svc_users').where({ email: TEST_ADMIN.email }).first<Row>('id', 'role');
    admin = String(row['id']);
    adminRole = String(row['role']);
  });

  beforeEach(async () => {
    snapshot = await users(ctx());
  });

  afterEach(async () => {
    // Nothing changed, and the administrator still gets in.
    expect(await users(ctx())).to.deep.equal(snapshot);
    expect(await ctx().server.db('svc_roles').where({ id: adminRole }).first<Row>('id')).to.not.equal(undefined);
    expect((await asAdmin(ctx(), 'GET', '/users/me')).status).to.equal(200);
  });

  const doors: readonly (readonly [string, () => Promise<JsonResponse>])[] = [
    ['PATCH /users/:id {role: null}', () => asAdmin(ctx(), 'PATCH', `/users/${admin}`, { role: null })],
    ['PATCH /users/me {role: null}', () => asAdmin(ctx(), 'PATCH', '/users/me', { role: null })],
    ['PATCH /users/:id {status: suspended}', () => asAdmin(ctx(), 'PATCH', `/users/${admin}`, { status: 'suspended' })],
    ['PATCH /users {keys, data}', () => asAdmin(ctx(), 'PATCH', '/users', { keys: [admin], data: { role: null } })],
    ['PATCH /users [items]', () => asAdmin(ctx(), 'PATCH', '/users', [{ id: admin, status: 'archived' }])],
    ['DELETE /users/:id', () => asAdmin(ctx(), 'DELETE', `/users/${admin}`)],
    ['DELETE /users [keys]', () => asAdmin(ctx(), 'DELETE', '/users', [admin])],
    [
      'PATCH /roles/:id {admin_access: false}',
      () => asAdmin(ctx(), 'PATCH', `/roles/${adminRole}`, { admin_access: false }),
    ],
    ['PATCH /roles/:id {users: []}', () => asAdmin(ctx(), 'PATCH', `/roles/${adminRole}`, { users: [] })],
    ['DELETE /roles/:id', () => asAdmin(ctx(), 'DELETE', `/roles/${adminRole}`)],
    ['DELETE /roles [keys]', () => asAdmin(ctx(), 'DELETE', '/roles', [adminRole])],
  ];
  for (const [door, request] of doors) {
    it(`${door} is 422 UNPROCESSABLE_ENTITY`, async () => expectUnprocessable(await request()));
  }

  it('GraphQL: update_users_item and delete_roles_item are UNPROCESSABLE_ENTITY', async () => {
    for (const mutation of [
      `mutation { update_users_item(id: "${admin}", data: { role: null }) { id } }`,
      `mutation { delete_roles_item(id: "${adminRole}") { id } }`,
    ]) {
      const res = await graphql(ctx(), mutation, { scope: 'system' });
      expect(res.body.errors?.[0]?.extensions['code'], JSON.stringify(res.body)).to.equal('UNPROCESSABLE_ENTITY');
    }
  });

  it('with a second active administrator, either may go, but not both', async () => {
    const second = await createUser(ctx().server.db, { role: adminRole, token: 'second-admin-token' });
    try {
      dataOf(await asAdmin(ctx(), 'PATCH', `/users/${second.id}`, { status: 'suspended' }));
      expectUnprocessable(await asAdmin(ctx(), 'PATCH', `/users/${admin}`, { role: null }));
      dataOf(await asAdmin(ctx(), 'PATCH', `/users/${second.id}`, { status: 'active' }));
      // Removing both in one request is refused whole.
      expectUnprocessable(await asAdmin(ctx(), 'PATCH', '/users', { keys: [admin, second.id], data: { role: null } }));
      // The second one leaves its own admin role: fine while the first remains.
      expect((await call(ctx(), 'second-admin-token', 'PATCH', '/users/me', { role: null })).status).to.equal(200);
    } finally {
      await ctx().server.db('svc_users').where({ id: second.id }).delete();
    }
  });

  it('other writes to users and roles are not held up', async () => {
    const role = dataOf<Row>(await asAdmin(ctx(), 'POST', '/roles', { name: 'Staff' }));
    const user = dataOf<Row>(await asAdmin(ctx(), 'POST', '/users', { email: 'staff@example.com', role: role['id'] }));
    dataOf(await asAdmin(ctx(), 'PATCH', `/users/${String(user['id'])}`, { status: 'suspended', role: null }));
    expect((await asAdmin(ctx(), 'DELETE', `/users/${String(user['id'])}`)).status).to.equal(204);
    dataOf(await asAdmin(ctx(), 'PATCH', `/roles/${String(role['id'])}`, { admin_access: false }));
    expect((await asAdmin(ctx(), 'DELETE', `/roles/${String(role['id'])}`)).status).to.equal(204);
    dataOf(await asAdmin(ctx(), 'PATCH', `/users/${admin}`, { first_name: 'Still', status: 'active' }));
    await ctx().server.db('svc_users').where({ id: admin }).update({ first_name: null });
  });
});
