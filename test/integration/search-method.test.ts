import { expect } from 'chai';
import express from 'express';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

// The spec's SEARCH method must pass Node's HTTP parser and Express's router with its body.
describe('SEARCH method through node:http and Express', () => {
  it('routes SEARCH with a JSON body to router.search()', async () => {
    const app = express();
    app.use(express.json());
    app.search('/items/:collection', (req, res) => {
      res.json({ method: req.method, collection: req.params['collection'], body: req.body as unknown });
    });
    const server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const res = await fetch(`http://127.0.0.1:${port}/items/articles`, {
        method: 'SEARCH',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ query: { limit: 1 } }),
      });
      expect(res.status).to.equal(200);
      expect(await res.json()).to.deep.equal({
        method: 'SEARCH',
        collection: 'articles',
        body: { query: { limit: 1 } },
      });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
