import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { hashPassword } from '../../../src/access/passwords.js';
import { dialectOf } from '../../../src/db/index.js';
import { toDatabaseTimestamp } from '../../../src/db/to-database-timestamp.js';

export interface ErrorBody {
  readonly errors: readonly { message: string; extensions: Record<string, unknown> }[];
}

/**
 * Asserts the response is exactly one error with `code` and `status`, and nothing else: no
 * data, no cookie, no further keys (the security cases' "nothing leaked").
 */
export async function expectOnlyError(res: Response, status: number, code: string): Promise<ErrorBody> {
  const body = (await res.json()) as ErrorBody;
  expect(res.status, JSON.stringify(body)).to.equal(status);
  expect(Object.keys(body)).to.deep.equal(['errors']);
  expect(body.errors).to.have.length(1);
  expect(body.errors[0]?.extensions['code']).to.equal(code);
  expect(res.headers.getSetCookie()).to.deep.equal([]);
  return body;
}

export interface RoleInput {
  readonly name?: string;
  readonly admin_access?: boolean;
  readonly app_access?: boolean;
  readonly ip_access?: string | null;
}

export async function createRole(db: Knex, input: RoleInput = {}): Promise<string> {
  const id = randomUUID();
  await db('svc_roles').insert({
    id,
    name: input.name ?? `role-${id.slice(0, 8)}`,
    admin_access: input.admin_access ?? false,
    app_access: input.app_access ?? true,
    ip_access: input.ip_access ?? null,
  });
  return id;
}

export interface UserInput {
  readonly email?: string;
  readonly password?: string | null;
  readonly status?: string;
  readonly role?: string | null;
  readonly provider?: string;
  readonly token?: string | null;
  readonly tfa_secret?: string | null;
}

export interface TestUser {
  readonly id: string;
  readonly email: string;
  readonly password: string;
}

/** Inserts a user straight into svc_users (argon2 password), by default active without role. */
export async function createUser(db: Knex, input: UserInput = {}): Promise<TestUser> {
  const id = randomUUID();
  const email = input.email ?? `user-${id.slice(0, 8)}@example.com`;
  const password = input.password === undefined ? `pw-${id}` : input.password;
  await db('svc_users').insert({
    id,
    email,
    password: password === null ? null : await hashPassword(password),
    status: input.status ?? 'active',
    role: input.role ?? null,
    provider: input.provider ?? 'default',
    token: input.token ?? null,
    tfa_secret: input.tfa_secret ?? null,
  });
  return { id, email, password: password ?? '' };
}

export function postJson(
  api: (path: string, init?: RequestInit) => Promise<Response>,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return api(path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

export interface SetCookie {
  readonly name: string;
  readonly value: string;
  /** Attribute names lower-cased; flag attributes map to ''. */
  readonly attributes: Readonly<Record<string, string>>;
}

/** The Set-Cookie headers of a response, parsed. */
export function setCookies(res: Response): SetCookie[] {
  return res.headers.getSetCookie().map((header) => {
    const [pair = '', ...attrs] = header.split(';').map((p) => p.trim());
    const eq = pair.indexOf('=');
    const attributes: Record<string, string> = {};
    for (const attr of attrs) {
      const i = attr.indexOf('=');
      if (i === -1) attributes[attr.toLowerCase()] = '';
      else attributes[attr.slice(0, i).toLowerCase()] = attr.slice(i + 1);
    }
    return { name: pair.slice(0, eq), value: decodeURIComponent(pair.slice(eq + 1)), attributes };
  });
}

export function cookieNamed(res: Response, name: string): SetCookie {
  const cookie = setCookies(res).find((c) => c.name === name);
  expect(cookie, `Set-Cookie ${name}`).to.not.equal(undefined);
  return cookie as SetCookie;
}

/** Decodes a JWT's payload without verifying it. */
export function jwtPayload(token: string): Record<string, unknown> {
  const part = token.split('.')[1] ?? '';
  return JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>;
}

/** True when the caller of `init` is seen as a user: /server/info shows `version` only then. */
export async function isAuthenticated(
  api: (path: string, init?: RequestInit) => Promise<Response>,
  init: RequestInit,
): Promise<boolean> {
  const res = await api('/server/info', init);
  expect(res.status).to.equal(200);
  const body = (await res.json()) as { data: Record<string, unknown> };
  return body.data['version'] !== undefined;
}

/** `date` as the database of `db` stores timestamps (for rows written straight into it). */
export function dbTimestamp(db: Knex, date: Date): Date | string {
  return toDatabaseTimestamp(date, dialectOf(db));
}

/** A timestamp column read back: a Date (PostgreSQL, MySQL) or SQLite's UTC text. */
export function fromDbTimestamp(value: unknown): Date {
  if (value instanceof Date) return value;
  if (typeof value === 'string')
    return new Date(`${value.replace(' ', 'T')}${/Z|[+-]\d\d:?\d\d$/.test(value) ? '' : 'Z'}`);
  throw new Error(`not a timestamp: ${String(value)}`);
}
