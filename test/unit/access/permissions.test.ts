import { expect } from 'chai';
import type { DynamicContext } from '../../../src/access/dynamic-values.js';
import { compilePermissionRules, type PermissionRow } from '../../../src/access/permission-rules.js';
import { ADMIN_PERMISSIONS, createPermissions } from '../../../src/access/permissions.js';
import { canReadCollection, FULL_READ_ACCESS, readAccessOf } from '../../../src/access/read-access.js';
import { ForbiddenError } from '../../../src/errors.js';

const USER = '3f0c6c1e-0000-4000-8000-000000000001';
const ROLE = '3f0c6c1e-0000-4000-8000-000000000002';
const NOW = new Date('2024-03-31T12:00:00.000Z');

const context: DynamicContext = {
  user: USER,
  role: ROLE,
  now: NOW,
  userValues: new Map([['team', 7]]),
  roleValues: new Map(),
};

const rows: PermissionRow[] = [
  {
    collection: 'articles',
    action: 'read',
    permissions: { _or: [{ author: { _eq: '$CURRENT_USER' } }, { published_on: { _lte: '$NOW' } }] },
    validation: null,
    presets: null,
    fields: ['id', 'title', 'author'],
  },
  {
    collection: 'articles',
    action: 'create',
    permissions: null,
    validation: { team: { _eq: '$CURRENT_USER.team' } },
    presets: { author: '$CURRENT_USER', status: 'draft' },
    fields: ['*'],
  },
  {
    collection: 'articles',
    action: 'delete',
    permissions: { author: { _eq: '$CURRENT_USER' } },
    validation: null,
    presets: null,
    fields: null,
  },
];

describe('permissions', () => {
  const permissions = createPermissions(compilePermissionRules(rows, { app: false }), context);

  it('answers per collection and action, with variables resolved for the caller', () => {
    expect(permissions.isAdmin).to.equal(false);
    expect(permissions.allows('articles', 'read')).to.equal(true);
    expect(permissions.rowFilter('articles', 'read')).to.deep.equal({
      _or: [{ author: { _eq: USER } }, { published_on: { _lte: '2024-03-31T12:00:00.000Z' } }],
    });
    expect([...(permissions.fields('articles', 'read') as Set<string>)]).to.deep.equal(['id', 'title', 'author']);
    expect(permissions.validation('articles', 'create')).to.deep.equal({ team: { _eq: 7 } });
    expect(permissions.presets('articles', 'create')).to.deep.equal({ author: USER, status: 'draft' });
    expect(permissions.rowFilter('articles', 'create')).to.equal(null);
    expect(permissions.fields('articles', 'create')).to.equal('*');
    expect(permissions.rowFilter('articles', 'delete')).to.deep.equal({ author: { _eq: USER } });
  });

  it('without a matching permission: allows is false, fields empty, and the rest FORBIDDEN', () => {
    for (const [collection, action] of [
      ['articles', 'update'],
      ['comments', 'read'],
      ['svc_users', 'read'],
    ] as const) {
      expect(permissions.allows(collection, action)).to.equal(false);
      expect([...(permissions.fields(collection, action) as Set<string>)]).to.deep.equal([]);
      expect(() => permissions.rowFilter(collection, action)).to.throw(ForbiddenError);
      expect(() => permissions.validation(collection, action)).to.throw(ForbiddenError);
      expect(() => permissions.presets(collection, action)).to.throw(ForbiddenError);
    }
  });

  it('lists the collections of an action', () => {
    expect([...(permissions.collections('read') as Set<string>)]).to.deep.equal(['articles']);
    expect([...(permissions.collections('update') as Set<string>)]).to.deep.equal([]);
  });

  it('resolves each rule once per caller, returning the same object', () => {
    expect(permissions.rowFilter('articles', 'read')).to.equal(permissions.rowFilter('articles', 'read'));
  });

  it('the public caller resolves $CURRENT_USER to null', () => {
    const anonymous = createPermissions(compilePermissionRules(rows, { app: false }), {
      ...context,
      user: null,
      role: null,
      userValues: new Map([['team', null]]),
    });
    expect(anonymous.rowFilter('articles', 'delete')).to.deep.equal({ author: { _eq: null } });
  });

  it('admins bypass every rule', () => {
    expect(ADMIN_PERMISSIONS.isAdmin).to.equal(true);
    expect(ADMIN_PERMISSIONS.allows('anything', 'delete')).to.equal(true);
    expect(ADMIN_PERMISSIONS.fields('anything', 'read')).to.equal('*');
    expect(ADMIN_PERMISSIONS.rowFilter('anything', 'update')).to.equal(null);
    expect(ADMIN_PERMISSIONS.validation('anything', 'create')).to.equal(null);
    expect(ADMIN_PERMISSIONS.presets('anything', 'create')).to.deep.equal({});
    expect(ADMIN_PERMISSIONS.collections('read')).to.equal('*');
  });
});

describe('readAccessOf', () => {
  it("gives the read side the read rule's filter and fields, and nothing for unreadable collections", () => {
    const access = readAccessOf(createPermissions(compilePermissionRules(rows, { app: false }), context));
    expect(access.rowFilter('articles')).to.deep.equal({
      _or: [{ author: { _eq: USER } }, { published_on: { _lte: '2024-03-31T12:00:00.000Z' } }],
    });
    expect([...(access.readableFields('articles') as Set<string>)]).to.deep.equal(['id', 'title', 'author']);
    expect(canReadCollection(access, 'articles')).to.equal(true);
    expect(access.rowFilter('comments')).to.equal(null);
    expect(canReadCollection(access, 'comments')).to.equal(false);
    expect(readAccessOf(ADMIN_PERMISSIONS)).to.equal(FULL_READ_ACCESS);
  });
});
