import { expect } from 'chai';
import { connect } from 'node:net';
import { describeEachDatabase, TEST_ADMIN } from '../../support/server.js';
import { sqliteTarget } from '../../support/services.js';

/** Sends a request's headers and the first bytes of a body of `length`, then nothing more; the answer as text. */
function stalledRequest(url: string, length: number): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      socket.write(
        `POST /utils/hash/generate HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: Bearer ${TEST_ADMIN.token}\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${length}\r\n\r\n{"string": "`,
      );
    });
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
  });
}

describeEachDatabase(
  'REQUEST_TIMEOUT: the longest a request may take to arrive',
  (ctx) => {
    it('a request whose body stops arriving is answered 400 INVALID_PAYLOAD naming the timeout, then closed', async () => {
      const started = Date.now();
      const answer = await stalledRequest(ctx().server.url, 10_000);
      expect(Date.now() - started).to.be.within(900, 10_000);
      expect(answer).to.match(/^HTTP\/1\.1 400 /);
      const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as {
        errors: { extensions: { code: string; reason: string } }[];
      };
      expect(body.errors[0]?.extensions).to.deep.equal({
        reason: 'The request did not arrive within REQUEST_TIMEOUT',
        code: 'INVALID_PAYLOAD',
      });
    });

    it('requests that arrive in time are answered as usual', async () => {
      const res = await fetch(`${ctx().server.url}/server/ping`);
      expect(res.status).to.equal(200);
    });
  },
  { targets: [sqliteTarget], env: { REQUEST_TIMEOUT: '1s' } },
);
