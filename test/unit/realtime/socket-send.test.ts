import { expect } from 'chai';
import type { AddressInfo } from 'node:net';
import { WebSocket, WebSocketServer } from 'ws';
import { sendBounded, TOO_SLOW } from '../../../src/realtime/socket-send.js';

describe('realtime: a client that does not read', () => {
  it('is closed with 1013 once more than the bound waits for it, and nothing more is queued', async () => {
    const server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    try {
      await new Promise((resolve) => server.once('listening', resolve));
      const accepted = new Promise<WebSocket>((resolve) => server.once('connection', resolve));
      const client = new WebSocket(`ws://127.0.0.1:${(server.address() as AddressInfo).port}`);
      const closed = new Promise<number>((resolve) => client.once('close', resolve));
      const ws = await accepted;
      await new Promise((resolve) => client.once('open', resolve));
      // The client stops reading: what the server sends piles up in its buffer.
      const socket = (client as unknown as { _socket: { pause(): void; resume(): void } })._socket;
      socket.pause();
      const frame = 'x'.repeat(64 * 1024);
      let sent = 0;
      while (sendBounded(ws, frame, 256 * 1024)) {
        sent++;
        if (ws.bufferedAmount <= 256 * 1024) await new Promise((resolve) => setImmediate(resolve));
      }
      expect(sent).to.be.greaterThan(0);
      const buffered = ws.bufferedAmount;
      expect(sendBounded(ws, frame, 256 * 1024)).to.equal(false);
      expect(ws.bufferedAmount).to.be.at.most(buffered + 16);
      // It reads again within the grace: it is told why.
      socket.resume();
      expect(await closed).to.equal(TOO_SLOW);
    } finally {
      server.close();
    }
  });
});
