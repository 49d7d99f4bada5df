import { expect } from 'chai';
import { describeEachDatabase } from '../../support/server.js';
import { adminApi, dataOf, errorsOf } from '../commands/schema.js';

type Row = Record<string, unknown>;

describeEachDatabase('folders', (ctx) => {
  const api = (method: string, path: string, body?: unknown) => adminApi(ctx(), method, path, body);
  const folder = async (name: string, parent: unknown = null) =>
    String(dataOf<Row>(await api('POST', '/folders', { name, parent }))['id']);
  const parents = async () =>
    Object.fromEntries(
      (await ctx().server.db('svc_folders').select<Row[]>('name', 'parent')).map((r) => [r['name'], r['parent']]),
    );
  const cycle = [['FAILED_VALIDATION', { field: 'parent', type: 'cycle' }]];

  it('a folder is never its own ancestor: not its own parent, nor the child of a folder inside it', async () => {
    const top = await folder('top');
    const middle = await folder('middle', top);
    const bottom = await folder('bottom', middle);
    const before = await parents();
    expect(errorsOf(await api('PATCH', `/folders/${top}`, { parent: top }), 400)).to.deep.equal(cycle);
    expect(errorsOf(await api('PATCH', `/folders/${top}`, { parent: bottom }), 400)).to.deep.equal(cycle);
    expect(errorsOf(await api('PATCH', '/folders', { keys: [middle], data: { parent: bottom } }), 400)).to.deep.equal(
      cycle,
    );
    const id = '0f0f0f0f-0000-4000-8000-000000000001';
    expect(errorsOf(await api('POST', '/folders', { id, name: 'self', parent: id }), 400)).to.deep.equal(cycle);
    expect(await parents()).to.deep.equal(before);
    // Moving a folder elsewhere in the tree, or to the top, is fine.
    dataOf(await api('PATCH', `/folders/${bottom}`, { parent: top }));
    dataOf(await api('PATCH', `/folders/${middle}`, { parent: bottom }));
    dataOf(await api('PATCH', `/folders/${bottom}`, { parent: null }));
    expect(await parents()).to.deep.include({ top: null, middle: bottom, bottom: null });
  });

  it("deleting a folder leaves its files and subfolders at the top, as Directus's foreign keys do", async () => {
    const outer = await folder('outer');
    const inner = await folder('inner', outer);
    const file = dataOf<Row>(
      await api('POST', '/files', { filename_download: 'in.txt', storage: 'local', type: 'text/plain', folder: outer }),
    );
    expect((await api('DELETE', `/folders/${outer}`)).status).to.equal(204);
    expect(dataOf<Row>(await api('GET', `/files/${String(file['id'])}?fields=folder`))['folder']).to.equal(null);
    expect(dataOf<Row>(await api('GET', `/folders/${inner}?fields=parent`))['parent']).to.equal(null);
  });
});
