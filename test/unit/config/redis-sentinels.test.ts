import { expect } from 'chai';
import { readRedisConfig } from '../../../src/config/redis.js';
import { ConfigError, EnvReader } from '../../../src/config/env-reader.js';

const read = (env: Record<string, string>) => readRedisConfig(new EnvReader(env));

describe('REDIS_SENTINELS', () => {
  it('takes a host:port list (26379 by default) with REDIS_NAME, and the primary credentials', () => {
    const config = read({
      REDIS_SENTINELS: '10.0.0.1:26380, sentinel-2 ,[::1]:26381',
      REDIS_NAME: 'mymaster',
      REDIS_PASSWORD: 'primary-secret',
      REDIS_SENTINEL_PASSWORD: 'sentinel-secret',
    });
    expect(config.sentinel).to.deep.equal({
      sentinels: [
        { host: '10.0.0.1', port: 26380 },
        { host: 'sentinel-2', port: 26379 },
        { host: '::1', port: 26381 },
      ],
      name: 'mymaster',
      username: undefined,
      password: 'primary-secret',
      sentinelUsername: undefined,
      sentinelPassword: 'sentinel-secret',
    });
    expect(config.url).to.equal('redis-sentinel://10.0.0.1:26380,sentinel-2:26379,::1:26381/mymaster');
  });

  it("takes Directus 10's json: form, and REDIS_SENTINEL_NAME for the name", () => {
    const config = read({
      REDIS_SENTINELS: 'json:[{"host":"a","port":26379},{"host":"b","port":"26390"}]',
      REDIS_SENTINEL_NAME: 'cache',
    });
    expect(config.sentinel?.sentinels).to.deep.equal([
      { host: 'a', port: 26379 },
      { host: 'b', port: 26390 },
    ]);
    expect(config.sentinel?.name).to.equal('cache');
  });

  it('refuses a setup it cannot use, naming the variable', () => {
    const refusals: [Record<string, string>, string, RegExp][] = [
      [{ REDIS_SENTINELS: 'a:26379' }, 'REDIS_NAME', /sentinel monitor/],
      [{ REDIS_SENTINELS: 'a:99999', REDIS_NAME: 'm' }, 'REDIS_SENTINELS', /port/],
      [{ REDIS_SENTINELS: 'json:{"host":"a"}', REDIS_NAME: 'm' }, 'REDIS_SENTINELS', /array/],
      [{ REDIS_SENTINELS: 'json:[{"port":1}]', REDIS_NAME: 'm' }, 'REDIS_SENTINELS', /host/],
      [{ REDIS_SENTINELS: 'a', REDIS_NAME: 'm', REDIS: 'redis://b:6379' }, 'REDIS_SENTINELS', /REDIS_HOST/],
      [{ REDIS_SENTINELS: 'a', REDIS_NAME: 'm', REDIS_SENTINEL_NAME: 'n' }, 'REDIS_SENTINEL_NAME', /REDIS_NAME/],
    ];
    for (const [env, variable, message] of refusals) {
      expect(() => read(env), JSON.stringify(env))
        .to.throw(ConfigError)
        .that.satisfies((error: ConfigError) => error.message.includes(variable) && message.test(error.message));
    }
  });

  it('stays off with REDIS_ENABLED=false, and leaves REDIS alone when unset', () => {
    expect(read({ REDIS_SENTINELS: 'a', REDIS_NAME: 'm', REDIS_ENABLED: 'false' }).url).to.equal(undefined);
    expect(read({ REDIS: 'redis://127.0.0.1:6379' })).to.deep.equal({
      url: 'redis://127.0.0.1:6379',
      commandTimeoutMs: 500,
    });
  });
});
