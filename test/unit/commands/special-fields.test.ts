import { expect } from 'chai';
import { verifyPassword } from '../../../src/access/passwords.js';
import {
  applySpecialFields,
  hashSpecialFields,
  isServerOwned,
  withoutMaskedValues,
  withoutServerOwned,
} from '../../../src/commands/special-fields.js';
import { MASK, maskItem } from '../../../src/commands/journal/mask.js';
import { collection, field, requireFixture } from './fixture-overview.js';

const now = new Date('2024-05-01T10:00:00.000Z');
const accountability = { user: '11111111-1111-4111-8111-111111111111', role: '22222222-2222-4222-8222-222222222222' };

const audited = collection('audited', [
  field('id', 'uuid', { isPrimaryKey: true, nullable: false }),
  field('token', 'string', { special: ['uuid'] }),
  field('created', 'timestamp', { special: ['date-created'] }),
  field('updated', 'timestamp', { special: ['date-updated'] }),
  field('creator', 'uuid', { special: ['user-created'] }),
  field('editor', 'uuid', { special: ['user-updated'] }),
  field('creator_role', 'uuid', { special: ['role-created'] }),
  field('title', 'string'),
]);

describe('applySpecialFields', () => {
  it('on create fills uuid keys, date-created, user-created and role-created, overriding the payload', () => {
    const result = applySpecialFields(
      audited,
      { title: 't', created: '1999-01-01T00:00:00Z', creator: null },
      { action: 'create', accountability, now },
    );
    expect(result['id']).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(result['token']).to.be.a('string').and.not.equal(result['id']);
    expect(result).to.include({
      title: 't',
      created: '2024-05-01T10:00:00.000Z',
      creator: accountability.user,
      creator_role: accountability.role,
    });
    expect(result).not.to.have.property('updated');
    expect(result).not.to.have.property('editor');
  });

  it('keeps a uuid key given by the caller', () => {
    const id = '8f14e45f-ceea-467f-a0e6-2f4b2c4d1e9a';
    expect(applySpecialFields(audited, { id }, { action: 'create', accountability, now })['id']).to.equal(id);
  });

  it('on update sets date-updated and user-updated only', () => {
    const result = applySpecialFields(audited, { title: 'u' }, { action: 'update', accountability, now });
    expect(result).to.deep.equal({ title: 'u', updated: '2024-05-01T10:00:00.000Z', editor: accountability.user });
  });

  it('leaves out the authorship of the other action: a create sets no updater, an update no creator', () => {
    const forged = {
      title: 't',
      created: '1999-01-01T00:00:00Z',
      creator: 'someone',
      creator_role: 'r',
      updated: '1999-01-01T00:00:00Z',
      editor: 'someone',
    };
    expect(applySpecialFields(audited, forged, { action: 'create', accountability, now })).not.to.have.any.keys(
      'updated',
      'editor',
    );
    expect(applySpecialFields(audited, forged, { action: 'update', accountability, now })).to.deep.equal({
      title: 't',
      updated: '2024-05-01T10:00:00.000Z',
      editor: accountability.user,
    });
  });

  it('leaves collections without specials alone (integer keys are the database’s)', () => {
    expect(
      applySpecialFields(requireFixture('authors'), { name: 'n' }, { action: 'create', accountability, now }),
    ).to.deep.equal({ name: 'n' });
  });
});

describe('server-owned fields', () => {
  const files = collection('svc_files', [
    field('id', 'uuid', { isPrimaryKey: true }),
    field('storage', 'string'),
    field('filename_disk', 'string'),
    field('filename_download', 'string'),
    field('filesize', 'bigInteger'),
    field('uploaded_on', 'timestamp'),
    field('uploaded_by', 'uuid', { special: ['user-created'] }),
    field('title', 'string'),
  ]);

  it('are the authorship specials, on create and update alike', () => {
    const forged = { title: 't', created: 'c', updated: 'u', creator: 'x', editor: 'y', creator_role: 'r' };
    expect(withoutServerOwned(audited, forged, 'create')).to.deep.equal({ title: 't' });
    expect(withoutServerOwned(audited, forged, 'update')).to.deep.equal({ title: 't' });
  });

  it("are svc_files' content fields; storage may be named on a create only", () => {
    const payload = {
      title: 't',
      filename_download: 'd',
      filename_disk: '../x',
      filesize: 1,
      uploaded_on: 'now',
      uploaded_by: 'x',
      storage: 'local',
    };
    expect(withoutServerOwned(files, payload, 'create')).to.deep.equal({
      title: 't',
      filename_download: 'd',
      storage: 'local',
    });
    expect(withoutServerOwned(files, payload, 'update')).to.deep.equal({ title: 't', filename_download: 'd' });
    expect(isServerOwned(files, 'filename_disk', 'create')).to.equal(true);
    expect(isServerOwned(requireFixture('authors'), 'filename_disk', 'update')).to.equal(false);
  });

  it('a payload key `__proto__` stays a plain key of the copies, never their prototype', () => {
    const payload = JSON.parse('{"__proto__": {"polluted": true}, "title": "t"}') as Record<string, unknown>;
    for (const kept of [withoutServerOwned(audited, payload, 'create'), withoutMaskedValues(audited, payload)]) {
      expect(Object.getPrototypeOf(kept)).to.equal(Object.prototype);
      expect(Object.keys(kept)).to.deep.equal(['__proto__', 'title']);
      expect(kept['polluted']).to.equal(undefined);
    }
  });
});

describe('hash fields', () => {
  const things = requireFixture('things');

  it('hashes hash fields with argon2id and leaves the rest', async () => {
    const result = await hashSpecialFields(things, { secret: 'pass word', label: 'x' });
    expect(result['label']).to.equal('x');
    expect(result['secret']).to.match(/^\$argon2id\$v=19\$/);
    expect(await verifyPassword(String(result['secret']), 'pass word')).to.equal(true);
  });

  it('drops a hash field that carries the read mask, so a re-sent item keeps its hash', () => {
    expect(withoutMaskedValues(things, { secret: MASK, label: MASK })).to.deep.equal({ label: MASK });
  });

  it('drops a conceal field that carries the read mask, so the mask never becomes a static token', () => {
    const users = collection('svc_users', [
      field('id', 'uuid', { isPrimaryKey: true }),
      field('token', 'string', { special: ['conceal'] }),
    ]);
    expect(withoutMaskedValues(users, { token: MASK })).to.deep.equal({});
    expect(withoutMaskedValues(users, { token: 'new-token' })).to.deep.equal({ token: 'new-token' });
  });

  it('masks hash and conceal fields, null stays null', () => {
    expect(maskItem(things, { secret: 'h', label: 'l' })).to.deep.equal({ secret: MASK, label: 'l' });
    const users = collection('svc_users', [
      field('id', 'uuid', { isPrimaryKey: true }),
      field('password', 'hash', { special: ['hash', 'conceal'] }),
      field('token', 'string', { special: ['conceal'] }),
      field('tfa_secret', 'string', { special: ['conceal'] }),
      field('email', 'string'),
    ]);
    expect(maskItem(users, { password: 'x', token: 't', tfa_secret: null, email: 'e' })).to.deep.equal({
      password: MASK,
      token: MASK,
      tfa_secret: null,
      email: 'e',
    });
  });
});
