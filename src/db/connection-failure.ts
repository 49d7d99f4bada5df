import type { Knex } from 'knex';
import type { DbConfig } from '../config/index.js';
import { databaseDialect } from './dialects/index.js';

/** What a driver error carries that tells the failures apart (pg SQLSTATE, mysql2 codes, Node errnos). */
interface DriverError {
  readonly code?: unknown;
  readonly message?: unknown;
  readonly name?: unknown;
}

/** The SQLite file or its folder cannot be made or opened. */
const SQLITE_FILE_CODES = new Set([
  'SQLITE_CANTOPEN',
  'SQLITE_READONLY',
  'EACCES',
  'EPERM',
  'EROFS',
  'ENOTDIR',
  'EEXIST',
  'EISDIR',
]);

/** The server is reachable but cannot serve this DB_CLIENT; the message is the line to print. */
export class UnsupportedDatabaseServer extends Error {
  override readonly name = 'UnsupportedDatabaseServer';
}

/**
 * Where the dialect requires a server version (MariaDB 10.5+ for `mysql`), reads the server's
 * and throws UnsupportedDatabaseServer when it cannot serve, before anything is written.
 */
export async function checkServerVersion(db: Knex, config: DbConfig): Promise<void> {
  const dialect = databaseDialect(config.client);
  if (dialect.serverVersion === undefined) return;
  const [row] = dialect.rawRows(await db.raw(dialect.serverVersion.sql));
  const version = row?.['version'];
  const reason = dialect.serverVersion.unsupported(typeof version === 'string' ? version : '', describeTarget(config));
  if (reason !== undefined) throw new UnsupportedDatabaseServer(reason);
}

/**
 * One line telling someone starting the service why it could not open the database and what
 * to change, naming the host, port and database; undefined when `error` is not a connection
 * failure (a bug, reported with its stack). The driver's own message ends the line in brackets.
 */
export function describeConnectionFailure(error: unknown, db: DbConfig): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  if (error instanceof UnsupportedDatabaseServer) return error.message;
  const { code, message, name } = error as DriverError;
  const detail = typeof message === 'string' ? (message.split('\n')[0] ?? message) : String(code);
  const dialect = databaseDialect(db.client);
  if (dialect.isEmbedded) {
    if (typeof code === 'string' && SQLITE_FILE_CODES.has(code)) {
      return `Cannot open the SQLite database "${db.filename}" (${detail}): set DB_FILENAME to a file in a writable folder.`;
    }
    return undefined;
  }
  const { engine } = dialect;
  const where = describeTarget(db);
  const database = db.database ?? '(from DB_CONNECTION_STRING)';
  if (name === 'KnexTimeoutError') {
    return `${engine} at ${where} did not answer in time (${detail}): check DB_HOST and DB_PORT, and that nothing blocks the way to it.`;
  }
  switch (code) {
    case 'ECONNREFUSED':
      return `Cannot reach ${engine} at ${where} (database "${database}"): nothing listens there. Start the database server, or set DB_HOST / DB_PORT to where it runs.`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `Cannot reach ${engine} at ${where}: the host name "${db.host ?? ''}" does not resolve. Set DB_HOST to the database server's address.`;
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `Cannot reach ${engine} at ${where} (${detail}): check DB_HOST and DB_PORT, and that nothing blocks the way to it.`;
    case 'ECONNRESET':
      return `${engine} at ${where} closed the connection (${detail}): check DB_PORT points at ${engine} and that DB_SSL matches the server.`;
    // pg: invalid_catalog_name; mysql2: unknown database.
    case '3D000':
    case 'ER_BAD_DB_ERROR':
      return `${engine} at ${where} has no database "${database}": create it with ${dialect.createCommand(db)}, or set DB_DATABASE to an existing one.`;
    // pg: invalid_authorization_specification, invalid_password; mysql2: access denied.
    case '28000':
    case '28P01':
    case 'ER_ACCESS_DENIED_ERROR':
    case 'ER_DBACCESS_DENIED_ERROR':
      return `${engine} at ${where} refused the login of user "${db.user ?? '(default)'}" to database "${database}" (${detail}): check DB_USER and DB_PASSWORD.`;
  }
  if (isTlsFailure(code, detail)) {
    return `TLS to ${engine} at ${where} failed (${detail}): check DB_SSL (false when the server has no TLS), DB_SSL__CA (the server's CA certificate) and DB_SSL__REJECT_UNAUTHORIZED.`;
  }
  return undefined;
}

function describeTarget(db: DbConfig): string {
  const { defaultPort, takesConnectionString } = databaseDialect(db.client);
  if (db.connectionString !== undefined && takesConnectionString) {
    try {
      const url = new URL(db.connectionString);
      return `${url.hostname}:${url.port === '' ? String(defaultPort) : url.port}`;
    } catch {
      return 'DB_CONNECTION_STRING';
    }
  }
  return `${db.host ?? '127.0.0.1'}:${db.port ?? defaultPort}`;
}

const TLS_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'HANDSHAKE_NO_SSL_SUPPORT',
  'ERR_SSL_WRONG_VERSION_NUMBER',
]);

function isTlsFailure(code: unknown, detail: string): boolean {
  if (typeof code === 'string' && (TLS_CODES.has(code) || code.startsWith('ERR_SSL_') || code.startsWith('ERR_OSSL_')))
    return true;
  return /\b(SSL|TLS)\b/i.test(detail);
}
