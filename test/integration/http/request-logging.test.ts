import { expect } from 'chai';
import { startServer, type RunningServer } from '../../../src/server.js';
import { capturingLogger } from '../../support/capturing-logger.js';
import { TEST_ADMIN, describeEachDatabase, testConfig } from '../../support/server.js';
import { createQueryFixture } from '../query/fixture-schema.js';

/** What a request line says, without what differs from run to run. */
function essence(line: Record<string, unknown> | undefined) {
  const req = line?.['req'] as Record<string, unknown> | undefined;
  const res = line?.['res'] as Record<string, unknown> | undefined;
  return {
    level: line?.['level'],
    msg: line?.['msg'],
    method: req?.['method'],
    url: req?.['url'],
    statusCode: res?.['statusCode'],
    headers: res?.['headers'],
    responseTime: typeof line?.['responseTime'],
  };
}

/**
 * At LOG_LEVEL info the requests answered before Express (src/http/fast-path.ts) are logged
 * as Express logs them: one pino-http line per request, same level, message, method, URL and
 * status, whichever server answers.
 */
describeEachDatabase('http: requests answered before Express are logged like Express logs them', (ctx) => {
  const fastLines: Record<string, unknown>[] = [];
  const expressLines: Record<string, unknown>[] = [];
  let fast: RunningServer;
  let viaExpress: RunningServer;

  before(async () => {
    const c = ctx();
    await createQueryFixture(c);
    fast = await startServer(testConfig(c.database), { logger: capturingLogger(fastLines) });
    viaExpress = await startServer(testConfig(c.database), { logger: capturingLogger(expressLines), fastPath: false });
  });

  after(async () => {
    await fast.close();
    await viaExpress.close();
  });

  const admin = { Authorization: `Bearer ${TEST_ADMIN.token}`, 'Content-Type': 'application/json' };
  const REQUESTS: readonly [string, string, string | undefined][] = [
    ['GET', '/items/articles?fields=id,title&limit=2', undefined],
    ['GET', '/items/articles/999', undefined],
    ['PATCH', '/items/articles/1?fields=title', '{"title":"Logged"}'],
    ['PATCH', '/items/articles/1', '{"title":'],
    ['POST', '/items/nothing_here', '{}'],
  ];

  for (const [method, path, body] of REQUESTS) {
    it(`${method} ${path}: one line, as Express writes it`, async () => {
      const requestLines = (lines: Record<string, unknown>[]) => lines.filter((l) => l['req'] !== undefined);
      const before = [requestLines(fastLines).length, requestLines(expressLines).length];
      for (const server of [fast, viaExpress]) {
        const res = await fetch(server.url + path, { method, headers: admin, ...(body === undefined ? {} : { body }) });
        await res.arrayBuffer();
      }
      // pino-http writes the line when the response finishes, after the client has it.
      await new Promise((resolve) => setTimeout(resolve, 50));
      const fastNew = requestLines(fastLines).slice(before[0]);
      const expressNew = requestLines(expressLines).slice(before[1]);
      expect(fastNew).to.have.length(1);
      expect(expressNew).to.have.length(1);
      expect(essence(fastNew[0])).to.deep.equal(essence(expressNew[0]));
      expect(essence(fastNew[0])).to.include({ method, url: path, responseTime: 'number' });
    });
  }
});
