import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../../src/config/index.js';

const NO_FILE = { defaultConfigPath: '/nonexistent/.env' };

function configError(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env, NO_FILE);
  } catch (error) {
    expect(error).to.be.instanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('defaults to SQLite under ./data on port 8055', () => {
    const config = loadConfig({}, NO_FILE);
    expect(config.port).to.equal(8055);
    expect(config.host).to.equal('0.0.0.0');
    expect(config.db.client).to.equal('sqlite3');
    expect(config.db.filename).to.equal('./data/database.sqlite');
    expect(config.redis.url).to.equal(undefined);
    expect(config.queryLimitDefault).to.equal(100);
    expect(config.queryLimitMax).to.equal(Infinity);
    expect(config.maxPayloadSize).to.equal(1024 * 1024);
    expect(config.accessTokenTtlMs).to.equal(15 * 60 * 1000);
    expect(config.refreshTokenTtlMs).to.equal(7 * 24 * 3600 * 1000);
    expect(config.refreshTokenCookie).to.include({ name: 'svc_refresh_token', secure: true, sameSite: 'lax' });
    expect(config.ipTrustProxy).to.equal(false);
    expect(config.authUserCacheTtlMs).to.equal(1000);
  });

  it('journal retention: off by default; durations when set; anything else refuses to start', () => {
    expect(loadConfig({}, NO_FILE).retention).to.deep.equal({
      activityMs: null,
      revisionsMs: null,
      exportMs: 7 * 86_400_000,
      exportText: '7d',
      intervalMs: 3600_000,
      batchSize: 1000,
    });
    const set = loadConfig(
      {
        ACTIVITY_RETENTION: '90d',
        REVISIONS_RETENTION: '30d',
        EXPORT_RETENTION: '12h',
        RETENTION_INTERVAL: '5m',
        RETENTION_BATCH_SIZE: '50',
      },
      NO_FILE,
    );
    expect(set.retention).to.deep.equal({
      activityMs: 90 * 86_400_000,
      revisionsMs: 30 * 86_400_000,
      exportMs: 12 * 3_600_000,
      exportText: '12h',
      intervalMs: 300_000,
      batchSize: 50,
    });
    // EXPORT_RETENTION 0 or false keeps exports forever; a word that is no duration refuses to start.
    for (const keep of ['0', 'false', 'FALSE']) {
      const { exportMs, exportText } = loadConfig({ EXPORT_RETENTION: keep }, NO_FILE).retention;
      expect({ exportMs, exportText }, keep).to.deep.equal({ exportMs: null, exportText: null });
    }
    expect(configError({ EXPORT_RETENTION: 'a week' }).message).to.include('EXPORT_RETENTION');
    expect(configError({ ACTIVITY_RETENTION: 'forever' }).message).to.include('ACTIVITY_RETENTION');
    expect(configError({ REVISIONS_RETENTION: '-1d' }).message).to.include('REVISIONS_RETENTION');
    expect(configError({ RETENTION_BATCH_SIZE: '0' }).message).to.include('RETENTION_BATCH_SIZE');
  });

  it('generates a SECRET when none is set and says so', () => {
    const a = loadConfig({}, NO_FILE);
    const b = loadConfig({}, NO_FILE);
    expect(a.isSecretGenerated).to.equal(true);
    expect(a.secret).to.have.length.greaterThan(30);
    expect(a.secret).not.to.equal(b.secret);
    expect(loadConfig({ SECRET: 's' }, NO_FILE)).to.include({ secret: 's', isSecretGenerated: false });
  });

  it('parses durations, sizes, lists and booleans', () => {
    const config = loadConfig(
      {
        ACCESS_TOKEN_TTL: '30s',
        REFRESH_TOKEN_TTL: '2500',
        MAX_PAYLOAD_SIZE: '10kb',
        CORS_ENABLED: 'true',
        CORS_ORIGIN: 'https://a.example,https://b.example',
        QUERY_LIMIT_MAX: '500',
        STORAGE_LOCATIONS: 'array:local,archive',
        STORAGE_ARCHIVE_DRIVER: 'local',
        STORAGE_ARCHIVE_ROOT: '/srv/archive',
      },
      NO_FILE,
    );
    expect(config.accessTokenTtlMs).to.equal(30_000);
    expect(config.refreshTokenTtlMs).to.equal(2500);
    expect(config.maxPayloadSize).to.equal(10 * 1024);
    expect(config.cors.enabled).to.equal(true);
    expect(config.cors.origin).to.deep.equal(['https://a.example', 'https://b.example']);
    expect(config.queryLimitMax).to.equal(500);
    expect(config.storage.locations).to.deep.equal(['local', 'archive']);
  });

  it('reads CORS_ORIGIN as true, false, a list or a regex: (Directus 10)', () => {
    const origin = (value: string) => loadConfig({ CORS_ORIGIN: value }, NO_FILE).cors.origin;
    expect(loadConfig({}, NO_FILE).cors.origin).to.equal(false);
    expect(origin('true')).to.equal(true);
    expect(origin('false')).to.equal(false);
    expect(origin('https://a.example')).to.deep.equal(['https://a.example']);
    expect(origin('regex:^https://[a-z]+\\.example$')).to.deep.equal(/^https:\/\/[a-z]+\.example$/);
  });

  it('drops a leading string:, number: or array: from a setting of any kind', () => {
    const config = loadConfig(
      {
        PORT: 'string:8301',
        LOG_LEVEL: 'string:warn',
        CACHE_ENABLED: 'string:true',
        ACCESS_TOKEN_TTL: 'number:900000',
        MAX_PAYLOAD_SIZE: 'number:1000',
        QUERY_LIMIT_MAX: 'number:infinity',
        STORAGE_LOCATIONS: 'array:local',
      },
      NO_FILE,
    );
    expect(config.port).to.equal(8301);
    expect(config.logLevel).to.equal('warn');
    expect(config.cache.enabled).to.equal(true);
    expect(config.accessTokenTtlMs).to.equal(900_000);
    expect(config.maxPayloadSize).to.equal(1000);
    expect(config.queryLimitMax).to.equal(Infinity);
    expect(config.storage.locations).to.deep.equal(['local']);
  });

  it('reads the registration limiter (true / 5 / 60 by default) and the invite and register URL allow-lists', () => {
    const defaults = loadConfig({}, NO_FILE);
    expect(defaults.registrationRateLimiter).to.deep.equal({ enabled: true, points: 5, durationSeconds: 60 });
    expect(defaults.userRegisterUrlAllowList).to.deep.equal([]);
    const config = loadConfig(
      {
        RATE_LIMITER_REGISTRATION_ENABLED: 'false',
        RATE_LIMITER_REGISTRATION_POINTS: '2',
        RATE_LIMITER_REGISTRATION_DURATION: '30',
        USER_INVITE_URL_ALLOW_LIST: 'https://a.example/accept',
        USER_REGISTER_URL_ALLOW_LIST: 'https://a.example/verify,https://b.example/verify',
      },
      NO_FILE,
    );
    expect(config.registrationRateLimiter).to.deep.equal({ enabled: false, points: 2, durationSeconds: 30 });
    expect(config.userInviteUrlAllowList).to.deep.equal(['https://a.example/accept']);
    expect(config.userRegisterUrlAllowList).to.deep.equal(['https://a.example/verify', 'https://b.example/verify']);
  });

  it('builds the Redis URL from REDIS or REDIS_HOST/PORT/PASSWORD', () => {
    expect(loadConfig({ REDIS: 'redis://cache:6379' }, NO_FILE).redis.url).to.equal('redis://cache:6379');
    expect(loadConfig({ REDIS_HOST: 'cache', REDIS_PASSWORD: 'p w' }, NO_FILE).redis.url).to.equal(
      'redis://:p%20w@cache:6379',
    );
    expect(loadConfig({ REDIS: 'redis://x', REDIS_ENABLED: 'false' }, NO_FILE).redis.url).to.equal(undefined);
  });

  it('reads the data cache and rate limiter settings, Directus defaults first', () => {
    const defaults = loadConfig({}, NO_FILE);
    expect(defaults.cache).to.deep.include({
      enabled: false,
      autoPurgeIgnoreList: ['svc_activity', 'svc_presets'],
      controlSMaxAge: 0,
      skipAllowed: false,
      valueMaxSize: undefined,
    });
    expect(defaults.rateLimiter.global).to.deep.equal({ enabled: false, points: 1000, durationSeconds: 1 });
    const set = loadConfig(
      {
        CACHE_AUTO_PURGE_IGNORE_LIST: 'svc_activity,logs',
        CACHE_CONTROL_S_MAXAGE: 'true',
        CACHE_VALUE_MAX_SIZE: '10kb',
        RATE_LIMITER_GLOBAL_POINTS: '20',
        RATE_LIMITER_GLOBAL_DURATION: '5',
        // A store in Redis is fine while its feature is off.
        CACHE_STORE: 'redis',
      },
      NO_FILE,
    );
    expect(set.cache).to.deep.include({
      autoPurgeIgnoreList: ['svc_activity', 'logs'],
      controlSMaxAge: true,
      valueMaxSize: 10 * 1024,
    });
    expect(set.rateLimiter.global).to.deep.include({ points: 20, durationSeconds: 5 });
    expect(
      loadConfig({ CACHE_CONTROL_S_MAXAGE: 'false', CACHE_VALUE_MAX_SIZE: 'false' }, NO_FILE).cache,
    ).to.deep.include({
      controlSMaxAge: false,
      valueMaxSize: undefined,
    });
  });

  it('escapes csv formulas in exports unless EXPORT_CSV_ESCAPE_FORMULAS=false', () => {
    expect(loadConfig({}, NO_FILE).exportCsvEscapeFormulas).to.equal(true);
    expect(loadConfig({ EXPORT_CSV_ESCAPE_FORMULAS: 'false' }, NO_FILE).exportCsvEscapeFormulas).to.equal(false);
    expect(configError({ EXPORT_CSV_ESCAPE_FORMULAS: 'no' }).variable).to.equal('EXPORT_CSV_ESCAPE_FORMULAS');
  });

  it('refuses the example SECRET and ADMIN_PASSWORD (anything starting with change-me) unless NODE_ENV=development, saying how to set one', () => {
    for (const NODE_ENV of [undefined, 'production', 'test']) {
      const env = NODE_ENV === undefined ? {} : { NODE_ENV };
      const secret = configError({ ...env, SECRET: 'change-me-to-a-long-random-string' });
      expect(secret.variable).to.equal('SECRET');
      expect(secret.message).to.contain('openssl rand');
      expect(secret.message.split('\n')).to.have.length(1);
      const password = configError({ ...env, SECRET: 'a-real-secret', ADMIN_PASSWORD: 'Change-Me' });
      expect(password.variable).to.equal('ADMIN_PASSWORD');
      expect(password.message).to.contain('set a password of your own');
    }
    const development = loadConfig(
      { NODE_ENV: 'development', SECRET: 'change-me-to-a-long-random-string', ADMIN_PASSWORD: 'change-me' },
      NO_FILE,
    );
    expect(development.admin.password).to.equal('change-me');
    // Other values, and none at all, start as before.
    expect(loadConfig({ SECRET: 'x'.repeat(40), ADMIN_PASSWORD: 'my own password' }, NO_FILE).admin.password).to.equal(
      'my own password',
    );
    expect(loadConfig({}, NO_FILE).isSecretGenerated).to.equal(true);
  });

  it('caps imports at 1 GB unless IMPORT_MAX_SIZE says otherwise (a size or unlimited)', () => {
    expect(loadConfig({}, NO_FILE).importMaxSize).to.equal(1024 ** 3);
    expect(loadConfig({ IMPORT_MAX_SIZE: '40kb' }, NO_FILE).importMaxSize).to.equal(40 * 1024);
    expect(loadConfig({ IMPORT_MAX_SIZE: 'unlimited' }, NO_FILE).importMaxSize).to.equal(Infinity);
    expect(configError({ IMPORT_MAX_SIZE: 'big' }).variable).to.equal('IMPORT_MAX_SIZE');
  });

  it('reads the GraphQL cost limits (250000 rows, 100 aliases; Infinity switches one off)', () => {
    const defaults = loadConfig({}, NO_FILE);
    expect([defaults.graphqlQueryCostLimit, defaults.graphqlQueryAliasLimit]).to.deep.equal([250_000, 100]);
    const set = loadConfig({ GRAPHQL_QUERY_COST_LIMIT: 'Infinity', GRAPHQL_QUERY_ALIAS_LIMIT: '0' }, NO_FILE);
    expect([set.graphqlQueryCostLimit, set.graphqlQueryAliasLimit]).to.deep.equal([Infinity, 0]);
  });

  it('reads REDIS_COMMAND_TIMEOUT (500ms) and RATE_LIMITER_REDIS_FALLBACK (memory)', () => {
    const defaults = loadConfig({}, NO_FILE);
    expect(defaults.redis.commandTimeoutMs).to.equal(500);
    expect(defaults.rateLimiter.redisFallback).to.equal('memory');
    const set = loadConfig({ REDIS_COMMAND_TIMEOUT: '2s', RATE_LIMITER_REDIS_FALLBACK: 'open' }, NO_FILE);
    expect([set.redis.commandTimeoutMs, set.rateLimiter.redisFallback]).to.deep.equal([2000, 'open']);
  });

  it("hashes with OWASP's argon2id costs unless HASH_* say otherwise (Directus's names)", () => {
    expect(loadConfig({}, NO_FILE).hash).to.deep.equal({
      memoryCost: 19_456,
      timeCost: 2,
      parallelism: 1,
      hashLength: 32,
      type: 2,
      associatedData: undefined,
    });
    const env = { HASH_MEMORY_COST: '4096', HASH_TIME_COST: '3', HASH_TYPE: '1', HASH_ASSOCIATED_DATA: 'svc' };
    expect(loadConfig(env, NO_FILE).hash).to.include({ memoryCost: 4096, timeCost: 3, type: 1, associatedData: 'svc' });
  });

  it('reads a value from <NAME>_FILE', () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-config-'));
    writeFileSync(join(dir, 'secret'), 'from-file\n');
    expect(loadConfig({ SECRET_FILE: join(dir, 'secret') }, NO_FILE).secret).to.equal('from-file');
  });

  it('reads the .env file at CONFIG_PATH, the process environment winning', () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-config-'));
    const file = join(dir, '.env');
    writeFileSync(file, 'PORT=9000\nLOG_LEVEL=debug\n');
    const config = loadConfig({ CONFIG_PATH: file, LOG_LEVEL: 'warn' });
    expect(config.port).to.equal(9000);
    expect(config.logLevel).to.equal('warn');
  });

  const invalid: [Record<string, string>, string, RegExp][] = [
    [{ PORT: 'eighty' }, 'PORT', /must be an integer/],
    [{ PORT: '70000' }, 'PORT', /at most 65535/],
    [{ DB_CLIENT: 'oracle' }, 'DB_CLIENT', /one of sqlite3, pg, mysql/],
    [{ DB_CLIENT: 'pg' }, 'DB_DATABASE', /required when DB_CLIENT is pg/],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL', /one of fatal/],
    [{ ACCESS_TOKEN_TTL: 'soon' }, 'ACCESS_TOKEN_TTL', /duration/],
    [{ MAX_PAYLOAD_SIZE: 'huge' }, 'MAX_PAYLOAD_SIZE', /size/],
    [{ CORS_ENABLED: 'yes' }, 'CORS_ENABLED', /true or false/],
    [{ CORS_ORIGIN: 'regex:(' }, 'CORS_ORIGIN', /not a valid regular expression/],
    [{ MAX_RELATIONAL_DEPTH: '1' }, 'MAX_RELATIONAL_DEPTH', /at least 2/],
    [{ REDIS: 'localhost:6379' }, 'REDIS', /redis:\/\/ URL/],
    [{ RATE_LIMITER_REGISTRATION_POINTS: '0' }, 'RATE_LIMITER_REGISTRATION_POINTS', /at least 1/],
    [{ RATE_LIMITER_REGISTRATION_ENABLED: 'on' }, 'RATE_LIMITER_REGISTRATION_ENABLED', /true or false/],
    [{ SECRET_FILE: '/nonexistent/secret' }, 'SECRET_FILE', /cannot be read/],
    [{ CONFIG_PATH: '/nonexistent/.env' }, 'CONFIG_PATH', /missing file/],
    [{ CACHE_ENABLED: 'true', CACHE_STORE: 'redis' }, 'CACHE_STORE', /REDIS is not set/],
    [{ RATE_LIMITER_GLOBAL_ENABLED: 'true', RATE_LIMITER_STORE: 'redis' }, 'RATE_LIMITER_STORE', /REDIS is not set/],
    [{ CACHE_VALUE_MAX_SIZE: 'big' }, 'CACHE_VALUE_MAX_SIZE', /size/],
    [{ CACHE_CONTROL_S_MAXAGE: '-1' }, 'CACHE_CONTROL_S_MAXAGE', /at least 0/],
    ...['yes', '10.0.0.0/33', '10.0.0.1/8/2', 'proxy.example.com', '-1', '::1/129'].map(
      (value): [Record<string, string>, string, RegExp] => [
        { IP_TRUST_PROXY: value },
        'IP_TRUST_PROXY',
        /number of hops or a list of addresses/,
      ],
    ),
    [{ IP_CUSTOM_HEADER: 'X-Real-IP' }, 'IP_CUSTOM_HEADER', /needs IP_TRUST_PROXY/],
    [{ AUTH_USER_CACHE_TTL: 'a while' }, 'AUTH_USER_CACHE_TTL', /duration/],
    [{ GRAPHQL_QUERY_COST_LIMIT: '0' }, 'GRAPHQL_QUERY_COST_LIMIT', /at least 1/],
    [{ REDIS_COMMAND_TIMEOUT: '0' }, 'REDIS_COMMAND_TIMEOUT', /longer than 0ms/],
    [{ RATE_LIMITER_REDIS_FALLBACK: 'allow' }, 'RATE_LIMITER_REDIS_FALLBACK', /one of memory, open, closed/],
    [{ GRAPHQL_QUERY_ALIAS_LIMIT: 'many' }, 'GRAPHQL_QUERY_ALIAS_LIMIT', /integer/],
    [{ HASH_PARALLELISM: '2', HASH_MEMORY_COST: '15' }, 'HASH_MEMORY_COST', /at least 16/],
    [{ HASH_TIME_COST: '0' }, 'HASH_TIME_COST', /at least 1/],
    [{ HASH_TYPE: 'argon2id' }, 'HASH_TYPE', /one of 0, 1, 2/],
  ];
  for (const [env, variable, problem] of invalid) {
    it(`refuses ${JSON.stringify(env)} naming ${variable}`, () => {
      const error = configError(env);
      expect(error.variable).to.equal(variable);
      expect(error.message).to.contain(variable).and.match(problem);
    });
  }
});
