import ivm from 'isolated-vm';

/** The bounds of one isolate, and the settings that set them (named when a call passes one). */
export interface SandboxLimits {
  readonly memoryMb: number;
  readonly timeoutMs: number;
  readonly memorySetting: string;
  readonly timeoutSetting: string;
}

/**
 * What sandboxed code may call on the host, by name: arguments and result cross as JSON copies,
 * and the call answers a promise inside the isolate.
 */
export type HostFunctions = Readonly<Record<string, (...args: unknown[]) => unknown>>;

/** A sandboxed call that failed: its code threw, it ran out of time, or out of memory. */
class SandboxFailure extends Error {
  override readonly name = 'SandboxFailure';
}

/**
 * The sandbox's own globals: each host function as an async function, `console` through the
 * host's `log` when there is one, and `module` / `exports` for a CommonJS-style script. Nothing
 * else of node (no `require`, `process`, timers or network) exists in an isolate.
 */
function preludeOf(hostNames: readonly string[]): string {
  const hosts = hostNames.map((name) => {
    const key = JSON.stringify(name);
    const slot = JSON.stringify(`$host.${name}`);
    return `{
  const call = globalThis[${slot}];
  delete globalThis[${slot}];
  globalThis[${key}] = async (...args) => {
    const answer = await call.apply(undefined, [JSON.stringify(args)], { result: { promise: true } });
    return answer === undefined ? undefined : JSON.parse(answer);
  };
}`;
  });
  return `${hosts.join('\n')}
{
  const print = (level) => (...args) => {
    if (typeof globalThis.log !== 'function') return;
    globalThis.log(args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' '), level).catch(() => undefined);
  };
  globalThis.console = { log: print('info'), info: print('info'), warn: print('warn'), error: print('error'), debug: print('debug') };
  globalThis.module = { exports: {} };
  globalThis.exports = globalThis.module.exports;
}`;
}

/**
 * One fresh isolate of `limits.memoryMb` for `work`, disposed after it. The clock covers the
 * whole call, waits on host functions included: past `limits.timeoutMs` the isolate is disposed
 * (an endless loop stops there), as it is past its memory; both fail naming their setting.
 */
export async function inSandbox<T>(
  limits: SandboxLimits,
  host: HostFunctions,
  work: (isolate: ivm.Isolate, context: ivm.Context) => Promise<T>,
): Promise<T> {
  const isolate = new ivm.Isolate({ memoryLimit: limits.memoryMb });
  let timer: NodeJS.Timeout | undefined;
  // Disposing the isolate ends what runs in it; a promise it never settles is raced here.
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      if (!isolate.isDisposed) isolate.dispose();
      reject(new SandboxFailure(`ran longer than ${limits.timeoutSetting} (${limits.timeoutMs} ms)`));
    }, limits.timeoutMs);
  });
  const run = async () => {
    const context = await isolate.createContext();
    for (const [name, fn] of Object.entries(host)) {
      const call = async (json: string) => {
        const answer = await fn(...(JSON.parse(json) as unknown[]));
        return answer === undefined ? undefined : JSON.stringify(answer);
      };
      await context.global.set(`$host.${name}`, new ivm.Reference(call));
    }
    await context.eval(preludeOf(Object.keys(host)));
    return work(isolate, context);
  };
  const running = run();
  // Cut by the clock, the run fails later (its isolate disposed): nobody waits for it then.
  running.catch(() => undefined);
  try {
    return await Promise.race([running, expired]);
  } catch (error) {
    // Out of time: the clock's own failure, which won the race.
    if (error instanceof SandboxFailure) throw error;
    if (isolate.isDisposed) {
      throw new SandboxFailure(`used more memory than ${limits.memorySetting} (${limits.memoryMb} MB)`);
    }
    throw new SandboxFailure(error instanceof Error ? error.message : String(error));
  } finally {
    clearTimeout(timer);
    expired.catch(() => undefined);
    if (!isolate.isDisposed) isolate.dispose();
  }
}
