import { expect } from 'chai';
import { describeEachDatabase, TEST_ADMIN } from '../../support/server.js';
import { createNotes } from '../faults/load.js';

const ADMIN = { Authorization: `Bearer ${TEST_ADMIN.token}` };

/** POST /schema/diff with the snapshot as a multipart `file` part, as Directus's app uploads it. */
function diffUpload(url: string, text: string, type: string, part = 'file'): Promise<Response> {
  const form = new FormData();
  form.append(part, new Blob([text], { type }), 'snapshot');
  return fetch(`${url}/schema/diff`, { method: 'POST', headers: ADMIN, body: form });
}

describeEachDatabase('POST /schema/diff: a snapshot file uploaded as multipart', (ctx) => {
  it('takes the YAML or JSON download of GET /schema/snapshot: 204 for the same schema, the plan after a change', async () => {
    const { url } = ctx().server;
    const yaml = await (await fetch(`${url}/schema/snapshot?export=yaml`, { headers: ADMIN })).text();
    const json = await (await fetch(`${url}/schema/snapshot?export=json`, { headers: ADMIN })).text();
    expect((await diffUpload(url, yaml, 'text/yaml')).status).to.equal(204);
    expect((await diffUpload(url, json, 'application/json')).status).to.equal(204);

    await createNotes(url);
    const res = await diffUpload(url, yaml, 'application/octet-stream');
    expect(res.status).to.equal(200);
    const body = (await res.json()) as { data: { hash: string; diff: unknown } };
    expect(body.data.hash).to.be.a('string');
    expect(JSON.stringify(body.data.diff)).to.contain('notes');
  });

  it('refuses a file that is not a snapshot, and a form without the file, with INVALID_PAYLOAD', async () => {
    const { url } = ctx().server;
    for (const res of [
      await diffUpload(url, 'collections: [\n  - {', 'text/yaml'),
      await diffUpload(url, '{"version": 1, "collections": ', 'application/json'),
      await diffUpload(url, 'version: 1', 'text/yaml', 'other'),
    ]) {
      expect(res.status).to.equal(400);
      const body = (await res.json()) as { errors: { extensions: { code: string } }[] };
      expect(body.errors[0]?.extensions.code).to.equal('INVALID_PAYLOAD');
    }
  });
});
