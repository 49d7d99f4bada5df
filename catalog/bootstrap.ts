import { randomBytes, randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { migrate } from './migrate.js';
import { RoleModel, SettingsModel, UserModel } from '../src/db/models/system-models.js';

export interface BootstrapOptions {
  readonly adminEmail: string | undefined;
  readonly adminPassword: string | undefined;
  readonly adminToken: string | undefined;
  /** argon2 in production; passed in so the catalogue does not depend on auth. */
  readonly hashPassword: (password: string) => Promise<string>;
}

export interface BootstrapResult {
  readonly appliedMigrations: readonly string[];
  /** Set only on the start that created the first admin: print it once, never again. */
  readonly createdAdmin?: { readonly email: string; readonly password: string; readonly isGenerated: boolean };
}

const ADMIN_ROLE_NAME = 'Administrator';
const DEFAULT_ADMIN_EMAIL = 'admin@example.com';

/**
 * Migrates the catalogue and seeds what a fresh installation needs: the Administrator role,
 * the first admin user (only when no user exists) and the settings singleton. Idempotent:
 * a second run changes nothing.
 */
export async function bootstrap(db: Knex, options: BootstrapOptions): Promise<BootstrapResult> {
  const appliedMigrations = await migrate(db);
  const createdAdmin = await db.transaction(async (trx) => {
    const hasUsers = (await UserModel.query(trx).select('id').first()) !== undefined;
    const hasSettings = (await SettingsModel.query(trx).select('id').first()) !== undefined;
    if (!hasSettings) await SettingsModel.query(trx).insert({ id: 1 });
    if (hasUsers) return undefined;

    const password = options.adminPassword ?? randomBytes(12).toString('base64url');
    const roleId = await ensureAdminRole(trx);
    const email = (options.adminEmail ?? DEFAULT_ADMIN_EMAIL).toLowerCase();
    await UserModel.query(trx).insert({
      id: randomUUID(),
      email,
      password: await options.hashPassword(password),
      role: roleId,
      status: 'active',
      firstName: 'Admin',
      lastName: 'User',
      token: options.adminToken ?? null,
    });
    return { email, password, isGenerated: options.adminPassword === undefined };
  });

  return createdAdmin === undefined ? { appliedMigrations } : { appliedMigrations, createdAdmin };
}

async function ensureAdminRole(trx: Knex.Transaction): Promise<string> {
  const existing = await RoleModel.query(trx).where('admin_access', true).select('id').first();
  if (existing !== undefined) return existing.id;
  const id = randomUUID();
  await RoleModel.query(trx).insert({
    id,
    name: ADMIN_ROLE_NAME,
    icon: 'verified',
    adminAccess: true,
    appAccess: true,
  });
  return id;
}
