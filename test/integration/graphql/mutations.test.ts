import { expect } from 'chai';
import { describeEachDatabase, TEST_ADMIN } from '../../support/server.js';
import { ARTICLE_TABLES, countRows, createCommandSchema, parseJson } from '../commands/schema.js';
import { graphql, graphqlData } from './graphql-client.js';

type Row = Record<string, unknown>;

describeEachDatabase('graphql: mutations', (ctx) => {
  const db = () => ctx().server.db;
  let lastActivity = 0;

  /** Activity rows written since the previous call, oldest first, with their revisions. */
  async function newJournal(): Promise<{ activity: Row[]; revisions: Row[] }> {
    const activity = await db()('svc_activity').where('id', '>', lastActivity).orderBy('id').select<Row[]>('*');
    lastActivity = Math.max(lastActivity, ...activity.map((r) => Number(r['id'])));
    const revisions = await db()('svc_revisions')
      .whereIn(
        'activity',
        activity.map((a) => Number(a['id'])),
      )
      .orderBy('id')
      .select<Row[]>('*');
    return {
      activity,
      revisions: revisions.map((r) => ({ ...r, data: parseJson(r['data']), delta: parseJson(r['delta']) })),
    };
  }

  let oldTag = '';
  let heading = '';

  before(async () => {
    await createCommandSchema(ctx());
    await db()('tags').insert({ label: 'old' });
    await db()('headings').insert({ title: 'H1' });
    oldTag = String(((await db()('tags').first('id')) as Row)['id']);
    heading = String(((await db()('headings').first('id')) as Row)['id']);
    await newJournal();
  });

  it('create_C_item writes nested m2o, o2m, m2m and m2a in one transaction and reads the selection back', async () => {
    const data = await graphqlData(
      ctx(),
      `mutation {
        create_articles_item(data: {
          title: "Nested", code: "C1",
          author: { name: "New author" },
          comments: [{ text: "first" }, { text: "second" }],
          tags: [{ tags_id: { id: "${oldTag}" } }, { tags_id: { label: "fresh" } }],
          sections: [{ collection: "headings", item: "${heading}" }]
        }) {
          id title status author { name } comments { text } tags { tags_id { label } }
          sections { item { ... on headings { title } } }
        }
      }`,
    );
    const created = data['create_articles_item'] as Row;
    expect(created).to.deep.include({
      title: 'Nested',
      status: 'draft',
      author: { name: 'New author' },
      comments: [{ text: 'first' }, { text: 'second' }],
      tags: [{ tags_id: { label: 'old' } }, { tags_id: { label: 'fresh' } }],
      sections: [{ item: { title: 'H1' } }],
    });
    const id = String(created['id']);
    const { activity, revisions } = await newJournal();
    expect(activity.map((a) => [a['action'], a['collection']])).to.have.deep.members([
      ['create', 'authors'],
      ['create', 'articles'],
      ['create', 'comments'],
      ['create', 'comments'],
      ['create', 'tags'],
      ['create', 'articles_tags'],
      ['create', 'articles_tags'],
      ['create', 'articles_sections'],
    ]);
    expect(activity.every((a) => a['user'] !== null)).to.equal(true);
    const parent = revisions.find((r) => r['collection'] === 'articles' && r['item'] === id);
    expect(parent, 'revision of the article').to.not.equal(undefined);
    const children = revisions.filter((r) => r !== parent);
    expect(
      children.every((r) => Number(r['parent']) === Number(parent?.['id']) || r['collection'] === 'tags'),
    ).to.equal(true);
    expect(
      children.filter((r) => Number(r['parent']) === Number(parent?.['id'])).map((r) => r['collection']),
    ).to.include.members(['authors', 'comments', 'articles_tags', 'articles_sections']);
  });

  it('create_C_items returns the created items in input order; filter applies to the read-back', async () => {
    const data = await graphqlData(
      ctx(),
      `mutation {
        all: create_articles_items(data: [{ title: "B", views: 2 }, { title: "A", views: 1 }]) { title }
        some: create_articles_items(filter: { views: { _gt: 5 } }, data: [{ title: "low", views: 1 }, { title: "high", views: 9 }]) { title }
      }`,
    );
    expect(data).to.deep.equal({ all: [{ title: 'B' }, { title: 'A' }], some: [{ title: 'high' }] });
    expect(await db()('articles').whereIn('title', ['A', 'B', 'low', 'high']).count({ n: '*' }).first()).to.satisfy(
      (r: Row) => Number(r['n']) === 4,
    );
    const { activity } = await newJournal();
    expect(activity.map((a) => a['action'])).to.deep.equal(['create', 'create', 'create', 'create']);
  });

  it('update_C_item changes one item; its revision holds the delta', async () => {
    const created = await graphqlData(ctx(), 'mutation { create_articles_item(data: { title: "Before" }) { id } }');
    const id = (created['create_articles_item'] as { id: string }).id;
    await newJournal();
    const data = await graphqlData(
      ctx(),
      `mutation { update_articles_item(id: ${id}, data: { title: "After", views: 3 }) { id title views } }`,
    );
    expect(data).to.deep.equal({ update_articles_item: { id, title: 'After', views: 3 } });
    const { activity, revisions } = await newJournal();
    expect(activity.map((a) => [a['action'], a['item']])).to.deep.equal([['update', id]]);
    expect(revisions[0]?.['delta']).to.include({ title: 'After', views: 3 });
  });

  it('update_C_items merges its data entries and applies them to every id; update_C_batch takes one entry per item', async () => {
    const ids = (
      await graphqlData(ctx(), 'mutation { create_articles_items(data: [{ title: "u1" }, { title: "u2" }]) { id } }')
    )['create_articles_items'] as { id: string }[];
    const [a, b] = ids.map((i) => i.id);
    const many = await graphqlData(
      ctx(),
      `mutation { update_articles_items(ids: ["${a}", "${b}"], data: [{ views: 7 }, { code: "C7" }]) { title views code } }`,
    );
    expect(many).to.deep.equal({
      update_articles_items: [
        { title: 'u1', views: 7, code: 'C7' },
        { title: 'u2', views: 7, code: 'C7' },
      ],
    });
    const batch = await graphqlData(
      ctx(),
      `mutation { update_articles_batch(data: [{ id: "${b}", title: "second" }, { id: "${a}", title: "first" }]) { id title } }`,
    );
    expect(batch).to.deep.equal({
      update_articles_batch: [
        { id: b, title: 'second' },
        { id: a, title: 'first' },
      ],
    });
    const missingKey = await graphql(ctx(), 'mutation { update_articles_batch(data: [{ title: "no key" }]) { id } }');
    expect(missingKey.body.errors?.[0]?.extensions['code']).to.equal('INVALID_PAYLOAD');
  });

  it('update_S upserts a singleton', async () => {
    const data = await graphqlData(ctx(), 'mutation { update_home(data: { headline: "Welcome" }) { headline } }');
    expect(data).to.deep.equal({ update_home: { headline: 'Welcome' } });
    expect(await graphqlData(ctx(), '{ home { headline } }')).to.deep.equal({ home: { headline: 'Welcome' } });
  });

  it('delete mutations return the ids; a missing id is FORBIDDEN and deletes nothing', async () => {
    const ids = (
      await graphqlData(
        ctx(),
        'mutation { create_authors_items(data: [{ name: "d1" }, { name: "d2" }, { name: "d3" }]) { id } }',
      )
    )['create_authors_items'] as { id: string }[];
    const [a, b, c] = ids.map((i) => i.id);
    await newJournal();
    expect(await graphqlData(ctx(), `mutation { delete_authors_item(id: ${a}) { id } }`)).to.deep.equal({
      delete_authors_item: { id: a },
    });
    expect(await graphqlData(ctx(), `mutation { delete_authors_items(ids: [${b}, ${c}]) { ids } }`)).to.deep.equal({
      delete_authors_items: { ids: [b, c] },
    });
    const { activity } = await newJournal();
    expect(activity.map((x) => [x['action'], x['item']])).to.deep.equal([
      ['delete', a],
      ['delete', b],
      ['delete', c],
    ]);
    const [kept] = (await graphqlData(ctx(), 'mutation { create_authors_items(data: [{ name: "kept" }]) { id } }'))[
      'create_authors_items'
    ] as { id: string }[];
    const res = await graphql(
      ctx(),
      `mutation { delete_authors_items(ids: [${kept?.id}, 999999]) { ids } delete_authors_item(id: 999999) { id } }`,
    );
    expect(res.status).to.equal(200);
    expect(res.body.data).to.deep.equal({ delete_authors_items: null, delete_authors_item: null });
    expect(res.body.errors?.map((e) => [e.extensions['code'], e.path])).to.deep.equal([
      ['FORBIDDEN', ['delete_authors_items']],
      ['FORBIDDEN', ['delete_authors_item']],
    ]);
    expect(await db()('authors').where({ id: kept?.id }).first()).to.not.equal(undefined);
  });

  it('a failed validation is the REST error with its path; nothing is written', async () => {
    const before = await countRows(db(), ARTICLE_TABLES);
    const res = await graphql(
      ctx(),
      'mutation { create_articles_item(data: { title: "Bad", code: "X1", comments: [{ text: "c" }] }) { id } }',
    );
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({
      data: { create_articles_item: null },
      errors: [
        {
          message: 'Validation failed for field "code".',
          locations: [{ line: 1, column: 12 }],
          path: ['create_articles_item'],
          extensions: { field: 'code', type: 'starts_with', substring: 'C', code: 'FAILED_VALIDATION' },
        },
      ],
    });
    expect(await countRows(db(), ARTICLE_TABLES)).to.deep.equal(before);
  });

  it('several failed fields are one error each, at the same path', async () => {
    const res = await graphql(
      ctx(),
      'mutation { create_gadgets_item(data: { name: "far too long a name", code: "abc" }) { id } }',
    );
    expect(res.body.data).to.deep.equal({ create_gadgets_item: null });
    const errors = res.body.errors ?? [];
    expect(errors.length).to.be.greaterThan(1);
    expect(errors.every((e) => JSON.stringify(e.path) === '["create_gadgets_item"]')).to.equal(true);
    expect(errors.map((e) => e.extensions['code'])).to.include.members(['VALUE_TOO_LONG', 'FAILED_VALIDATION']);
  });

  it('system collections are written through /graphql/system without the svc_ prefix', async () => {
    const created = await graphqlData(ctx(), 'mutation { create_roles_item(data: { name: "Editors" }) { id name } }', {
      scope: 'system',
    });
    const role = created['create_roles_item'] as { id: string; name: string };
    expect(role.name).to.equal('Editors');
    const user = await graphqlData(
      ctx(),
      `mutation { create_users_item(data: { email: "ed@example.com", password: "secret-pass", role: { id: "${role.id}" } }) {
        email password role { name } } }`,
      { scope: 'system' },
    );
    expect(user).to.deep.equal({
      create_users_item: { email: 'ed@example.com', password: '**********', role: { name: 'Editors' } },
    });
    const stored = await db()('svc_users').where({ email: 'ed@example.com' }).first<Row>('password');
    expect(String(stored['password'])).to.match(/^\$argon2id\$/);
    const items = await graphql(ctx(), 'mutation { create_roles_item(data: { name: "x" }) { id } }');
    expect(items.status).to.equal(400);
  });

  it('a mutation over GET is 405 METHOD_NOT_ALLOWED and runs nothing', async () => {
    const params = new URLSearchParams({ query: 'mutation { create_authors_item(data: { name: "via GET" }) { id } }' });
    const res = await ctx().api(`/graphql?${params.toString()}`, {
      headers: { Authorization: `Bearer ${TEST_ADMIN.token}` },
    });
    expect(res.status).to.equal(405);
    expect(res.headers.get('allow')).to.equal('POST');
    const body = (await res.json()) as { errors: { message: string; extensions: Row }[] };
    expect(body.errors[0]).to.deep.equal({
      message: 'Invalid method "GET" used. Should be one of "POST".',
      extensions: { current: 'GET', allowed: ['POST'], code: 'METHOD_NOT_ALLOWED' },
    });
    expect(await db()('authors').where({ name: 'via GET' }).first()).to.equal(undefined);
  });
});
