import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';

/**
 * Sends `text` unless the client has stopped reading: when more than `maxBuffered` bytes wait
 * for it, the connection is cut (its subscriptions end with it) instead of the process
 * holding ever more memory for one slow reader. True when sent.
 */
export function sendBounded(ws: WebSocket, text: string, maxBuffered: number): boolean {
  if (ws.readyState !== ws.OPEN) return false;
  if (ws.bufferedAmount > maxBuffered) {
    ws.terminate();
    return false;
  }
  ws.send(text);
  return true;
}

/**
 * Corks the TCP socket under `ws` (ws has no batch send of its own): the frames sent until
 * `uncork` leave in one write instead of one write each.
 */
export function socketFrames(ws: WebSocket): { cork(): void; uncork(): void } {
  const socket = () => (ws as unknown as { _socket?: Duplex | null })._socket ?? undefined;
  return {
    cork: () => socket()?.cork(),
    uncork: () => socket()?.uncork(),
  };
}

/**
 * As socketFrames, for a socket whose frames are sent after the delivery (graphql-ws sends from
 * its subscription's async iterator): the frames of one change, sent in the microtasks that
 * follow, leave together once they have run.
 */
export function laterFrames(ws: WebSocket): { cork(): void; uncork(): void } {
  const frames = socketFrames(ws);
  return {
    cork: () => {
      frames.cork();
    },
    uncork: () =>
      setImmediate(() => {
        frames.uncork();
      }),
  };
}
