import {
  GraphQLBoolean,
  GraphQLEnumType,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLString,
  type GraphQLFieldConfigMap,
} from 'graphql';
import { disableTfa, enableTfa, generateTfa, type TfaStore } from '../auth/tfa.js';
import { InvalidCredentialsError } from '../errors.js';
import type { AuthOperations, GraphqlContext, TokenData } from './context.js';
import { canWrite, type SchemaAccess } from '../access/role-schema-access.js';
import { GraphQLBigInt } from './scalars.js';

type RootFields = GraphQLFieldConfigMap<unknown, GraphqlContext>;

const AUTH_MODE = new GraphQLEnumType({ name: 'auth_mode', values: { json: {}, cookie: {}, session: {} } });

/** `expires` as a string (`"900000"`); the refresh token null when it went into a cookie. */
const AUTH_TOKENS = new GraphQLObjectType({
  name: 'auth_tokens',
  fields: {
    access_token: { type: GraphQLString },
    expires: { type: GraphQLBigInt },
    refresh_token: { type: GraphQLString },
  },
});

const TFA_SETUP = new GraphQLObjectType({
  name: 'users_me_tfa_generate_data',
  fields: { secret: { type: GraphQLString }, otpauth_url: { type: GraphQLString } },
});

const requiredString = { type: new GraphQLNonNull(GraphQLString) };
const optionalString = { type: GraphQLString };

/**
 * The auth mutations of the system scope: in every role's schema, the
 * public one included, since they are how a caller gets a token. Login, refresh, logout and
 * password reset run /auth's operations (same checks, errors and cookies); TFA needs a user.
 */
export function addAuthRoots(mutation: RootFields, access: SchemaAccess): void {
  mutation['auth_login'] = {
    type: AUTH_TOKENS,
    args: { email: requiredString, password: requiredString, mode: { type: AUTH_MODE }, otp: optionalString },
    resolve: async (_r, args: Record<string, unknown>, ctx) => toTokens(await ctx.system.auth.login(body(args))),
  };
  mutation['auth_refresh'] = {
    type: AUTH_TOKENS,
    args: { refresh_token: optionalString, mode: { type: AUTH_MODE } },
    resolve: async (_r, args: Record<string, unknown>, ctx) => toTokens(await ctx.system.auth.refresh(body(args))),
  };
  mutation['auth_logout'] = {
    type: GraphQLBoolean,
    args: { refresh_token: optionalString, mode: { type: AUTH_MODE } },
    resolve: async (_r, args: Record<string, unknown>, ctx) => {
      await ctx.system.auth.logout(body(args));
      return true;
    },
  };
  mutation['auth_password_request'] = {
    type: GraphQLBoolean,
    args: { email: requiredString, reset_url: optionalString },
    resolve: async (_r, args: Record<string, unknown>, ctx) => {
      await ctx.system.auth.requestPasswordReset(body(args));
      return true;
    },
  };
  mutation['auth_password_reset'] = {
    type: GraphQLBoolean,
    args: { token: requiredString, password: requiredString },
    resolve: async (_r, args: Record<string, unknown>, ctx) => {
      await ctx.system.auth.resetPassword(body(args));
      return true;
    },
  };
  addAccountRoots(mutation, access);
  mutation['users_me_tfa_generate'] = {
    type: TFA_SETUP,
    args: { password: requiredString },
    resolve: (_r, args: { password: string }, ctx) => generateTfa(ctx.commands.db, currentUser(ctx), args.password),
  };
  mutation['users_me_tfa_enable'] = {
    type: GraphQLBoolean,
    args: { otp: requiredString, secret: requiredString },
    resolve: async (_r, args: { otp: string; secret: string }, ctx) => {
      await enableTfa(tfaStoreOf(ctx), currentUser(ctx), args.secret, args.otp);
      return true;
    },
  };
  mutation['users_me_tfa_disable'] = {
    type: GraphQLBoolean,
    args: { otp: requiredString },
    resolve: async (_r, args: { otp: string }, ctx) => {
      await disableTfa(tfaStoreOf(ctx), currentUser(ctx), args.otp);
      return true;
    },
  };
}

/**
 * Invites and registration: the /users routes' operations. Inviting
 * exists where the role may create users; accepting, registering and verifying are public.
 */
function addAccountRoots(mutation: RootFields, access: SchemaAccess): void {
  const run =
    (operation: (auth: AuthOperations, body: Record<string, unknown>) => Promise<unknown>) =>
    async (_r: unknown, args: Record<string, unknown>, ctx: GraphqlContext) => {
      await operation(ctx.system.auth, body(args));
      return true;
    };
  if (canWrite(access, 'create', 'svc_users')) {
    mutation['users_invite'] = {
      type: GraphQLBoolean,
      args: { email: requiredString, role: requiredString, invite_url: optionalString },
      resolve: run((auth, input) => auth.invite(input)),
    };
  }
  mutation['users_invite_accept'] = {
    type: GraphQLBoolean,
    args: { token: requiredString, password: requiredString },
    resolve: run((auth, input) => auth.acceptInvite(input)),
  };
  mutation['users_register'] = {
    type: GraphQLBoolean,
    args: {
      email: requiredString,
      password: requiredString,
      verification_url: optionalString,
      first_name: optionalString,
      last_name: optionalString,
    },
    resolve: run((auth, input) => auth.register(input)),
  };
  mutation['users_register_verify'] = {
    type: GraphQLBoolean,
    args: { token: requiredString },
    resolve: run((auth, input) => auth.verifyRegistration(input)),
  };
}

/** The arguments given, as the REST body of the same operation. */
function body(args: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(args).filter(([, value]) => value !== null && value !== undefined));
}

function toTokens(data: TokenData): Record<string, unknown> {
  return {
    access_token: data.access_token ?? null,
    expires: String(data.expires),
    refresh_token: data.refresh_token ?? null,
  };
}

/** The `me` operations without a user are INVALID_CREDENTIALS. */
export function currentUser(ctx: GraphqlContext): string {
  const user = ctx.reader.accountability.user;
  if (user === null) throw new InvalidCredentialsError();
  return user;
}

/** The TFA writes of a GraphQL request, cache purge included, as REST's (auth/tfa.ts). */
function tfaStoreOf(ctx: GraphqlContext): TfaStore {
  return { db: ctx.commands.db, changed: async (collections) => ctx.commands.purgeCache?.(collections) };
}
