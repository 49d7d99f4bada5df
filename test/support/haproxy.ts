import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { freePort } from './ports.js';

/** Debian's binary; TEST_HAPROXY_BIN overrides. */
const HAPROXY_BIN = process.env['TEST_HAPROXY_BIN'] ?? '/usr/sbin/haproxy';

/** Why haproxy cannot be started here, or undefined when it can. */
export function haproxyUnavailable(): string | undefined {
  return existsSync(HAPROXY_BIN)
    ? undefined
    : `no haproxy at ${HAPROXY_BIN} (apt-get install haproxy, or TEST_HAPROXY_BIN)`;
}

/** A haproxy process of one suite, balancing HTTP over some API instances on loopback ports. */
export interface HaproxyProcess {
  /** The frontend: `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** Each backend server's state as haproxy's health checks see it (`UP`, `DOWN`, `UP 1/2`, …). */
  states(): Promise<Record<string, string>>;
  /** Everything it printed. */
  output(): string;
  stop(): Promise<void>;
}

export interface HaproxyOptions {
  /** The instances, by name: their loopback ports. */
  readonly servers: Readonly<Record<string, number>>;
  /** GET this path every `intervalMs`; two failed checks take a server out, two good ones bring it back. */
  readonly healthPath: string;
  readonly intervalMs: number;
}

/**
 * Starts `haproxy` in the foreground with a configuration a production balancer would have:
 * round robin, HTTP health checks, keep-alive to the servers, and a connection refused by a
 * server retried on another (`retry-on conn-failure`, which never resends a request a server
 * may have received).
 */
export async function startHaproxy(options: HaproxyOptions): Promise<HaproxyProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-haproxy-'));
  const port = await freePort();
  const socket = join(dir, 'admin.sock');
  const config = join(dir, 'haproxy.cfg');
  writeFileSync(
    config,
    [
      'global',
      `  stats socket ${socket} mode 600 level admin`,
      'defaults',
      '  mode http',
      '  timeout connect 2s',
      '  timeout client 60s',
      '  timeout server 60s',
      '  timeout http-keep-alive 60s',
      // A health check answered late is a slow instance, not a dead one (a busy machine).
      '  timeout check 5s',
      '  retries 3',
      '  retry-on conn-failure',
      '  option redispatch',
      'frontend api',
      `  bind 127.0.0.1:${port}`,
      '  default_backend instances',
      'backend instances',
      '  balance roundrobin',
      `  option httpchk GET ${options.healthPath}`,
      '  http-check expect status 200',
      `  default-server inter ${options.intervalMs} fall 2 rise 2`,
      ...Object.entries(options.servers).map(([name, serverPort]) => `  server ${name} 127.0.0.1:${serverPort} check`),
      '',
    ].join('\n'),
  );
  const child: ChildProcess = spawn(HAPROXY_BIN, ['-db', '-f', config], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const states = async () => {
    const csv = await adminCommand(socket, 'show stat');
    const result: Record<string, string> = {};
    for (const line of csv.split('\n')) {
      const [proxy, server, ...fields] = line.split(',');
      // The 18th column of `show stat` is the status (pxname, svname, then 16 counters).
      if (proxy === 'instances' && server !== undefined && server !== 'BACKEND') result[server] = fields[15] ?? '';
    }
    return result;
  };
  for (let attempt = 0; attempt < 100; attempt += 1) {
    if (child.exitCode !== null) break;
    if (existsSync(socket)) {
      try {
        await states();
        return { url: `http://127.0.0.1:${port}`, states, output: () => output, stop };
      } catch {
        // Not answering yet.
      }
    }
    await delay(50);
  }
  await stop();
  throw new Error(`haproxy did not start:\n${output}`);
}

/** One command on haproxy's admin socket, and its whole answer. */
function adminCommand(path: string, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const connection = createConnection(path, () => connection.end(`${command}\n`));
    let answer = '';
    connection.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    connection.once('error', reject);
    connection.once('close', () => resolve(answer));
  });
}
