import { spawn, type ChildProcess } from 'node:child_process';
import { setTimeout as delay } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { freePort } from './ports.js';

/** A redis-server process of one test, on a free loopback port, with no persistence. */
export interface RedisProcess {
  readonly url: string;
  /** SIGSTOP: the server keeps its connections but answers nothing (a hung Redis). */
  pause(): void;
  /** SIGCONT. */
  resume(): void;
  /** Kills the process (resumed first, so it can exit). */
  stop(): Promise<void>;
  /** A new redis-server on the same port (after {@link stop}): a Redis restarted empty. */
  restart(): Promise<RedisProcess>;
}

/** Starts `redis-server` (on a free port unless given) and waits until it answers PING. */
export async function startRedisProcess(port?: number): Promise<RedisProcess> {
  return startOn(port ?? (await freePort()));
}

async function startOn(port: number): Promise<RedisProcess> {
  const child: ChildProcess = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: 'ignore',
    },
  );
  const url = `redis://127.0.0.1:${port}`;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const signal = (name: NodeJS.Signals) => {
    if (child.exitCode === null) child.kill(name);
  };
  const stop = async () => {
    signal('SIGCONT');
    signal('SIGKILL');
    await exited;
  };
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    probe.on('error', () => undefined);
    try {
      await probe.connect();
      await probe.ping();
      return {
        url,
        pause: () => signal('SIGSTOP'),
        resume: () => signal('SIGCONT'),
        stop,
        restart: () => startOn(port),
      };
    } catch {
      await delay(50);
    } finally {
      probe.disconnect();
    }
  }
  await stop();
  throw new Error(`redis-server on port ${port} did not start`);
}
