import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createConnection } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { freePort } from './throwaway-postgres.js';

const REDIS_SERVER = process.env['TEST_REDIS_SERVER'] ?? '/usr/bin/redis-server';

/** A Redis server of its own (own port, nothing saved) for tests that stop and start it. */
export interface ThrowawayRedis {
  readonly url: string;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** Why a throw-away Redis cannot be run here, or undefined when it can. */
export function throwawayRedisUnavailable(): string | undefined {
  return existsSync(REDIS_SERVER) ? undefined : `no redis-server at ${REDIS_SERVER} (TEST_REDIS_SERVER)`;
}

export async function createThrowawayRedis(): Promise<ThrowawayRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const redis: ThrowawayRedis = {
    url: `redis://127.0.0.1:${port}`,
    async start() {
      child = spawn(REDIS_SERVER, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
        stdio: 'ignore',
      });
      for (let tries = 0; !(await isListening(port)); tries += 1) {
        if (tries > 100) throw new Error(`redis-server did not listen on ${port}`);
        await delay(50);
      }
    },
    async stop() {
      const running = child;
      if (running === undefined || running.exitCode !== null || running.signalCode !== null) return;
      const exited = new Promise((resolve) => running.once('exit', resolve));
      running.kill('SIGKILL');
      await exited;
    },
  };
  await redis.start();
  return redis;
}

function isListening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
