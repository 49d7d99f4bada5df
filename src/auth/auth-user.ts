import type { Knex } from 'knex';

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

interface AuthUserRow {
  id: string;
  email: string | null;
  password: string | null;
  status: string;
  provider: string;
  tfa_secret: string | null;
  role: string | null;
  admin_access: unknown;
  app_access: unknown;
  ip_access: string | null;
}

/** The user with this e-mail address, compared case-insensitively (reference/auth.md, login 1). */
export function findUserByEmail(db: Knex, email: string): Promise<AuthUser | undefined> {
  return findUser(db, (q) => q.whereRaw('LOWER(??) = ?', ['u.email', email.toLowerCase()]));
}

/** The user of this id; none for an id that is not a UUID (PostgreSQL would reject it outright). */
export async function findUserById(db: Knex, id: string): Promise<AuthUser | undefined> {
  if (!isUserId(id)) return undefined;
  return findUser(db, (q) => q.where('u.id', id));
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
  return findUser(db, (q) => q.where({ 'u.provider': provider, 'u.external_identifier': identifier }));
}

/** The active user whose static token is `token` (reference/auth.md, Static tokens). */
export function findActiveUserByToken(db: Knex, token: string): Promise<AuthUser | undefined> {
  return findUser(db, (q) => q.where({ 'u.token': token, 'u.status': 'active' }));
}

async function findUser(
  db: Knex,
  where: (query: Knex.QueryBuilder) => Knex.QueryBuilder,
): Promise<AuthUser | undefined> {
  const row = await where(
    db('svc_users as u')
      .leftJoin('svc_roles as r', 'r.id', 'u.role')
      .select(
        'u.id',
        'u.email',
        'u.password',
        'u.status',
        'u.provider',
        'u.tfa_secret',
        'u.role',
        'r.admin_access',
        'r.app_access',
        'r.ip_access',
      ),
  ).first<AuthUserRow | undefined>();
  if (row === undefined) return undefined;
  return {
    id: row.id,
    email: row.email,
    password: row.password,
    status: row.status,
    provider: row.provider,
    tfaSecret: row.tfa_secret,
    role: row.role,
    // SQLite and MySQL hand booleans back as 0/1; no role means no flags.
    adminAccess: Boolean(row.admin_access),
    appAccess: Boolean(row.app_access),
    ipAccess: row.ip_access,
  };
}

/** svc_users.last_page holds at most this many characters. */
export const LAST_PAGE_MAX_LENGTH = 255;

/**
 * PATCH /users/me/track/page (reference/routes.md, Users extras): the page the user is on,
 * written whatever their update permissions, and not an item write (no activity, no revision).
 */
export async function trackLastPage(db: Knex, id: string, page: string): Promise<void> {
  await db('svc_users').where('id', id).update({ last_page: page });
}
