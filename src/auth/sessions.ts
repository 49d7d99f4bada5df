import type { Knex } from 'knex';
import { customAlphabet } from 'nanoid';
import { dialectOf } from '../db/index.js';
import { toDatabaseTimestamp } from '../db/to-database-timestamp.js';
import type { RequestOrigin } from './authenticate.js';

// reference/auth.md, login 6: 64-char URL-safe refresh tokens (the svc_sessions PK).
const generateToken = customAlphabet('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-', 64);

/** A live svc_sessions row. */
export interface Session {
  readonly token: string;
  readonly user: string | null;
  /** Set once a session-mode refresh rotated this session (grace period). */
  readonly nextToken: string | null;
}

/** Inserts a session for `user` lasting `ttlMs` and returns its refresh token. */
export async function createSession(db: Knex, user: string, ttlMs: number, origin: RequestOrigin): Promise<string> {
  const token = generateToken();
  await db('svc_sessions').insert({
    token,
    user,
    expires: inMs(db, ttlMs),
    ip: origin.ip,
    user_agent: origin.userAgent,
    origin: origin.origin,
  });
  return token;
}

/** The unexpired session of `token`, if any. */
export async function findSession(db: Knex, token: string): Promise<Session | undefined> {
  const row = await db('svc_sessions')
    .where('token', token)
    .where('expires', '>', inMs(db, 0))
    .first<{ token: string; user: string | null; next_token: string | null } | undefined>(
      'token',
      'user',
      'next_token',
    );
  return row === undefined ? undefined : { token: row.token, user: row.user, nextToken: row.next_token };
}

/**
 * Replaces the token of a live session and extends it (reference/auth.md, Rotation). The
 * old token is dead at once; of two concurrent rotations only one wins (undefined = lost).
 */
export async function rotateSession(db: Knex, token: string, ttlMs: number): Promise<string | undefined> {
  const next = generateToken();
  const updated = await db('svc_sessions')
    .where('token', token)
    .where('expires', '>', inMs(db, 0))
    .whereNull('next_token')
    .update({ token: next, expires: inMs(db, ttlMs) });
  return updated === 1 ? next : undefined;
}

/**
 * Session mode: a successor session is created and the old one keeps working for
 * `graceMs` (SESSION_REFRESH_GRACE_PERIOD), so requests in flight with the previous session
 * cookie still succeed. A second refresh of the old session within the grace period gets the
 * same successor. Undefined when the old session is gone.
 */
export async function succeedSession(
  db: Knex,
  session: Session,
  ttlMs: number,
  graceMs: number,
  origin: RequestOrigin,
): Promise<string | undefined> {
  if (session.nextToken !== null) return session.nextToken;
  if (session.user === null) return undefined;
  const next = await createSession(db, session.user, ttlMs, origin);
  const updated = await db('svc_sessions')
    .where('token', session.token)
    .whereNull('next_token')
    .update({ next_token: next, expires: inMs(db, graceMs) });
  if (updated === 1) return next;
  // A concurrent refresh won: use its successor, drop ours.
  await db('svc_sessions').where('token', next).delete();
  return (await findSession(db, session.token))?.nextToken ?? undefined;
}

/** Deletes the session of `token` (and its session-mode successor). Unknown tokens are ignored. */
export async function deleteSession(db: Knex, token: string): Promise<void> {
  const row = await db('svc_sessions')
    .where('token', token)
    .first<{ next_token: string | null } | undefined>('next_token');
  const tokens = row?.next_token == null ? [token] : [token, row.next_token];
  await db('svc_sessions').whereIn('token', tokens).delete();
}

export async function deleteExpiredSessions(db: Knex): Promise<void> {
  await db('svc_sessions').where('expires', '<=', inMs(db, 0)).delete();
}

/** Now plus `ms`, as the database stores timestamps. */
function inMs(db: Knex, ms: number): Date | string {
  return toDatabaseTimestamp(new Date(Date.now() + ms), dialectOf(db));
}
