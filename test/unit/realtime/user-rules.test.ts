import { expect } from 'chai';
import { selectionReach } from '../../../src/realtime/shared-reads.js';
import { matchesRow, selectionFits, userRulePlan } from '../../../src/realtime/user-rules.js';
import { FIXTURE_OVERVIEW } from '../query/fixture-overview.js';

describe('realtime: read rules naming $CURRENT_USER, checked in memory', () => {
  const plan = (filter: Record<string, unknown>, client: 'sqlite3' | 'pg' | 'mysql' = 'sqlite3') =>
    userRulePlan(filter, FIXTURE_OVERVIEW, 'articles', client);

  it('splits a rule into the parts naming the user (in memory) and the rest (the shared read)', () => {
    const found = plan({ uid: { _eq: '$CURRENT_USER' }, status: { _eq: 'published' } });
    expect(found && [...found.inMemory]).to.deep.equal([0]);
    expect(found?.fields).to.deep.equal(['uid']);
    const nested = plan({
      _and: [{ status: { _eq: 'x' } }, { _or: [{ uid: { _eq: '$CURRENT_USER' } }, { views: { _in: [1, 2] } }] }],
    });
    expect(nested && [...nested.inMemory]).to.deep.equal([1]);
    expect(nested?.fields).to.deep.equal(['uid', 'views']);
  });

  it('refuses what memory would not answer as the database does: the users are then read one by one', () => {
    expect(plan({ status: { _eq: 'published' } }), 'no user in it').to.equal(undefined);
    expect(plan({ author: { name: { _eq: '$CURRENT_USER' } } }), 'a relational path').to.equal(undefined);
    expect(plan({ uid: { _neq: '$CURRENT_USER' } }), 'a negation').to.equal(undefined);
    expect(plan({ title: { _contains: '$CURRENT_USER' } }), 'a substring').to.equal(undefined);
    expect(plan({ data: { _eq: '$CURRENT_USER' } }), 'a json field').to.equal(undefined);
    expect(plan({ comments: { _eq: '$CURRENT_USER' } }), 'an alias').to.equal(undefined);
    // MariaDB's collations ignore case in text: memory would miss what SQL matches, so text is not compared there.
    expect(plan({ title: { _eq: '$CURRENT_USER.email' } }, 'mysql')).to.equal(undefined);
    expect(plan({ title: { _eq: '$CURRENT_USER.email' } }, 'pg')?.fields).to.deep.equal(['title']);
    expect(plan({ uid: { _eq: '$CURRENT_USER' } }, 'mysql')?.fields).to.deep.equal(['uid']);
  });

  it('a resolved part matches a row as SQL would, never more', () => {
    const owner = [{ uid: { _eq: 'a1b2c3d4-0000-4000-8000-000000000001' } }];
    expect(matchesRow(owner, { uid: 'a1b2c3d4-0000-4000-8000-000000000001' })).to.equal(true);
    expect(matchesRow(owner, { uid: 'a1b2c3d4-0000-4000-8000-000000000002' })).to.equal(false);
    expect(matchesRow(owner, { uid: null })).to.equal(false);
    expect(matchesRow(owner, {})).to.equal(false);
    // A public caller's $CURRENT_USER is null: `is null`, as the compiler makes it.
    expect(matchesRow([{ uid: { _eq: null } }], { uid: null })).to.equal(true);
    expect(matchesRow([{ uid: { _eq: null } }], { uid: 'x' })).to.equal(false);
    expect(matchesRow([{ views: { _in: ['7', 8] } }], { views: 7 })).to.equal(true);
    expect(matchesRow([{ views: { _in: [null] } }], { views: null })).to.equal(false);
    expect(matchesRow([{ views: { _null: true } }], { views: null })).to.equal(true);
    expect(matchesRow([{ views: { _nnull: true } }], { views: null })).to.equal(false);
    const either = [{ _or: [{ uid: { _eq: 'u' } }, { views: { _eq: 1 } }] }];
    expect(matchesRow(either, { uid: 'v', views: 1 })).to.equal(true);
    expect(matchesRow(either, { uid: 'v', views: 2 })).to.equal(false);
    // A `$CURRENT_USER.path` that resolved to no scalar equals nothing.
    expect(matchesRow([{ uid: { _eq: { id: 'u' } } }], { uid: 'u' })).to.equal(false);
  });

  it('a selection fits when it neither expands nor renames the fields the rule compares', () => {
    const found = plan({ uid: { _eq: '$CURRENT_USER' } });
    if (found === undefined) throw new Error('no plan');
    expect(selectionFits({ fields: ['id', 'title'] }, found)).to.equal(true);
    expect(selectionFits({ fields: ['uid.name'] }, found)).to.equal(false);
    expect(selectionFits({ fields: ['*.*'] }, found)).to.equal(false);
    expect(selectionFits({ fields: ['id'], alias: { uid: 'title' } }, found)).to.equal(false);
  });

  it('the collections a selection reads: its own, and those of the one-to-many keys it lists', () => {
    expect([...(selectionReach({ fields: ['id', 'title'] }, FIXTURE_OVERVIEW, 'articles') ?? [])]).to.deep.equal([
      'articles',
    ]);
    expect(selectionReach({ fields: ['*'] }, FIXTURE_OVERVIEW, 'articles')?.has('comments')).to.equal(true);
    expect(selectionReach({ fields: ['author.name'] }, FIXTURE_OVERVIEW, 'articles')).to.equal(undefined);
    expect(selectionReach({ filter: { author: { name: { _eq: 'x' } } } }, FIXTURE_OVERVIEW, 'articles')).to.equal(
      undefined,
    );
    expect(selectionReach({ deep: {} }, FIXTURE_OVERVIEW, 'articles')).to.equal(undefined);
  });
});
