import { existsSync } from 'node:fs';
import type { Knex } from 'knex';
import { useHashConfig } from '../access/passwords.js';
import { openSchemaCache } from '../cache/open-schema-cache.js';
import { openRedisBus, type RedisBus } from '../cache/redis-bus.js';
import type { SchemaCache } from '../cache/schema-cache.js';
import { loadConfig, type Config } from '../config/index.js';
import { ConfigError } from '../config/env-reader.js';
import { databaseDialect } from '../db/dialects/index.js';
import { checkServerVersion, describeConnectionFailure, UnsupportedDatabaseServer } from '../db/connection-failure.js';
import { createDatabase } from '../db/index.js';
import { createLogger, type Logger } from '../logger/index.js';

/** Exit codes a script can rely on. */
export const EXIT = {
  ok: 0,
  /** The command ran and failed (bad file, refused change, stale hash, ...). */
  failed: 1,
  /** Bad arguments or configuration. */
  usage: 2,
  /** The database (or Redis) can't be reached. */
  unreachable: 3,
} as const;

/** A failure with its exit code and a one-line message for stderr. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

export interface CliContext {
  readonly config: Config;
  readonly db: Knex;
  readonly logger: Logger;
  schema(): Promise<SchemaCache>;
  /** The run's Redis bus, opened at first use; none without REDIS. */
  bus(): Promise<RedisBus | undefined>;
}

/** The server's configuration (same environment and .env file), or a usage error. */
export function cliConfig(env: Readonly<Record<string, string | undefined>>): Config {
  try {
    return loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) throw new CliError(error.message, EXIT.usage);
    throw error;
  }
}

/**
 * Runs `body` with the database of the configuration, closed afterwards whatever happens. A
 * SQLite file is created only by the commands that build the catalogue (`creates`: bootstrap,
 * migrations); any other command refuses a file that does not exist, rather than leave an empty
 * one behind (a mistyped DB_FILENAME would otherwise look like a database without a catalogue).
 */
export async function withDatabase<T>(
  config: Config,
  body: (ctx: CliContext) => Promise<T>,
  options: { creates?: boolean } = {},
): Promise<T> {
  useHashConfig(config.hash);
  const { client, filename } = config.db;
  const embedded = databaseDialect(client).isEmbedded;
  if (embedded && filename !== ':memory:' && options.creates !== true && !existsSync(filename)) {
    throw new CliError(
      `The database file "${filename}" does not exist: run \`bootstrap\` to create it, or set DB_FILENAME to an existing database`,
      EXIT.failed,
    );
  }
  const logger = createLogger({ ...config, logLevel: config.logLevel === 'info' ? 'warn' : config.logLevel });
  // knex's own messages (each failed connection attempt) go to the log, not between the CLI's lines.
  const db = createDatabase(config.db, {
    warn: (message) => {
      logger.debug(message);
    },
    info: (message) => {
      logger.debug(message);
    },
    debug: (message) => {
      logger.debug(message);
    },
  });
  let schema: SchemaCache | undefined;
  let bus: RedisBus | undefined;
  const openBus = async () => (bus ??= await openRedisBus(config.redis));
  try {
    await db.raw('select 1').catch((error: unknown) => {
      // The server's one line for the same failure: host, port, database and what to change.
      const line = describeConnectionFailure(error, config.db) ?? ((error as Error).message || String(error));
      throw new CliError(`Database unreachable: ${line}`, EXIT.unreachable);
    });
    await checkServerVersion(db, config.db).catch((error: unknown) => {
      throw error instanceof UnsupportedDatabaseServer ? new CliError(error.message, EXIT.failed) : error;
    });
    return await body({
      config,
      db,
      logger,
      schema: async () => {
        if (schema !== undefined) return schema;
        if (!(await db.schema.hasTable('svc_collections'))) {
          throw new CliError('The database has no catalogue yet: run `bootstrap` first', EXIT.failed);
        }
        schema = await openSchemaCache(config, db, logger, await openBus());
        return schema;
      },
      bus: openBus,
    });
  } finally {
    await schema?.close();
    await bus?.close();
    await db.destroy();
  }
}
