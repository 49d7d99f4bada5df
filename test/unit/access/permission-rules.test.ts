import { expect } from 'chai';
import {
  APP_ACCESS_PERMISSIONS,
  compilePermissionRules,
  parsePermissionRow,
  type PermissionRow,
} from '../../../src/access/permission-rules.js';

const row = (overrides: Partial<PermissionRow> & Pick<PermissionRow, 'collection' | 'action'>): PermissionRow => ({
  permissions: null,
  validation: null,
  presets: null,
  fields: ['*'],
  ...overrides,
});

describe('permission rules', () => {
  describe('parsePermissionRow', () => {
    it('reads JSON text (SQLite, MySQL) and objects (PostgreSQL) alike, and CSV fields', () => {
      const fromText = parsePermissionRow({
        id: 1,
        collection: 'articles',
        action: 'read',
        permissions: '{"status":{"_eq":"published"}}',
        validation: null,
        presets: '{"status":"draft"}',
        fields: 'id, title ,status',
      });
      const fromObjects = parsePermissionRow({
        id: 2,
        collection: 'articles',
        action: 'read',
        permissions: { status: { _eq: 'published' } },
        validation: null,
        presets: { status: 'draft' },
        fields: 'id,title,status',
      });
      const expected = {
        collection: 'articles',
        action: 'read',
        permissions: { status: { _eq: 'published' } },
        validation: null,
        presets: { status: 'draft' },
        fields: ['id', 'title', 'status'],
      };
      expect(fromText).to.deep.equal(expected);
      expect(fromObjects).to.deep.equal(expected);
    });

    it('treats empty fields as none and JSON null as no filter', () => {
      const parsed = parsePermissionRow({
        id: 3,
        collection: 'a',
        action: 'delete',
        permissions: 'null',
        validation: '',
        presets: null,
        fields: '',
      });
      expect(parsed).to.include({ permissions: null, validation: null, presets: null, fields: null });
    });

    it('skips unknown actions and refuses unreadable JSON (never a silent widening)', () => {
      expect(parsePermissionRow({ id: 4, collection: 'a', action: 'publish', fields: '*' })).to.equal(undefined);
      expect(() => parsePermissionRow({ id: 5, collection: 'a', action: 'read', permissions: '{oops' })).to.throw(
        /row 5: permissions is not valid JSON/,
      );
      expect(() => parsePermissionRow({ id: 6, collection: 'a', action: 'read', permissions: '[1]' })).to.throw(
        /not a JSON object/,
      );
    });
  });

  describe('compilePermissionRules', () => {
    it('keeps one rule per collection and action', () => {
      const rules = compilePermissionRules(
        [
          row({
            collection: 'articles',
            action: 'read',
            permissions: { status: { _eq: 'published' } },
            fields: ['id', 'title'],
          }),
          row({
            collection: 'articles',
            action: 'create',
            validation: { title: { _nempty: true } },
            presets: { status: 'draft' },
          }),
        ],
        { app: false },
      );
      expect([...rules.byCollection.keys()]).to.deep.equal(['articles']);
      const read = rules.byCollection.get('articles')?.get('read');
      expect(read?.filter).to.deep.equal({ status: { _eq: 'published' } });
      expect([...(read?.fields as Set<string>)]).to.deep.equal(['id', 'title']);
      expect(rules.byCollection.get('articles')?.get('create')).to.deep.include({
        filter: null,
        validation: { title: { _nempty: true } },
        presets: { status: 'draft' },
        fields: '*',
      });
      expect(rules.byCollection.get('articles')?.get('delete')).to.equal(undefined);
    });

    it('merges rows of one action: filters OR-ed, fields united, presets laid over in order', () => {
      const rules = compilePermissionRules(
        [
          row({
            collection: 'a',
            action: 'update',
            permissions: { x: { _eq: 1 } },
            fields: ['x'],
            presets: { p: 1, q: 1 },
          }),
          row({ collection: 'a', action: 'update', permissions: { y: { _eq: 2 } }, fields: ['y'], presets: { q: 2 } }),
        ],
        { app: false },
      );
      const rule = rules.byCollection.get('a')?.get('update');
      expect(rule?.filter).to.deep.equal({ _or: [{ x: { _eq: 1 } }, { y: { _eq: 2 } }] });
      expect([...(rule?.fields as Set<string>)].sort()).to.deep.equal(['x', 'y']);
      expect(rule?.presets).to.deep.equal({ p: 1, q: 2 });
    });

    it('an unrestricted row (null or {} filter, no validation, * fields) makes the merged rule unrestricted', () => {
      const rules = compilePermissionRules(
        [
          row({
            collection: 'a',
            action: 'read',
            permissions: { x: { _eq: 1 } },
            validation: { x: { _gt: 0 } },
            fields: ['x'],
          }),
          row({ collection: 'a', action: 'read', permissions: {}, fields: ['*'] }),
        ],
        { app: false },
      );
      expect(rules.byCollection.get('a')?.get('read')).to.deep.include({ filter: null, validation: null, fields: '*' });
    });

    it('a row with no fields allows the action on no field', () => {
      const rules = compilePermissionRules([row({ collection: 'a', action: 'read', fields: null })], { app: false });
      expect([...(rules.byCollection.get('a')?.get('read')?.fields as Set<string>)]).to.deep.equal([]);
    });

    it('app_access adds the minimal system permissions of Directus 10, merged with own rows', () => {
      const own = row({
        collection: 'svc_users',
        action: 'read',
        permissions: { status: { _eq: 'active' } },
        fields: ['id', 'first_name'],
      });
      const without = compilePermissionRules([own], { app: false });
      expect([...without.byCollection.keys()]).to.deep.equal(['svc_users']);

      const rules = compilePermissionRules([own], { app: true });
      const rule = (collection: string, action: 'create' | 'read' | 'update' | 'delete') =>
        rules.byCollection.get(collection)?.get(action);
      for (const c of ['svc_collections', 'svc_fields', 'svc_relations', 'svc_settings']) {
        expect(rule(c, 'read'), c).to.deep.include({ filter: null, fields: '*' });
        expect(rule(c, 'update'), c).to.equal(undefined);
      }
      expect(rule('svc_permissions', 'read')?.filter).to.deep.equal({ role: { _eq: '$CURRENT_ROLE' } });
      expect(rule('svc_roles', 'read')?.filter).to.deep.equal({ id: { _eq: '$CURRENT_ROLE' } });
      expect(rule('svc_users', 'read')?.filter).to.deep.equal({
        _or: [{ id: { _eq: '$CURRENT_USER' } }, { status: { _eq: 'active' } }],
      });
      expect(rule('svc_users', 'read')?.fields).to.equal('*');
      expect(rule('svc_users', 'update')).to.equal(undefined);
      expect(rule('svc_activity', 'read')?.filter).to.deep.equal({ user: { _eq: '$CURRENT_USER' } });
      expect(rule('svc_activity', 'create')?.validation).to.deep.equal({ comment: { _nnull: true } });
      expect(rule('svc_activity', 'delete')).to.equal(undefined);
      expect(rule('svc_presets', 'read')?.filter).to.deep.equal({
        _or: [
          { user: { _eq: '$CURRENT_USER' } },
          { _and: [{ user: { _null: true } }, { role: { _eq: '$CURRENT_ROLE' } }] },
          { _and: [{ user: { _null: true } }, { role: { _null: true } }] },
        ],
      });
      expect(rule('svc_presets', 'create')).to.deep.include({
        validation: { user: { _eq: '$CURRENT_USER' } },
        presets: { user: '$CURRENT_USER' },
      });
      for (const action of ['update', 'delete'] as const) {
        expect(rule('svc_presets', action)?.filter).to.deep.equal({ user: { _eq: '$CURRENT_USER' } });
        expect(rule('svc_comments', action)?.filter).to.deep.equal({ user_created: { _eq: '$CURRENT_USER' } });
      }
      expect(rule('svc_comments', 'read')?.filter).to.deep.equal({ user_created: { _eq: '$CURRENT_USER' } });
      expect(rule('svc_comments', 'create')).to.deep.include({ filter: null, validation: null });
      expect(APP_ACCESS_PERMISSIONS.every((r) => r.collection.startsWith('svc_'))).to.equal(true);
    });

    it('own presets win over the implicit ones', () => {
      const rules = compilePermissionRules(
        [row({ collection: 'svc_presets', action: 'create', presets: { user: null, layout: 'cards' } })],
        { app: true },
      );
      expect(rules.byCollection.get('svc_presets')?.get('create')?.presets).to.deep.equal({
        user: null,
        layout: 'cards',
      });
    });

    it('lists the variable paths the rules need', () => {
      const rules = compilePermissionRules(
        [
          row({ collection: 'a', action: 'read', permissions: { team: { _eq: '$CURRENT_USER.team' } } }),
          row({
            collection: 'a',
            action: 'create',
            presets: { label: '$CURRENT_ROLE.name' },
            validation: { d: { _lt: '$CURRENT_USER.role.name' } },
          }),
        ],
        { app: true },
      );
      expect([...rules.dynamicPaths.user].sort()).to.deep.equal(['role.name', 'team']);
      expect([...rules.dynamicPaths.role]).to.deep.equal(['name']);
    });
  });
});
