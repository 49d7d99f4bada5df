import type { Knex } from 'knex';
import type { Accountability } from '../access/accountability.js';
import { publicAccountability } from '../access/accountability.js';
import { InvalidCredentialsError } from '../errors.js';
import { isOurJwt, verifyAccessToken } from './access-token.js';

export type RequestOrigin = Pick<Accountability, 'ip' | 'userAgent' | 'origin'>;

/**
 * Turns a token (or its absence) into the caller's accountability (reference/auth.md):
 * our JWTs are verified; any other string must be the static token of an active user.
 */
export async function authenticate(
  db: Knex,
  secret: string,
  token: string | undefined,
  request: RequestOrigin,
): Promise<Accountability> {
  if (token === undefined) return publicAccountability(request);
  if (isOurJwt(token)) {
    const claims = verifyAccessToken(token, secret);
    return Object.freeze({
      user: claims.id,
      role: claims.role,
      admin: claims.admin_access,
      app: claims.app_access,
      ...request,
    });
  }
  const row = await db('svc_users as u')
    .leftJoin('svc_roles as r', 'r.id', 'u.role')
    .where({ 'u.token': token, 'u.status': 'active' })
    .first<{ id: string; role: string | null; admin_access: unknown; app_access: unknown } | undefined>(
      'u.id',
      'u.role',
      'r.admin_access',
      'r.app_access',
    );
  if (row === undefined) throw new InvalidCredentialsError();
  return Object.freeze({
    user: row.id,
    role: row.role,
    admin: Boolean(row.admin_access),
    app: Boolean(row.app_access),
    ...request,
  });
}
