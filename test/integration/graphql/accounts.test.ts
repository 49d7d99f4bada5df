import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { describeEachDatabase } from '../../support/server.js';
import { SmtpInbox } from '../../support/smtp-inbox.js';
import { createRole, postJson } from '../auth/helpers.js';
import { graphql, graphqlData } from './graphql-client.js';

const publicSystem = { scope: 'system', token: null } as const;

describe('graphql: invites and registration', () => {
  const inbox = new SmtpInbox();
  before(() => inbox.start());
  after(() => inbox.stop());

  describeEachDatabase(
    'users_invite, users_invite_accept, users_register, users_register_verify',
    (ctx) => {
      const db = () => ctx().server.db;
      const newEmail = () => `gql-${randomUUID().slice(0, 8)}@example.com`;
      const statusOf = async (email: string) =>
        (await db()('svc_users').where('email', email).first<{ status: string } | undefined>('status'))?.status;
      const login = (email: string, password: string) => postJson(ctx().api, '/auth/login', { email, password });
      const variables = (values: Record<string, unknown>) => ({ ...publicSystem, variables: values });

      it('users_invite (admin) then users_invite_accept (public) then login', async () => {
        const role = await createRole(db());
        const email = newEmail();
        const invited = await graphqlData(
          ctx(),
          'mutation ($email: String!, $role: String!) { users_invite(email: $email, role: $role) }',
          {
            scope: 'system',
            variables: { email, role },
          },
        );
        expect(invited).to.deep.equal({ users_invite: true });
        expect(await statusOf(email)).to.equal('invited');
        const token = (await inbox.nextLink(email)).searchParams.get('token');
        const accept =
          'mutation ($token: String!, $password: String!) { users_invite_accept(token: $token, password: $password) }';
        expect(await graphqlData(ctx(), accept, variables({ token, password: 'gql-password-1' }))).to.deep.equal({
          users_invite_accept: true,
        });
        expect(await statusOf(email)).to.equal('active');
        expect((await login(email, 'gql-password-1')).status).to.equal(200);
        const again = await graphql(ctx(), accept, variables({ token, password: 'gql-password-2' }));
        expect(again.body.data).to.deep.equal({ users_invite_accept: null });
        expect(again.body.errors?.map((e) => [e.extensions['code'], e.path])).to.deep.equal([
          ['INVALID_PAYLOAD', ['users_invite_accept']],
        ]);
      });

      it('users_invite does not exist for a role that may not create users', async () => {
        const res = await graphql(
          ctx(),
          `mutation { users_invite(email: "${newEmail()}", role: "${randomUUID()}") }`,
          publicSystem,
        );
        expect(res.status).to.equal(400);
        expect(res.body.errors?.[0]?.extensions['code']).to.equal('GRAPHQL_VALIDATION');
      });

      it('users_register then users_register_verify; refused while registration is off; bad tokens keep their codes', async () => {
        const register =
          'mutation ($email: String!, $password: String!) { users_register(email: $email, password: $password) }';
        const verify = 'mutation ($token: String!) { users_register_verify(token: $token) }';
        const closed = await graphql(ctx(), register, variables({ email: newEmail(), password: 'gql-password-1' }));
        expect(closed.body.errors?.map((e) => e.extensions['code'])).to.deep.equal(['FORBIDDEN']);
        await db()('svc_settings').update({ public_registration: true, public_registration_verify_email: true });
        try {
          const email = newEmail();
          expect(await graphqlData(ctx(), register, variables({ email, password: 'gql-password-1' }))).to.deep.equal({
            users_register: true,
          });
          expect(await statusOf(email)).to.equal('unverified');
          const token = (await inbox.nextLink(email)).searchParams.get('token');
          const bad = await graphql(ctx(), verify, variables({ token: 'not-a-jwt' }));
          expect(bad.body.errors?.map((e) => [e.extensions['code'], e.path])).to.deep.equal([
            ['INVALID_TOKEN', ['users_register_verify']],
          ]);
          expect(await graphqlData(ctx(), verify, variables({ token }))).to.deep.equal({ users_register_verify: true });
          expect(await statusOf(email)).to.equal('active');
        } finally {
          await db()('svc_settings').update({ public_registration: false });
        }
      });
    },
    { env: () => ({ ...inbox.env(), PUBLIC_URL: 'http://cds.test', LOGIN_STALL_TIME: '20' }) },
  );
});
