import { statementsRunOn } from '../../support/statements.js';
import { expect } from 'chai';
import { TEST_ADMIN, describeEachDatabase } from '../../support/server.js';
import { adminApi, createCommandSchema, dataOf, parseJson } from './schema.js';

type Row = Record<string, unknown>;

interface Revision {
  id: number;
  activity: number;
  collection: string;
  item: string;
  data: Row;
  delta: Row;
  parent: number | null;
}

describeEachDatabase('audit: activity and revisions of every write', (ctx) => {
  const db = () => ctx().server.db;
  const api = (method: string, path: string, body?: unknown) => adminApi(ctx(), method, path, body);
  let adminId: string;
  let lastActivity = 0;

  /** Activity rows written since the previous call, oldest first. */
  async function newActivity(): Promise<Row[]> {
    const rows = await db()('svc_activity').where('id', '>', lastActivity).orderBy('id').select<Row[]>('*');
    lastActivity = Math.max(lastActivity, ...rows.map((r) => Number(r['id'])));
    return rows;
  }

  async function revisionsOf(activity: readonly Row[]): Promise<Revision[]> {
    const rows = await db()('svc_revisions')
      .whereIn(
        'activity',
        activity.map((a) => Number(a['id'])),
      )
      .orderBy('id')
      .select<Row[]>('*');
    return rows.map((r) => ({
      id: Number(r['id']),
      activity: Number(r['activity']),
      collection: String(r['collection']),
      item: String(r['item']),
      data: parseJson(r['data']) as Row,
      delta: parseJson(r['delta']) as Row,
      parent: r['parent'] === null ? null : Number(r['parent']),
    }));
  }

  const only = <T>(list: readonly T[], predicate: (t: T) => boolean): T => {
    const found = list.filter(predicate);
    expect(found, 'exactly one match').to.have.length(1);
    return found[0] as T;
  };

  before(async () => {
    await createCommandSchema(ctx());
    adminId = String((await db()('svc_users').where({ email: TEST_ADMIN.email }).first<Row>('id'))['id']);
    await newActivity();
  });

  it('records who, when, from where: user, timestamp, ip, user_agent, origin', async () => {
    const started = Date.now();
    const res = await ctx().api('/items/authors', {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${TEST_ADMIN.token}`,
        'Content-Type': 'application/json',
        'User-Agent': 'audit-suite/1.0',
        Origin: 'https://editor.example.com',
      },
      body: JSON.stringify({ name: 'Who' }),
    });
    const { data } = (await res.json()) as { data: Row };
    const [activity] = await newActivity();
    expect(activity).to.include({
      action: 'create',
      user: adminId,
      user_agent: 'audit-suite/1.0',
      origin: 'https://editor.example.com',
      collection: 'authors',
      item: String(data['id']),
    });
    expect(activity?.['ip']).to.be.a('string').and.not.equal('');
    const timestamp = activity?.['timestamp'];
    // SQLite keeps UTC text without a zone (src/query/README.md conventions)
    const time =
      timestamp instanceof Date ? timestamp.getTime() : Date.parse(`${String(timestamp).replace(' ', 'T')}Z`);
    expect(time).to.be.within(started - 1000, Date.now() + 1000);
  });

  it('create: one activity + revision per item; nested revisions point at the parent revision', async () => {
    const article = dataOf<Row>(
      await api('POST', '/items/articles', {
        title: 'Audited',
        author: { name: 'Nested' },
        comments: [{ text: 'c1' }, { text: 'c2' }],
      }),
    );
    const activity = await newActivity();
    // depth first: the children are journaled before the parent (as the convention's verified example)
    expect(activity.map((a) => [a['action'], a['collection']])).to.deep.equal([
      ['create', 'authors'],
      ['create', 'comments'],
      ['create', 'comments'],
      ['create', 'articles'],
    ]);
    const revisions = await revisionsOf(activity);
    expect(revisions).to.have.length(4);
    const parent = only(revisions, (r) => r.collection === 'articles');
    expect(parent.parent).to.equal(null);
    expect(parent.item).to.equal(String(article['id']));
    const author = only(revisions, (r) => r.collection === 'authors');
    const comments = revisions.filter((r) => r.collection === 'comments');
    expect([author, ...comments].map((r) => r.parent)).to.deep.equal([parent.id, parent.id, parent.id]);
    expect(author.data).to.deep.equal({ name: 'Nested', id: Number(author.item) });
    // data = the payload as written after specials, nested values replaced by keys; delta = data
    expect(parent.data).to.include({
      id: article['id'],
      title: 'Audited',
      author: Number(author.item),
      user_created: adminId,
    });
    expect(parent.data['comments']).to.deep.equal(comments.map((c) => Number(c.item)));
    expect(parent.data['date_created']).to.be.a('string');
    expect(parent.delta).to.deep.equal(parent.data);
    expect(comments[0]?.data).to.include({ text: 'c1', article: article['id'] });
  });

  it('a POST of many items takes one insert for the rows, one for the activity, one for the revisions', async () => {
    const names = Array.from({ length: 300 }, (_, i) => `Bulk ${i}`);
    let created: Row[] = [];
    const statements = await statementsRunOn(db(), async () => {
      created = dataOf<Row[]>(
        await api(
          'POST',
          '/items/authors',
          names.map((name) => ({ name })),
        ),
      );
    });
    const inserts = statements.flatMap((sql) => /^insert into [`"](\w+)[`"]/i.exec(sql)?.[1] ?? []);
    expect(inserts).to.deep.equal(['authors', 'svc_activity', 'svc_revisions']);
    expect(created.map((a) => a['name'])).to.deep.equal(names);
    const activity = await newActivity();
    expect(activity.map((a) => a['item'])).to.deep.equal(created.map((a) => String(a['id'])));
    const revisions = await revisionsOf(activity);
    expect(revisions.map((r) => [r.activity, r.item, r.data])).to.deep.equal(
      created.map((a, i) => [Number(activity[i]?.['id']), String(a['id']), { name: a['name'], id: a['id'] }]),
    );
  });

  it('items with nested writes in a POST array are written depth-first between the others', async () => {
    const created = dataOf<Row[]>(
      await api('POST', '/items/articles', [
        { title: 'Flat one' },
        { title: 'Nested', comments: [{ text: 'inner' }] },
        { title: 'Flat two' },
      ]),
    );
    const activity = await newActivity();
    expect(activity.map((a) => [a['collection'], a['item']])).to.deep.equal([
      ['articles', String(created[0]?.['id'])],
      ['comments', activity[1]?.['item']],
      ['articles', String(created[1]?.['id'])],
      ['articles', String(created[2]?.['id'])],
    ]);
    const revisions = await revisionsOf(activity);
    const nested = only(revisions, (r) => r.item === String(created[1]?.['id']) && r.collection === 'articles');
    expect(only(revisions, (r) => r.collection === 'comments').parent).to.equal(nested.id);
    expect(
      revisions.filter((r) => r.collection === 'articles' && r.id !== nested.id).map((r) => r.parent),
    ).to.deep.equal([null, null]);
  });

  it('update: data is the full item after the write, delta only what the payload set', async () => {
    const article = dataOf<Row>(
      await api('POST', '/items/articles', { title: 'Before', views: 1, comments: [{ text: 'x' }] }),
    );
    await newActivity();
    dataOf(
      await api('PATCH', `/items/articles/${String(article['id'])}`, {
        title: 'After',
        author: { name: 'New author' },
      }),
    );
    const activity = await newActivity();
    expect(activity.map((a) => [a['action'], a['collection']])).to.deep.equal([
      ['create', 'authors'],
      ['update', 'articles'],
    ]);
    const [author, update] = await revisionsOf(activity);
    expect(author?.parent).to.equal(update?.id);
    expect(update?.parent).to.equal(null);
    expect(update?.delta).to.have.all.keys('title', 'author', 'date_updated');
    expect(update?.delta).to.include({ title: 'After', author: Number(author?.item) });
    expect(update?.data).to.include({
      id: article['id'],
      title: 'After',
      views: 1,
      status: 'draft',
      author: Number(author?.item),
    });
    expect(update?.data).to.have.all.keys(
      'id',
      'title',
      'status',
      'code',
      'views',
      'author',
      'date_created',
      'date_updated',
      'user_created',
      'comments',
      'tags',
      'sections',
    );
    expect(update?.data['comments']).to.have.length(1);
    expect(update?.data['tags']).to.deep.equal([]);
  });

  it('the full item of an update revision lists every related key, beyond the nested read limit', async () => {
    const comments = Array.from({ length: 105 }, (_, i) => ({ text: `c${i}` }));
    const article = dataOf<Row>(await api('POST', '/items/articles?fields=id', { title: 'Many', comments }));
    await newActivity();
    dataOf(await api('PATCH', `/items/articles/${String(article['id'])}?fields=id`, { views: 1 }));
    const [update] = await revisionsOf(await newActivity());
    expect(update?.data['comments']).to.have.length(105);
  });

  it('children deselected by nullify get their own update revision without parent', async () => {
    const article = dataOf<Row>(
      await api('POST', '/items/articles', { title: 'Sets', comments: [{ text: 'keep' }, { text: 'drop' }] }),
    );
    const [keep, drop] = await db()('comments').where({ article: article['id'] }).orderBy('id').select<Row[]>('id');
    await newActivity();
    dataOf(
      await api('PATCH', `/items/articles/${String(article['id'])}`, { comments: [keep?.['id'], { text: 'added' }] }),
    );
    const activity = await newActivity();
    const revisions = await revisionsOf(activity);
    const parent = only(revisions, (r) => r.collection === 'articles');
    const dropped = only(revisions, (r) => r.collection === 'comments' && r.item === String(drop?.['id']));
    const added = only(revisions, (r) => r.collection === 'comments' && r.delta['text'] === 'added');
    expect(dropped.parent).to.equal(null);
    expect(dropped.delta).to.deep.equal({ article: null });
    expect(added.parent).to.equal(parent.id);
    // the kept comment was already linked: untouched, no activity
    expect(activity.filter((a) => a['item'] === String(keep?.['id']) && a['collection'] === 'comments')).to.deep.equal(
      [],
    );
  });

  it('delete: an activity row per item and no revision; deselect=delete children too', async () => {
    const article = dataOf<Row>(
      await api('POST', '/items/articles', { title: 'Gone', tags: [{ tags_id: { label: 't' } }] }),
    );
    const [junction] = await db()('articles_tags').where({ articles_id: article['id'] }).select<Row[]>('id');
    await newActivity();
    dataOf(await api('PATCH', `/items/articles/${String(article['id'])}`, { tags: [] }));
    const deselected = await newActivity();
    expect(deselected.map((a) => [a['action'], a['collection'], a['item']])).to.deep.equal([
      ['delete', 'articles_tags', String(junction?.['id'])],
      ['update', 'articles', String(article['id'])],
    ]);
    expect((await api('DELETE', `/items/articles/${String(article['id'])}`)).status).to.equal(204);
    const activity = await newActivity();
    expect(activity.map((a) => [a['action'], a['collection'], a['item']])).to.deep.equal([
      ['delete', 'articles', String(article['id'])],
    ]);
    expect(await revisionsOf(activity)).to.deep.equal([]);
  });

  it("accountability null records nothing; 'activity' records activity only", async () => {
    dataOf(await api('POST', '/items/quiet', { name: 'q' }));
    expect(await newActivity()).to.deep.equal([]);
    const logged = dataOf<Row>(await api('POST', '/items/logged', { name: 'l' }));
    dataOf(await api('PATCH', `/items/logged/${String(logged['id'])}`, { name: 'l2' }));
    const activity = await newActivity();
    expect(activity.map((a) => [a['action'], a['collection']])).to.deep.equal([
      ['create', 'logged'],
      ['update', 'logged'],
    ]);
    expect(await revisionsOf(activity)).to.deep.equal([]);
  });

  it('hash fields and user secrets are masked inside revisions', async () => {
    dataOf(await api('POST', '/items/gadgets', { name: 'g', note: 'n', secret: 'plain' }));
    const user = dataOf<Row>(
      await api('POST', '/users', { email: 'masked@example.com', password: 'pw', token: 'static-token' }),
    );
    const revisions = await revisionsOf(await newActivity());
    expect(only(revisions, (r) => r.collection === 'gadgets').data['secret']).to.equal('**********');
    const userRevision = only(revisions, (r) => r.collection === 'svc_users');
    expect(userRevision.item).to.equal(user['id']);
    expect(userRevision.delta).to.include({ email: 'masked@example.com', password: '**********', token: '**********' });
  });

  it('a failed write leaves no activity or revision', async () => {
    await api('POST', '/items/articles', { title: 'x', author: { name: null } });
    expect(await newActivity()).to.deep.equal([]);
  });
});
