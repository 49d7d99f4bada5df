/**
 * A worker thread of bench/realtime.ts: opens its share of the subscriber sockets, parses every
 * delivery and notes (item id, arrival time) on the clock the writer uses (performance.timeOrigin
 * + performance.now(), the same wall clock in every thread), so the bench's own parsing runs
 * beside the writer instead of in its event loop. Answers `ready` once every subscription got its
 * `init`, and its arrivals (a Float64Array of id, time pairs) on `stop`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { WebSocket } from 'ws';

interface Options {
  /** One address per socket (each with its token). */
  readonly urls: readonly string[];
  readonly perConnection: number;
}

const { urls, perConnection } = workerData as Options;
const now = () => performance.timeOrigin + performance.now();
let arrivals = new Float64Array(1 << 16);
let count = 0;

function note(id: number, at: number): void {
  if (count * 2 + 2 > arrivals.length) {
    const bigger = new Float64Array(arrivals.length * 2);
    bigger.set(arrivals);
    arrivals = bigger;
  }
  arrivals[count * 2] = id;
  arrivals[count * 2 + 1] = at;
  count++;
}

async function open(url: string): Promise<WebSocket> {
  const ws = new WebSocket(url);
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  let inits = 0;
  const ready = new Promise<void>((resolve) => {
    ws.on('message', (data) => {
      const at = now();
      const m = JSON.parse(data.toString()) as { type: string; event?: string; data?: { id: number }[] };
      if (m.type === 'ping') return ws.send('{"type":"pong"}');
      if (m.event === 'init' && ++inits === perConnection) resolve();
      if (m.event === 'create') for (const item of m.data ?? []) note(item.id, at);
    });
  });
  for (let s = 0; s < perConnection; s++)
    ws.send(
      JSON.stringify({ type: 'subscribe', collection: 'live_metrics', query: { fields: ['id', 'sent'] }, uid: `${s}` }),
    );
  await ready;
  return ws;
}

const sockets: WebSocket[] = [];
// A few sockets at a time: quicker than one by one, without a thousand handshakes at once.
for (let c = 0; c < urls.length; c += 20) sockets.push(...(await Promise.all(urls.slice(c, c + 20).map(open))));
parentPort?.postMessage({ type: 'ready' });
parentPort?.on('message', (message: { type: string }) => {
  if (message.type !== 'stop') return;
  for (const ws of sockets) ws.terminate();
  const result = arrivals.slice(0, count * 2);
  parentPort?.postMessage({ type: 'arrivals', arrivals: result }, [result.buffer]);
});
