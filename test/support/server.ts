import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, type Config } from '../../src/config/index.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { createLogger, type Logger } from '../../src/logger/index.js';
import { dropNamespace, testNamespace } from './redis-namespace.js';
import {
  DATABASE_TARGETS,
  requireOrSkip,
  type DatabaseTarget,
  type DialectName,
  type TestDatabase,
} from './services.js';

export const TEST_ADMIN = { email: 'admin@example.com', password: 'admin-password', token: 'test-admin-static-token' };

let scratch: string | undefined;

/**
 * One temporary folder per test process for files and exports of servers whose suite names
 * no folder itself, so a run leaves nothing in the checkout (./uploads, ./data/tmp).
 */
function scratchDir(): string {
  if (scratch === undefined) {
    const dir = mkdtempSync(join(tmpdir(), 'svc-test-files-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    scratch = dir;
  }
  return scratch;
}

/** Configuration for a test server on a random port against `database`. */
export function testConfig(database: TestDatabase, env: Readonly<Record<string, string>> = {}): Config {
  return loadConfig(
    {
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: 'silent',
      LOG_STYLE: 'raw',
      SECRET: 'test-secret',
      ADMIN_EMAIL: TEST_ADMIN.email,
      ADMIN_PASSWORD: TEST_ADMIN.password,
      ADMIN_TOKEN: TEST_ADMIN.token,
      // Directus's argon2 costs (4 MiB, three passes): a login is a sixth of the default's CPU.
      HASH_MEMORY_COST: '4096',
      HASH_TIME_COST: '3',
      // No sendmail on a test machine: suites that send mail name a transport (SmtpInbox).
      EMAIL_VERIFY_SETUP: 'false',
      STORAGE_LOCAL_ROOT: join(scratchDir(), 'uploads'),
      TEMP_PATH: join(scratchDir(), 'tmp'),
      // No extensions unless a suite names its folder (a checkout's ./extensions stays out of tests).
      EXTENSIONS_PATH: join(scratchDir(), 'no-extensions'),
      ...database.env,
      ...env,
    },
    { defaultConfigPath: '/nonexistent/.env' },
  );
}

export interface ServerContext {
  readonly dialect: DialectName;
  readonly database: TestDatabase;
  readonly server: RunningServer;
  /**
   * The suite's environment, its CACHE_NAMESPACE included: `testConfig(ctx().database, ctx().env)`
   * configures a second instance sharing the first one's database and Redis keys.
   */
  readonly env: Readonly<Record<string, string>>;
  /** fetch against the server: `api('/server/ping')`. */
  api(path: string, init?: RequestInit): Promise<Response>;
}

/**
 * Declares `body` once per available database: a fresh database and a real server on a
 * random port for each, dropped afterwards. Suites of unreachable services are skipped
 * with the reason, or fail with REQUIRE_SERVICES=1. With REDIS in `env`, each suite has a
 * CACHE_NAMESPACE of its own (unless `env` names one), whose keys are deleted when it ends.
 */
export function describeEachDatabase(
  title: string,
  body: (ctx: () => ServerContext) => void,
  options: {
    targets?: readonly DatabaseTarget[];
    /** Extra environment; a function is called when the server starts (e.g. a port known only then). */
    env?: Readonly<Record<string, string>> | (() => Readonly<Record<string, string>>);
    /** The mocha timeout of every hook and test of the suite (suites that start processes). */
    timeoutMs?: number;
    /** EXTENSIONS_PATH: the folder of extensions the server loads at start. */
    extensionsPath?: string;
    /** Makes the server's logger (silent by default), once per database: suites that assert log lines capture them. */
    logger?: () => Logger;
    /** Runs before each database's server stops (a browser leaves its pages, which would poll a closed port). */
    beforeStop?: () => Promise<void>;
  } = {},
): void {
  for (const target of options.targets ?? DATABASE_TARGETS) {
    describe(`${title} [${target.dialect}]`, function () {
      if (options.timeoutMs !== undefined) this.timeout(options.timeoutMs);
      let context: ServerContext | undefined;
      let redis: { readonly url: string; readonly namespace: string } | undefined;
      before(async function () {
        requireOrSkip(this, await target.unavailable());
        const database = await target.create();
        try {
          const env = { ...(typeof options.env === 'function' ? options.env() : options.env) };
          if (options.extensionsPath !== undefined) env['EXTENSIONS_PATH'] = options.extensionsPath;
          const url = env['REDIS'];
          if (url !== undefined) {
            env['CACHE_NAMESPACE'] ??= testNamespace('test');
            redis = { url, namespace: env['CACHE_NAMESPACE'] };
          }
          const server = await startServer(testConfig(database, env), {
            logger: options.logger?.() ?? createLogger({ logLevel: 'silent', logStyle: 'raw' }),
          });
          context = {
            dialect: target.dialect,
            database,
            server,
            env,
            api: (path, init) => fetch(server.url + path, init),
          };
        } catch (error) {
          await database.drop();
          throw error;
        }
      });
      after(async function () {
        try {
          await options.beforeStop?.();
          await context?.server.close();
          await context?.database.drop();
        } finally {
          if (redis !== undefined) await dropNamespace(redis.namespace, redis.url);
        }
      });
      body(() => {
        if (context === undefined) throw new Error('server not started');
        return context;
      });
    });
  }
}
