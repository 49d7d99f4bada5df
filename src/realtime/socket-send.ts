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
