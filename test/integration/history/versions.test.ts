import { expect } from 'chai';
import { describeEachDatabase } from '../../support/server.js';
import { call, createCaller, grant, type Caller } from '../access/permission-helpers.js';
import {
  adminApi,
  countRows,
  createCommandSchema,
  dataOf,
  errorsOf,
  parseJson,
  type ApiResult,
} from '../commands/schema.js';

type Row = Record<string, unknown>;

const TABLES = ['svc_activity', 'svc_revisions', 'svc_versions', 'articles', 'gadgets'] as const;

describeEachDatabase('content versions (/versions, ?version=)', (ctx) => {
  const db = () => ctx().server.db;
  const api = (method: string, path: string, body?: unknown) => adminApi(ctx(), method, path, body);
  const as = async (caller: Caller, method: string, path: string, body?: unknown): Promise<ApiResult> =>
    (await call(ctx(), caller.token, method, path, body)) as ApiResult;
  const articleRow = async (id: unknown): Promise<Row> =>
    db()('articles').where({ id }).first<Row>('title', 'status', 'views');
  /** A live article and a version "draft" of it. */
  const drafted = async (key = 'draft'): Promise<{ id: number; version: string }> => {
    const { id } = dataOf<Row>(await api('POST', '/items/articles', { title: 'Live', status: 'published', views: 1 }));
    const version = dataOf<Row>(
      await api('POST', '/versions', { key, name: 'Draft', collection: 'articles', item: String(id) }),
    );
    return { id: Number(id), version: String(version['id']) };
  };
  let reader: Caller;
  let editor: Caller;
  let titleEditor: Caller;

  before(async () => {
    await createCommandSchema(ctx());
    await db()('svc_collections').insert({ collection: 'articles', versioning: true });
    await db()('svc_collections').insert({ collection: 'gadgets', versioning: true });
    await ctx().server.schema.invalidate();
    [reader, editor, titleEditor] = [await createCaller(db()), await createCaller(db()), await createCaller(db())];
    const versions = [
      { collection: 'svc_versions', action: 'read' },
      { collection: 'svc_versions', action: 'create' },
    ] as const;
    const read = { collection: 'articles', action: 'read' } as const;
    await grant(ctx(), reader.role, [read, ...versions]);
    await grant(ctx(), editor.role, [read, ...versions, { collection: 'articles', action: 'update' }]);
    await grant(ctx(), titleEditor.role, [
      read,
      ...versions,
      { collection: 'articles', action: 'update', fields: ['title'] },
    ]);
  });

  it('creates a named version of an item with the live hash; reads and renames it like any system collection', async () => {
    const { id, version } = await drafted();
    const row = dataOf<Row>(await api('GET', `/versions/${version}`));
    expect(row).to.deep.include({ key: 'draft', name: 'Draft', collection: 'articles', item: String(id), delta: null });
    expect(row['hash']).to.match(/^[0-9a-f]{40}$/);
    expect(dataOf<Row[]>(await api('GET', `/versions?filter[item][_eq]=${String(id)}&fields=key`))).to.deep.equal([
      { key: 'draft' },
    ]);
    expect(dataOf<Row>(await api('PATCH', `/versions/${version}`, { name: 'Spring' }))).to.deep.include({
      name: 'Spring',
      key: 'draft',
    });
    const activity = await db()('svc_activity').where({ collection: 'svc_versions', item: version }).select('action');
    expect(activity.map((a: Row) => a['action'])).to.deep.equal(['create', 'update']);
  });

  it('refuses bad versions: reserved or taken keys, collections without versioning, unknown items, fixed fields; nothing written', async () => {
    const { id, version } = await drafted();
    const { id: author } = dataOf<Row>(await api('POST', '/items/authors', { name: 'A' }));
    const counts = await countRows(db(), TABLES);
    const create = (body: unknown) => api('POST', '/versions', body);
    expect(errorsOf(await create({ key: 'main', collection: 'articles', item: id }), 400)).to.deep.equal([
      ['INVALID_PAYLOAD', { reason: '"main" is a reserved version key' }],
    ]);
    expect(errorsOf(await create({ key: 'draft', collection: 'articles', item: id }), 422)[0]?.[0]).to.equal(
      'UNPROCESSABLE_ENTITY',
    );
    expect(errorsOf(await create({ key: 'x', collection: 'authors', item: author }), 422)).to.deep.equal([
      ['UNPROCESSABLE_ENTITY', { reason: 'Content Versioning is not enabled for collection "authors"' }],
    ]);
    errorsOf(await create({ key: 'x', collection: 'articles', item: 99999999 }), 403);
    errorsOf(await create({ key: 'x', collection: 'nothing_here', item: 1 }), 403);
    errorsOf(await create({ key: 'x', collection: 'articles', item: id, hash: 'forged' }), 400);
    errorsOf(await create({ key: 'a b', collection: 'articles', item: id }), 400);
    errorsOf(await create([{ key: 'x', collection: 'articles', item: id }]), 400);
    errorsOf(await api('PATCH', `/versions/${version}`, { item: '2' }), 400);
    errorsOf(await api('PATCH', `/versions/${version}`, { key: 'main' }), 400);
    errorsOf(await api('POST', '/items/svc_versions', { key: 'y', collection: 'articles', item: String(id) }), 403);
    expect(await countRows(db(), TABLES)).to.deep.equal(counts);
  });

  it('version keys are one per item ignoring case on every database, created or renamed; ?version= finds them so', async () => {
    const { id, version } = await drafted('Draft');
    const { version: other } = await drafted();
    const secondId = String(
      dataOf<Row>(await api('POST', '/versions', { key: 'second', collection: 'articles', item: String(id) }))['id'],
    );
    dataOf(await api('POST', `/versions/${version}/save`, { title: 'Drafted' }));
    const counts = await countRows(db(), TABLES);
    const taken = `Version "DRAFT" already exists for item "${String(id)}" in collection "articles"`;
    // MariaDB's collation refused DRAFT; PostgreSQL and SQLite took it beside Draft.
    expect(
      errorsOf(await api('POST', '/versions', { key: 'DRAFT', collection: 'articles', item: String(id) }), 422),
    ).to.deep.equal([['UNPROCESSABLE_ENTITY', { reason: taken }]]);
    // A rename to a taken key was RECORD_NOT_UNIQUE naming a different field on each database.
    expect(errorsOf(await api('PATCH', `/versions/${secondId}`, { key: 'DRAFT' }), 422)).to.deep.equal([
      ['UNPROCESSABLE_ENTITY', { reason: taken }],
    ]);
    expect(errorsOf(await api('PATCH', `/versions/${secondId}`, { key: 'Main' }), 400)).to.deep.equal([
      ['INVALID_PAYLOAD', { reason: '"main" is a reserved version key' }],
    ]);
    expect(await countRows(db(), TABLES)).to.deep.equal(counts);
    // Another item's key, and the version's own key in another case, are free.
    expect(dataOf<Row>(await api('PATCH', `/versions/${version}`, { key: 'DRAFT' }))['key']).to.equal('DRAFT');
    expect(dataOf<Row>(await api('PATCH', `/versions/${other}`, { key: 'DRAFT' }))['key']).to.equal('DRAFT');
    for (const key of ['draft', 'DRAFT', 'dRaFt']) {
      expect(dataOf<Row>(await api('GET', `/items/articles/${String(id)}?version=${key}&fields=title`))).to.deep.equal({
        title: 'Drafted',
      });
    }
    expect(dataOf<Row>(await api('GET', `/items/articles/${String(id)}?version=MAIN&fields=title`))).to.deep.equal({
      title: 'Live',
    });
  });

  it('saves into the version without touching the live item; ?version= reads it with the caller fields; journaled as version_save', async () => {
    const { id, version } = await drafted();
    const saved = dataOf<Row>(await api('POST', `/versions/${version}/save?fields=title,views`, { title: 'Draft 1' }));
    expect(saved).to.deep.equal({ title: 'Draft 1', views: 1 });
    dataOf(await api('POST', `/versions/${version}/save`, { views: 5 }));
    expect(await articleRow(id)).to.deep.include({ title: 'Live', status: 'published' });
    expect(
      dataOf<Row>(await api('GET', `/items/articles/${String(id)}?version=draft&fields=title,views,status`)),
    ).to.deep.equal({
      title: 'Draft 1',
      views: 5,
      status: 'published',
    });
    expect(dataOf<Row>(await api('GET', `/items/articles/${String(id)}?version=main&fields=title`))).to.deep.equal({
      title: 'Live',
    });
    expect(dataOf<Row>(await api('GET', `/items/articles/${String(id)}?fields=title`))).to.deep.equal({
      title: 'Live',
    });
    errorsOf(await api('GET', `/items/articles/${String(id)}?version=nope`), 403);
    expect(errorsOf(await api('GET', `/items/articles/${String(id)}?version=`), 400)[0]?.[0]).to.equal('INVALID_QUERY');
    errorsOf(await api('GET', `/items/articles/${String(id)}?version[]=draft`), 400);
    errorsOf(await api('GET', `/versions/00000000-0000-4000-8000-000000000000/compare`), 403);
    errorsOf(await api('POST', `/versions/00000000-0000-4000-8000-000000000000/save`, { title: 'x' }), 403);
    errorsOf(await api('POST', `/versions/${version}/save`, ['x']), 400);
    errorsOf(await api('POST', `/versions/${version}/save`, { nothing_here: 1 }), 400);
    expect(parseJson(dataOf<Row>(await api('GET', `/versions/${version}`))['delta'])).to.deep.equal({
      title: 'Draft 1',
      views: 5,
    });
    const journal = await db()('svc_revisions as r')
      .join('svc_activity as a', 'a.id', 'r.activity')
      .where({ 'r.collection': 'articles', 'r.item': String(id) })
      .orderBy('r.id')
      .select<Row[]>('a.action', 'r.version', 'r.delta');
    expect(journal.map((j) => [j['action'], j['version']])).to.deep.equal([
      ['create', null],
      ['version_save', version],
      ['version_save', version],
    ]);
    expect(journal.slice(1).map((j) => parseJson(j['delta']))).to.deep.equal([{ title: 'Draft 1' }, { views: 5 }]);
    // The item's own state over time is not the version's.
    expect(
      dataOf<Row>(await api('GET', `/items/articles/${String(id)}?as_of=2999-01-01T00:00:00Z&fields=title`)),
    ).to.deep.equal({
      title: 'Live',
    });
    // nor its history: a field's values over time never held the draft's (was the version_save entries first)
    const history = dataOf<Row[]>(await api('GET', `/items/articles/${String(id)}/history`));
    expect(history.map((h) => h['action'])).to.deep.equal(['create']);
    const titles = dataOf<Row[]>(await api('GET', `/items/articles/${String(id)}/history?field=title`));
    expect(titles.map((h) => h['value'])).to.deep.equal(['Live']);
  });

  it('compares: outdated once the live item changed, the differing fields, and the conflicts', async () => {
    const { id, version } = await drafted();
    dataOf(await api('POST', `/versions/${version}/save`, { title: 'Draft', views: 1 }));
    const fresh = dataOf<Row>(await api('GET', `/versions/${version}/compare`));
    expect(fresh).to.deep.include({
      outdated: false,
      current: { title: 'Draft', views: 1 },
      main: { title: 'Live', views: 1 },
      fields: ['title'],
      conflicts: [],
    });
    dataOf(await api('PATCH', `/items/articles/${String(id)}`, { title: 'Live 2', status: 'archived' }));
    const stale = dataOf<Row>(await api('GET', `/versions/${version}/compare`));
    expect(stale).to.deep.include({ outdated: true, main: { title: 'Live 2', views: 1 }, conflicts: ['title'] });
    expect(stale['mainHash']).to.not.equal(fresh['mainHash']);
  });

  it('promotes through the audited update; refuses a stale mainHash and unresolved conflicts; keep and fields choose', async () => {
    const { id, version } = await drafted();
    dataOf(await api('POST', `/versions/${version}/save`, { title: 'Draft', views: 9 }));
    dataOf(await api('PATCH', `/items/articles/${String(id)}`, { title: 'Edited live' }));
    const { mainHash } = dataOf<{ mainHash: string }>(await api('GET', `/versions/${version}/compare`));
    const counts = await countRows(db(), TABLES);
    const promote = (body: unknown) => api('POST', `/versions/${version}/promote`, body);
    expect(errorsOf(await promote({ mainHash: 'f'.repeat(40) }), 422)[0]?.[0]).to.equal('UNPROCESSABLE_ENTITY');
    const [conflict] = errorsOf(await promote({ mainHash }), 422);
    expect(String(conflict?.[1]['reason'])).to.contain('"title"');
    errorsOf(await promote({}), 400);
    errorsOf(await promote({ mainHash, keep: 'both' }), 400);
    errorsOf(await promote({ mainHash, fields: ['status'] }), 400);
    expect(await countRows(db(), TABLES)).to.deep.equal(counts);
    expect(dataOf(await promote({ mainHash, keep: 'main' }))).to.equal(id);
    expect(await articleRow(id)).to.deep.include({ title: 'Edited live', views: 9 });
    const last = await db()('svc_activity as a')
      .join('svc_revisions as r', 'r.activity', 'a.id')
      .where({ 'a.collection': 'articles', 'a.item': String(id) })
      .orderBy('a.id', 'desc')
      .first<Row>('a.action', 'r.delta', 'r.version');
    expect([last['action'], last['version']]).to.deep.equal(['update', null]);
    expect(parseJson(last['delta'])).to.deep.include({ views: 9 }).and.not.have.property('title');
    const again = dataOf<{ mainHash: string }>(await api('GET', `/versions/${version}/compare`));
    expect(dataOf(await promote({ mainHash: again.mainHash, fields: ['title'] }))).to.equal(id);
    expect(await articleRow(id)).to.deep.include({ title: 'Draft', views: 9 });
  });

  it('a field dropped since the save is no change to promote: nothing left is 422 and writes nothing, as compare shows', async () => {
    dataOf(await api('POST', '/fields/articles', { field: 'scratch', type: 'string' }));
    const { id, version } = await drafted();
    dataOf(await api('POST', `/versions/${version}/save`, { scratch: 'kept aside' }));
    expect(dataOf(await api('DELETE', '/fields/articles/scratch'), 204)).to.equal(undefined);
    const { mainHash, fields } = dataOf<{ mainHash: string; fields: string[] }>(
      await api('GET', `/versions/${version}/compare`),
    );
    expect(fields).to.deep.equal([]);
    const counts = await countRows(db(), TABLES);
    const promote = (body: unknown) => api('POST', `/versions/${version}/promote`, body);
    // was 200 with an `update` activity and revision that changed nothing
    expect(errorsOf(await promote({ mainHash }), 422)).to.deep.equal([
      ['UNPROCESSABLE_ENTITY', { reason: 'No changes to promote' }],
    ]);
    expect(errorsOf(await promote({ mainHash, fields: ['scratch'] }), 400)).to.deep.equal([
      ['INVALID_PAYLOAD', { reason: 'Field "scratch" has no value in this version' }],
    ]);
    expect(await countRows(db(), TABLES)).to.deep.equal(counts);
    expect(await articleRow(id)).to.deep.include({ title: 'Live' });
  });

  it('a save is an update of the item: a role that may not update (those fields) gets 403 and nothing is saved', async () => {
    const { id, version } = await drafted();
    const counts = await countRows(db(), TABLES);
    errorsOf(await as(reader, 'POST', `/versions/${version}/save`, { title: 'Nope' }), 403);
    errorsOf(await as(titleEditor, 'POST', `/versions/${version}/save`, { views: 3 }), 403);
    expect(await countRows(db(), TABLES)).to.deep.equal(counts);
    expect(parseJson(dataOf<Row>(await api('GET', `/versions/${version}`))['delta'])).to.equal(null);
    expect(
      dataOf<Row>(await as(titleEditor, 'POST', `/versions/${version}/save?fields=title`, { title: 'Mine' })),
    ).to.deep.equal({
      title: 'Mine',
    });
    const { mainHash } = dataOf<{ mainHash: string }>(await as(reader, 'GET', `/versions/${version}/compare`));
    errorsOf(await as(reader, 'POST', `/versions/${version}/promote`, { mainHash }), 403);
    expect(await articleRow(id)).to.deep.include({ title: 'Live' });
    expect(dataOf(await as(editor, 'POST', `/versions/${version}/promote`, { mainHash }))).to.equal(id);
    expect(await articleRow(id)).to.deep.include({ title: 'Mine' });
    const { id: own } = dataOf<Row>(
      await as(reader, 'POST', '/versions', { key: 'mine', collection: 'articles', item: id }),
    );
    expect(dataOf<Row>(await api('GET', `/versions/${String(own)}`))['user_created']).to.equal(reader.user);
  });

  it('never holds a concealed value in a version: saving one is refused; the version read keeps the mask', async () => {
    const { id } = dataOf<Row>(await api('POST', '/items/gadgets', { name: 'g', note: 'first', secret: 'keep me' }));
    const { id: version } = dataOf<Row>(
      await api('POST', '/versions', { key: 'draft', collection: 'gadgets', item: id }),
    );
    const counts = await countRows(db(), TABLES);
    expect(
      errorsOf(await api('POST', `/versions/${String(version)}/save`, { secret: 'new secret' }), 400)[0]?.[0],
    ).to.equal('INVALID_PAYLOAD');
    expect(await countRows(db(), TABLES)).to.deep.equal(counts);
    dataOf(await api('POST', `/versions/${String(version)}/save`, { note: 'second' }));
    const read = dataOf<Row>(await api('GET', `/items/gadgets/${String(id)}?version=draft&fields=note,secret`));
    expect(read).to.deep.equal({ note: 'second', secret: '**********' });
    const stored = await db()('svc_revisions').where({ collection: 'gadgets' }).select<Row[]>('data', 'delta');
    expect(JSON.stringify(stored)).to.not.contain('keep me');
    const compare = dataOf<Row>(await api('GET', `/versions/${String(version)}/compare`));
    expect(JSON.stringify(compare)).to.not.contain('keep me');
  });
});
