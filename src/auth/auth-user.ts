import type { Knex } from 'knex';
import type { QueryBuilder } from 'objection';
import { UserModel } from '../db/models/system-models.js';

/** What authentication needs to know about a user and its role. */
export interface AuthUser {
  readonly id: string;
  readonly email: string | null;
  /** argon2 hash; null when the user has no password (SSO, invited). */
  readonly password: string | null;
  readonly status: string;
  readonly provider: string;
  readonly tfaSecret: string | null;
  readonly role: string | null;
  readonly adminAccess: boolean;
  readonly appAccess: boolean;
  /** svc_roles.ip_access as stored (CSV). */
  readonly ipAccess: string | null;
}

/** The user with this e-mail address, compared case-insensitively. */
export function findUserByEmail(db: Knex, email: string): Promise<AuthUser | undefined> {
  return findUser(db, (q) => q.whereRaw('LOWER(??) = ?', ['svc_users.email', email.toLowerCase()]));
}

/** The user of this id; none for an id that is not a UUID (PostgreSQL would reject it outright). */
export async function findUserById(db: Knex, id: string): Promise<AuthUser | undefined> {
  if (!isUserId(id)) return undefined;
  return findUser(db, (q) => q.where('svc_users.id', id));
}

/**
 * The users of these ids, in one query (ids that are not UUIDs name no user). For lookups that
 * come many at once: a live delivery authenticates every subscriber's token again.
 */
export async function findUsersByIds(db: Knex, ids: readonly string[]): Promise<Map<string, AuthUser>> {
  const valid = ids.filter(isUserId);
  const users = valid.length === 0 ? [] : await findUsers(db, (q) => q.whereIn('svc_users.id', valid));
  return new Map(users.map((user) => [user.id, user]));
}

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** svc_users keys are UUIDs: anything else names no user. */
export function isUserId(id: string): boolean {
  return UUID_PATTERN.test(id);
}

/** The user an SSO provider knows as `identifier` (svc_users.provider + external_identifier). */
export function findUserByExternalIdentifier(
  db: Knex,
  provider: string,
  identifier: string,
): Promise<AuthUser | undefined> {
  return findUser(db, (q) => q.where({ 'svc_users.provider': provider, 'svc_users.external_identifier': identifier }));
}

/** The active user whose static token is `token`. */
export function findActiveUserByToken(db: Knex, token: string): Promise<AuthUser | undefined> {
  return findUser(db, (q) => q.where({ 'svc_users.token': token, 'svc_users.status': 'active' }));
}

async function findUser(
  db: Knex,
  where: (query: QueryBuilder<UserModel>) => QueryBuilder<UserModel>,
): Promise<AuthUser | undefined> {
  const user = await where(usersQuery(db)).first();
  return user === undefined ? undefined : authUserOf(user);
}

async function findUsers(
  db: Knex,
  where: (query: QueryBuilder<UserModel>) => QueryBuilder<UserModel>,
): Promise<AuthUser[]> {
  return (await where(usersQuery(db))).map(authUserOf);
}

function usersQuery(db: Knex): QueryBuilder<UserModel> {
  return (
    UserModel.query(db)
      .select(AUTH_USER_COLUMNS.map((c) => `svc_users.${c}`))
      // A plain left join (a modifier selecting fewer role columns would make it a subquery).
      .withGraphJoined('assignedRole')
  );
}

function authUserOf(user: UserModel): AuthUser {
  const role = user.assignedRole ?? undefined;
  return {
    id: user.id,
    email: user.email,
    password: user.password,
    status: user.status,
    provider: user.provider,
    tfaSecret: user.tfaSecret,
    role: user.role,
    // No role means no flags.
    adminAccess: role?.adminAccess ?? false,
    appAccess: role?.appAccess ?? false,
    ipAccess: role?.ipAccess ?? null,
  };
}

const AUTH_USER_COLUMNS = ['id', 'email', 'password', 'status', 'provider', 'tfa_secret', 'role'] as const;

/** svc_users.last_page holds at most this many characters. */
export const LAST_PAGE_MAX_LENGTH = 255;

/**
 * PATCH /users/me/track/page: the page the user is on,
 * written whatever their update permissions, and not an item write (no activity, no revision).
 */
export async function trackLastPage(db: Knex, id: string, page: string): Promise<void> {
  await UserModel.query(db).findById(id).patch({ lastPage: page });
}
