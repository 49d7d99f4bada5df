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
      const [fastBefore, expressBefore] = [requestLines(fastLines).length, requestLines(expressLines).length];
      for (const server of [fast, viaExpress]) {
        const res = await fetch(server.url + path, { method, headers: admin, ...(body === undefined ? {} : { body }) });
        await res.arrayBuffer();
      }
      // pino-http writes the line when the response finishes, after the client has it.
      await waitFor(() =>
        requestLines(fastLines).length > fastBefore && requestLines(expressLines).length > expressBefore
          ? true
          : undefined,
      );
      const fastNew = requestLines(fastLines).slice(fastBefore);
      const expressNew = requestLines(expressLines).slice(expressBefore);
      expect(fastNew).to.have.length(1);
      expect(expressNew).to.have.length(1);
      expect(essence(fastNew[0])).to.deep.equal(essence(expressNew[0]));
      expect(essence(fastNew[0])).to.include({ method, url: path, responseTime: 'number' });
    });
  }
});

/**
 * LOG_STYLE=pretty (the default, for a person at a console): one short line per request, the
 * method, path, status, time and request id in its message and nothing else, whichever way the
 * request was answered (before Express, by Express, refused).
 */
describeEachDatabase('http: the pretty style logs one short line per request', (ctx) => {
  const lines: Record<string, unknown>[] = [];
  let server: RunningServer;

  before(async () => {
    const c = ctx();
    await createQueryFixture(c);
    server = await startServer(testConfig(c.database, { LOG_STYLE: 'pretty' }), { logger: capturingLogger(lines) });
  });

  after(async () => {
    await server.close();
  });

  const REQUESTS: readonly [string, string, number, boolean][] = [
    ['GET', '/items/articles?fields=id,title&limit=2', 200, true],
    ['GET', '/collections', 200, true],
    ['POST', '/items/nothing_here', 403, true],
    ['GET', '/items/articles?access_token=' + TEST_ADMIN.token, 200, false],
  ];
  for (const [method, path, status, withHeader] of REQUESTS) {
    it(`${method} ${path.split('?')[0] ?? ''} → ${status}: "${method} <path> ${status} <n>ms id=<id>", under 200 characters`, async () => {
      const headers: Record<string, string> = { 'Content-Type': 'application/json' };
      if (withHeader) headers['Authorization'] = `Bearer ${TEST_ADMIN.token}`;
      const res = await fetch(server.url + path, { method, headers, ...(method === 'POST' ? { body: '{}' } : {}) });
      await res.arrayBuffer();
      expect(res.status).to.equal(status);
      const line = await waitFor(() => lines.find((l) => String(l['msg']).startsWith(`${method} `)));
      lines.length = 0;
      const shown = path.replace(TEST_ADMIN.token, '[redacted]');
      expect(String(line['msg'])).to.match(
        new RegExp(`^${method} ${shown.replace(/[?[\]]/g, '\\$&')} ${status} \\d+ms id=\\S+$`),
      );
      expect(line).to.have.all.keys('level', 'time', 'pid', 'hostname', 'msg');
      expect(JSON.stringify(line).length).to.be.below(200);
    });
  }
});

async function waitFor<T>(find: () => T | undefined): Promise<T> {
  for (let tries = 0; tries < 500; tries++) {
    const found = find();
    if (found !== undefined) return found;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return expect.fail('no request line');
}
