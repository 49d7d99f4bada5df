import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../../src/config/index.js';

const NO_FILE = { defaultConfigPath: '/nonexistent/.env' };
const PG = { DB_CLIENT: 'pg', DB_DATABASE: 'content', DB_USER: 'app', DB_PASSWORD: 'pw,with,commas' };

const replication = (env: Record<string, string>) => loadConfig(env, NO_FILE).db.replication;

function refusal(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env, NO_FILE);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('the configuration was accepted');
}

describe('DB_REPLICA_* (config/replicas.ts)', () => {
  it('no replicas and a 5 s read-your-writes window by default', () => {
    expect(replication(PG)).to.deep.equal({ replicas: [], readYourWritesMs: 5000 });
  });

  it("one entry per host; single values apply to all, unset ones are the primary's (its password kept whole)", () => {
    const config = replication({
      ...PG,
      DB_REPLICA_HOST: 'r1, r2',
      DB_REPLICA_PORT: '5433,5434',
      DB_REPLICA_USER: 'reader',
      DB_REPLICA_READ_YOUR_WRITES: '2s',
    });
    expect(config).to.deep.equal({
      replicas: [
        { host: 'r1', port: 5433, user: 'reader', password: 'pw,with,commas', database: 'content' },
        { host: 'r2', port: 5434, user: 'reader', password: 'pw,with,commas', database: 'content' },
      ],
      readYourWritesMs: 2000,
    });
  });

  it('refuses lists of the wrong length, bad ports and replicas of another dialect', () => {
    expect(refusal({ ...PG, DB_REPLICA_HOST: 'r1,r2', DB_REPLICA_PORT: '1,2,3' }).message).to.include(
      'DB_REPLICA_PORT',
    );
    expect(refusal({ ...PG, DB_REPLICA_HOST: 'r1', DB_REPLICA_PORT: 'x' }).message).to.include('DB_REPLICA_PORT');
    expect(refusal({ DB_CLIENT: 'mysql', DB_DATABASE: 'd', DB_REPLICA_HOST: 'r1' }).message).to.include(
      'DB_REPLICA_HOST',
    );
  });
});
