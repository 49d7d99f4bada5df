import { expect } from 'chai';
import { stringify as toYaml } from 'yaml';
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

/** POST /schema/apply with the plan of /schema/diff as a multipart `file` part. */
function applyUpload(url: string, text: string, type: string, part = 'file'): Promise<Response> {
  const form = new FormData();
  form.append(part, new Blob([text], { type }), 'diff');
  return fetch(`${url}/schema/apply`, { method: 'POST', headers: ADMIN, body: form });
}

describeEachDatabase('POST /schema/apply: a diff file uploaded as multipart', (ctx) => {
  it('applies the plan of /schema/diff uploaded as a file (here YAML), as /schema/diff takes its snapshot', async () => {
    const { url } = ctx().server;
    await createNotes(url);
    const withNotes = await (await fetch(`${url}/schema/snapshot?export=json`, { headers: ADMIN })).text();
    const dropped = await fetch(`${url}/collections/notes`, { method: 'DELETE', headers: ADMIN });
    expect(dropped.status).to.equal(204);
    const diff = await diffUpload(url, withNotes, 'application/json');
    expect(diff.status).to.equal(200);
    const plan = ((await diff.json()) as { data: unknown }).data;

    const applied = await applyUpload(url, toYaml(plan), 'text/yaml');
    expect(applied.status, await applied.clone().text()).to.equal(204);
    const notes = await fetch(`${url}/items/notes`, { headers: ADMIN });
    expect(notes.status).to.equal(200);
    expect(await diffUpload(url, withNotes, 'application/json').then((res) => res.status)).to.equal(204);
  });

  it('refuses a form without the file, or a file that is neither JSON nor YAML, with INVALID_PAYLOAD', async () => {
    const { url } = ctx().server;
    for (const res of [
      await applyUpload(url, '{"hash": "x", "diff": ', 'application/json'),
      await applyUpload(url, '{"hash": "x"}', 'application/json', 'other'),
    ]) {
      expect(res.status).to.equal(400);
      const body = (await res.json()) as { errors: { extensions: { code: string } }[] };
      expect(body.errors[0]?.extensions.code).to.equal('INVALID_PAYLOAD');
    }
  });
});
