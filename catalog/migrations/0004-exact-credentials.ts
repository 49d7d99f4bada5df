import type { Knex } from 'knex';
import { databaseDialectOf } from '../../src/db/dialects/index.js';
import type { Migration } from './types.js';

/**
 * The columns a caller is found by compare exactly on MariaDB too, as on PostgreSQL and
 * SQLite: under MariaDB's default collations a static token or a refresh token with its
 * letters' case changed was accepted, an e-mail address matched another that differs in an
 * accent (`x@bucher.de` found `x@bücher.de`: its login, and the SSO account it links with
 * LINK_VERIFIED_EMAIL), and an SSO identifier another of a different case. E-mail addresses
 * stay case-insensitive where they are looked up (LOWER on both sides, src/auth/auth-user.ts).
 */
export const exactCredentials: Migration = {
  version: '0004',
  name: 'exact-credentials',
  async up(db: Knex) {
    const exact = databaseDialectOf(db).exactStringType;
    if (exact === undefined) return;
    await db.schema.alterTable('svc_users', (t) => {
      t.specificType('email', exact(128)).nullable().alter();
      t.specificType('token', exact(255)).nullable().alter();
      t.specificType('external_identifier', exact(255)).nullable().alter();
    });
    await db.schema.alterTable('svc_sessions', (t) => {
      t.specificType('token', exact(64)).notNullable().alter();
      t.specificType('next_token', exact(64)).nullable().alter();
    });
  },
};
