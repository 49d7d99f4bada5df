import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { freePort } from './ports.js';

const REDIS_SERVER = process.env['TEST_REDIS_SERVER'] ?? '/usr/bin/redis-server';
const REDIS_SENTINEL = process.env['TEST_REDIS_SENTINEL'] ?? '/usr/bin/redis-sentinel';

/** The primary's name in the Sentinels' configuration. */
export const SENTINEL_PRIMARY_NAME = 'svc-primary';

/** Why Sentinels cannot be run here, or undefined when they can. */
export function redisSentinelUnavailable(): string | undefined {
  for (const [binary, variable] of [
    [REDIS_SERVER, 'TEST_REDIS_SERVER'],
    [REDIS_SENTINEL, 'TEST_REDIS_SENTINEL'],
  ] as const) {
    if (!existsSync(binary)) return `no ${binary} (apt-get install redis-server redis-sentinel, or ${variable})`;
  }
  return undefined;
}

/** A primary, a replica and three Sentinels (quorum 2) on loopback ports, all of one suite. */
export interface SentinelSetup {
  /** The Sentinels as REDIS_SENTINELS takes them: `127.0.0.1:<port>,…`. */
  readonly sentinels: string;
  /** The ports of the primary and the replica at the start. */
  readonly primaryPort: number;
  readonly replicaPort: number;
  /** The port of the primary the Sentinels name now. */
  primaryNow(): Promise<number>;
  /** SIGKILL on the primary (the Sentinels notice after 1 s and promote the replica). */
  killPrimary(): void;
  /** A client straight to one server (not through the Sentinels), closed by {@link stop}. */
  client(port: number): Redis;
  stop(): Promise<void>;
}

export async function startSentinelSetup(): Promise<SentinelSetup> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-sentinel-'));
  const children: ChildProcess[] = [];
  const clients: Redis[] = [];
  const run = (command: string, args: string[]) => {
    const child = spawn(command, args, { stdio: 'ignore' });
    children.push(child);
    return child;
  };
  const client = (port: number) => {
    const redis = new Redis({
      port,
      host: '127.0.0.1',
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    redis.on('error', () => undefined);
    clients.push(redis);
    return redis;
  };
  const stop = async () => {
    for (const redis of clients) redis.disconnect();
    await Promise.all(
      children.map(async (child) => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGKILL');
        await exited;
      }),
    );
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const primaryPort = await freePort();
    const replicaPort = await freePort();
    // A replica writes the primary's snapshot to its folder as it syncs: the suite's, not the checkout.
    const server = ['--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir];
    const primaryProcess = run(REDIS_SERVER, ['--port', String(primaryPort), ...server]);
    run(REDIS_SERVER, ['--port', String(replicaPort), ...server, '--replicaof', '127.0.0.1', String(primaryPort)]);
    await until('the replica to sync', async () =>
      (await ask(client(replicaPort), 'info', 'replication')).includes('master_link_status:up'),
    );
    const sentinelPorts: number[] = [];
    for (let i = 0; i < 3; i += 1) {
      const port = await freePort();
      sentinelPorts.push(port);
      // Sentinel rewrites its configuration file: one each, in the suite's folder.
      const file = join(dir, `sentinel-${port}.conf`);
      writeFileSync(
        file,
        [
          `port ${port}`,
          'bind 127.0.0.1',
          `dir ${dir}`,
          `sentinel monitor ${SENTINEL_PRIMARY_NAME} 127.0.0.1 ${primaryPort} 2`,
          `sentinel down-after-milliseconds ${SENTINEL_PRIMARY_NAME} 1000`,
          `sentinel failover-timeout ${SENTINEL_PRIMARY_NAME} 10000`,
          `sentinel parallel-syncs ${SENTINEL_PRIMARY_NAME} 1`,
          '',
        ].join('\n'),
      );
      run(REDIS_SENTINEL, [file]);
    }
    // A failover needs each Sentinel to know the replica and the two others (their hellos, every 2 s).
    for (const port of sentinelPorts) {
      await until(`Sentinel ${port} to know the replica and the other Sentinels`, async () => {
        // A client of its own per try: one that failed to connect stays closed.
        const sentinel = client(port);
        const replicas = (await sentinel.call('sentinel', 'replicas', SENTINEL_PRIMARY_NAME)) as unknown[];
        const others = (await sentinel.call('sentinel', 'sentinels', SENTINEL_PRIMARY_NAME)) as unknown[];
        return replicas.length === 1 && others.length === 2;
      });
    }
    const first = new Redis({ port: sentinelPorts[0] ?? 0, host: '127.0.0.1', maxRetriesPerRequest: 1 });
    first.on('error', () => undefined);
    clients.push(first);
    return {
      sentinels: sentinelPorts.map((port) => `127.0.0.1:${port}`).join(','),
      primaryPort,
      replicaPort,
      async primaryNow() {
        const [, port] = (await first.call('sentinel', 'get-master-addr-by-name', SENTINEL_PRIMARY_NAME)) as string[];
        return Number(port);
      },
      killPrimary() {
        primaryProcess.kill('SIGKILL');
      },
      client,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function ask(redis: Redis, ...command: string[]): Promise<string> {
  if (redis.status === 'wait') await redis.connect();
  return String(await redis.call(command[0]!, ...command.slice(1)));
}

async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  for (let attempt = 0; attempt < 300; attempt += 1) {
    try {
      if (await check()) return;
    } catch {
      // Not up yet.
    }
    await delay(100);
  }
  throw new Error(`timed out waiting for ${what}`);
}
