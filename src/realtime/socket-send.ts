import type { Duplex } from 'node:stream';
import type { RawData, WebSocket } from 'ws';

/** The close code of a client cut for not reading (1013 Try Again Later: clients reconnect, then catch up). */
export const TOO_SLOW = 1013;

/** How long a client cut for not reading has to answer the close before its socket is destroyed. */
const TOO_SLOW_GRACE_MS = 5000;

/**
 * Ends a socket whose client does not read what is sent: closed with {@link TOO_SLOW} (the
 * frame waits behind what is buffered, so a client that reads again learns why), nothing more
 * is sent to it, and destroyed after {@link TOO_SLOW_GRACE_MS} if the client has not answered
 * (its subscriptions end then), not after ws's 30 s.
 */
export function closeTooSlow(ws: WebSocket): void {
  if (ws.readyState !== ws.OPEN) return;
  ws.close(TOO_SLOW, 'too slow: WEBSOCKETS_MAX_BUFFERED_SIZE exceeded');
  setTimeout(() => {
    ws.terminate();
  }, TOO_SLOW_GRACE_MS).unref();
}

/**
 * Sends `text` unless the client has stopped reading: when more than `maxBuffered` bytes wait
 * for it, the connection is closed ({@link closeTooSlow}; its subscriptions end with it)
 * instead of the process holding ever more memory for one slow reader. True when sent.
 */
export function sendBounded(ws: WebSocket, text: string, maxBuffered: number): boolean {
  if (ws.readyState !== ws.OPEN) return false;
  if (ws.bufferedAmount > maxBuffered) {
    closeTooSlow(ws);
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

/** A text frame's content, whichever form ws hands it in (a Buffer by default). */
export function frameText(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString();
  return Buffer.isBuffer(data) ? data.toString() : Buffer.from(data).toString();
}
