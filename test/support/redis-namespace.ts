import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { TEST_REDIS_URL } from './services.js';

/**
 * A CACHE_NAMESPACE (Redis key prefix) of one suite alone, `<label>-<12 hex digits>`: servers
 * of other suites sharing the test Redis, run before or beside it, never see or clear its keys.
 */
export function testNamespace(label: string): string {
  return `${label}-${randomBytes(6).toString('hex')}`;
}

// SCAN's MATCH is a glob: a namespace's own * ? [ ] \ are matched as themselves.
const escapeGlob = (text: string): string => text.replace(/[*?[\]\\]/g, '\\$&');

/**
 * Deletes every key of `namespace` (`<namespace>:…`, as the service names them) from the Redis
 * at `url`, and no key of another namespace: SCAN by pattern, then UNLINK.
 */
export async function dropNamespace(namespace: string, url: string = TEST_REDIS_URL): Promise<void> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${escapeGlob(namespace)}:*`, 'COUNT', 500);
      if (keys.length > 0) await redis.unlink(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}
