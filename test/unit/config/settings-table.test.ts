import { expect } from 'chai';
import { readFileSync, writeFileSync } from 'node:fs';
import { renderConfigurationDoc } from '../../../src/config/configuration-doc.js';
import { loadConfig } from '../../../src/config/index.js';
import { SETTINGS } from '../../../src/config/settings.js';

const DOC = new URL('../../../docs/configuration.md', import.meta.url);
const NO_FILE = '/nonexistent/.env';

/**
 * Environments that between them take every branch of loadConfig: the defaults, each network
 * database with TLS and pool settings, Redis from its parts, a provider, a second storage
 * location, an s3 location, SMTP.
 */
const ENVIRONMENTS: readonly Record<string, string>[] = [
  {},
  { DB_CLIENT: 'pg', DB_DATABASE: 'svc', DB_PORT: '5432', DB_SSL: 'true', DB_POOL__MIN: '0', DB_POOL__MAX: '4' },
  { DB_CLIENT: 'mysql', DB_DATABASE: 'svc', REDIS_ENABLED: 'true', REDIS_HOST: 'redis', REDIS_PASSWORD: 'x' },
  {
    PUBLIC_URL: 'https://data.example.com',
    AUTH_PROVIDERS: 'github',
    AUTH_GITHUB_DRIVER: 'oauth2',
    AUTH_GITHUB_CLIENT_ID: 'id',
    AUTH_GITHUB_CLIENT_SECRET: 'secret',
    AUTH_GITHUB_AUTHORIZE_URL: 'https://github.example.com/authorize',
    AUTH_GITHUB_ACCESS_URL: 'https://github.example.com/token',
    AUTH_GITHUB_PROFILE_URL: 'https://github.example.com/user',
    AUTH_GITHUB_ISSUER_URL: 'https://github.example.com',
    STORAGE_LOCATIONS: 'local,archive',
    STORAGE_ARCHIVE_DRIVER: 'local',
    STORAGE_ARCHIVE_ROOT: '/srv/archive',
  },
  {
    STORAGE_LOCATIONS: 's3',
    STORAGE_S3_DRIVER: 's3',
    STORAGE_S3_KEY: 'key',
    STORAGE_S3_SECRET: 'secret',
    STORAGE_S3_BUCKET: 'files',
    STORAGE_S3_ENDPOINT: 'http://127.0.0.1:9000',
  },
  { EMAIL_TRANSPORT: 'smtp', EMAIL_SMTP_PORT: '25', CACHE_VALUE_MAX_SIZE: '1mb', CACHE_CONTROL_S_MAXAGE: '10' },
  { REDIS_SENTINELS: '127.0.0.1:26379', REDIS_NAME: 'mymaster' },
];

/** The variables loadConfig reads, with provider names and location keys as the table writes them. */
function variablesRead(): Set<string> {
  const read = new Set<string>();
  for (const env of ENVIRONMENTS) {
    loadConfig(env, {
      defaultConfigPath: NO_FILE,
      onRead: (name) =>
        read.add(
          name
            .replace(/^AUTH_GITHUB_/, 'AUTH_<NAME>_')
            .replace(/^STORAGE_(?!LOCAL_ROOT$|LOCATIONS$)[A-Z0-9]+_/, 'STORAGE_<KEY>_'),
        ),
    });
  }
  return read;
}

describe('the settings table (src/config/settings.ts)', () => {
  const listed = SETTINGS.flatMap((section) => section.settings.map((setting) => setting.name));

  it('lists every variable loadConfig reads, and nothing it does not read', () => {
    const read = variablesRead();
    expect(
      listed.filter((name) => !read.has(name)),
      'listed but never read',
    ).to.deep.equal([]);
    expect(
      [...read].filter((name) => !listed.includes(name)),
      'read but not listed',
    ).to.deep.equal([]);
  });

  it('lists each variable once, with a default and a meaning', () => {
    expect(listed.filter((name, i) => listed.indexOf(name) !== i)).to.deep.equal([]);
    for (const setting of SETTINGS.flatMap((section) => section.settings)) {
      expect(setting.default, setting.name).not.to.equal('');
      expect(setting.meaning, setting.name).not.to.equal('');
    }
  });

  it('docs/configuration.md is what the table renders (UPDATE_DOCS=1 rewrites it)', () => {
    const rendered = renderConfigurationDoc();
    if (process.env['UPDATE_DOCS'] === '1') writeFileSync(DOC, rendered);
    expect(readFileSync(DOC, 'utf8')).to.equal(rendered);
  });
});
