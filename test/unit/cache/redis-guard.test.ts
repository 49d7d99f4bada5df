import { expect } from 'chai';
import type { Redis } from 'ioredis';
import { EventEmitter } from 'node:events';
import { RedisGuard } from '../../../src/cache/redis-guard.js';

/** What the guard logged, as `level message`. */
function guardWithLog(): { guard: RedisGuard; logged: string[] } {
  const logged: string[] = [];
  const logger = {
    warn: (_details: Record<string, unknown>, message: string) => logged.push(`warn ${message}`),
    info: (_details: Record<string, unknown>, message: string) => logged.push(`info ${message}`),
  };
  return { guard: new RedisGuard('data cache', 'reads are not cached', logger), logged };
}

/** Whether `guard` sent the command (true) or refused it without sending (false). */
async function sends(guard: RedisGuard): Promise<boolean> {
  let isSent = false;
  await guard
    .run(() => {
      isSent = true;
      return Promise.resolve('OK');
    })
    .catch(() => undefined);
  return isSent;
}

describe('cache: RedisGuard (a failing Redis is left alone for a second, a reconnected one tried at once)', () => {
  it('after a connection error refuses commands without sending them, then logs the failure once', async () => {
    const { guard, logged } = guardWithLog();
    const client = new EventEmitter();
    guard.watch(client as unknown as Redis);
    client.emit('error', new Error('connect ECONNREFUSED'));
    client.emit('error', new Error('connect ECONNREFUSED'));
    expect(await sends(guard)).to.equal(false);
    expect(logged).to.deep.equal(['warn data cache: Redis unavailable, reads are not cached until it answers again']);
  });

  it('sends the next command as soon as the client is ready again (a failover: on the new primary), then recovers', async () => {
    const { guard, logged } = guardWithLog();
    const client = new EventEmitter();
    guard.watch(client as unknown as Redis);
    client.emit('error', new Error('connect ECONNREFUSED'));
    client.emit('ready');
    expect(await sends(guard)).to.equal(true);
    expect(logged.at(-1)).to.equal('info data cache: Redis answers again');
    expect(await sends(guard)).to.equal(true);
  });

  it('refuses again after a reconnection whose first command fails', async () => {
    const { guard } = guardWithLog();
    const client = new EventEmitter();
    guard.watch(client as unknown as Redis);
    client.emit('error', new Error('connect ECONNREFUSED'));
    client.emit('ready');
    await guard.run(() => Promise.reject(new Error('READONLY'))).catch(() => undefined);
    expect(await sends(guard)).to.equal(false);
  });
});
