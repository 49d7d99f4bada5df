import type { Knex } from 'knex';
import { customAlphabet } from 'nanoid';
import { dialectOf } from '../db/index.js';
import { SessionModel } from '../db/models/system-models.js';
import { toDatabaseTimestamp } from '../db/to-database-timestamp.js';
import type { RequestOrigin } from '../access/accountability.js';

// 64-char URL-safe refresh tokens (the svc_sessions PK).
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
  await SessionModel.query(db).insert({
    token,
    user,
    expires: inMs(db, ttlMs),
    ip: origin.ip,
    userAgent: origin.userAgent,
    origin: origin.origin,
  });
  return token;
}

/** The unexpired session of `token`, if any. */
export async function findSession(db: Knex, token: string): Promise<Session | undefined> {
  const row = await SessionModel.query(db)
    .findById(token)
    .where('expires', '>', inMs(db, 0))
    .select('token', 'user', 'next_token');
  return row === undefined ? undefined : { token: row.token, user: row.user, nextToken: row.nextToken };
}

/**
 * Replaces the token of a live session and extends it. The
 * old token is dead at once; of two concurrent rotations only one wins (undefined = lost).
 */
export async function rotateSession(db: Knex, token: string, ttlMs: number): Promise<string | undefined> {
  const next = generateToken();
  const updated = await SessionModel.query(db)
    .findById(token)
    .where('expires', '>', inMs(db, 0))
    .whereNull('next_token')
    .patch({ token: next, expires: inMs(db, ttlMs) });
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
  const updated = await SessionModel.query(db)
    .findById(session.token)
    .whereNull('next_token')
    .patch({ nextToken: next, expires: inMs(db, graceMs) });
  if (updated === 1) return next;
  // A concurrent refresh won: use its successor, drop ours.
  await SessionModel.query(db).deleteById(next);
  return (await findSession(db, session.token))?.nextToken ?? undefined;
}

/** Deletes the session of `token` (and its session-mode successor). Unknown tokens are ignored. */
export async function deleteSession(db: Knex, token: string): Promise<void> {
  const row = await SessionModel.query(db).findById(token).select('next_token');
  const tokens = row?.nextToken == null ? [token] : [token, row.nextToken];
  await SessionModel.query(db).findByIds(tokens).delete();
}

export async function deleteExpiredSessions(db: Knex): Promise<void> {
  await SessionModel.query(db).where('expires', '<=', inMs(db, 0)).delete();
}

/** Now plus `ms`, as the database stores timestamps. */
function inMs(db: Knex, ms: number): Date | string {
  return toDatabaseTimestamp(new Date(Date.now() + ms), dialectOf(db));
}
