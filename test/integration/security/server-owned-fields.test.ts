import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Knex } from 'knex';
import { describeEachDatabase, type ServerContext } from '../../support/server.js';
import {
  asAdmin,
  call,
  createCaller,
  dataOf,
  expectForbidden,
  grant,
  type Caller,
  type JsonResponse,
} from '../access/permission-helpers.js';
import { createUser } from '../auth/helpers.js';
import { sendForm, startHttpServer, storedNames, type TestHttpServer } from '../files/helpers.js';
import { graphql } from '../graphql/graphql-client.js';
import { dumpTables, type Row } from './helpers.js';

/*
 * Fields only the service writes: a client's value is ignored on every write path, so that an uploader cannot
 * point a file row at another user's content (and read or delete it through that row), and
 * nobody can forge who created or changed an item, or when. The attacker is a user of a role
 * that owns its own files and notes; the victim is another user of the same role.
 */

const dir = mkdtempSync(join(tmpdir(), 'svc-server-owned-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const root = join(dir, 'uploads');
/** A file next to the storage root, where `../outside.txt` would lead. */
const OUTSIDE = join(dir, 'outside.txt');

const WATCHED: readonly (readonly [string, string])[] = [
  ['svc_files', 'id'],
  ['notes', 'id'],
];

const VICTIM_BYTES = 'the victim file, private';
const FORGED_DATE = '2001-02-03T04:05:06.000Z';

interface World {
  readonly ctx: ServerContext;
  readonly attacker: Caller;
  readonly victim: Caller;
  /** The victim's uploaded file. */
  readonly victimFile: { readonly id: string; readonly disk: string };
  /** The attacker's own uploaded file and note. */
  readonly ownFile: { readonly id: string; readonly disk: string };
  readonly ownNote: number;
  readonly source: TestHttpServer;
  as(method: string, path: string, body?: unknown): Promise<JsonResponse>;
}

describeEachDatabase(
  'server-owned fields cannot be written by a client',
  (context) => {
    let w: World;
    let source: TestHttpServer | undefined;

    before(async () => {
      // 127.0.0.2 is loopback but not on this suite's deny list (/files/import).
      source = await startHttpServer('127.0.0.2', (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'text/plain' });
        res.end('imported bytes');
      });
      w = await createWorld(context(), source);
    });
    after(async () => {
      await source?.close();
    });

    /** What each case must leave as it was: the victim's row, bytes, and their owner's access. */
    async function expectVictimIntact(victimRow: Row | undefined): Promise<void> {
      expect(await readFile(join(root, w.victimFile.disk), 'utf8')).to.equal(VICTIM_BYTES);
      expect(await fileRow(w.ctx.server.db, w.victimFile.id)).to.deep.equal(victimRow);
      const asset = await w.ctx.api(`/assets/${w.victimFile.id}`, {
        headers: { Authorization: `Bearer ${w.victim.token}` },
      });
      expect([asset.status, await asset.text()]).to.deep.equal([200, VICTIM_BYTES]);
    }

    /** Runs `attack`; the victim's file is intact afterwards, and storage holds only what `attack` says. */
    async function attempt(attack: () => Promise<void>): Promise<void> {
      const victimRow = await fileRow(w.ctx.server.db, w.victimFile.id);
      await attack();
      await expectVictimIntact(victimRow);
    }

    /** The attacker's view of an asset: must read like a missing one. */
    async function expectNoAsset(id: string): Promise<void> {
      const headers = { Authorization: `Bearer ${w.attacker.token}` };
      const asset = await w.ctx.api(`/assets/${id}`, { headers });
      const missing = await w.ctx.api(`/assets/${randomUUID()}`, { headers });
      expect([asset.status, await asset.text()]).to.deep.equal([missing.status, await missing.text()]);
      expect(asset.status).to.equal(403);
    }

    describe('files', () => {
      it('POST /files (JSON) ignores filename_disk, filesize, uploaded_on and uploaded_by; the row has no content to serve or delete', () =>
        attempt(async () => {
          const stored = await storedNames(root);
          const created = dataOf<Row>(
            await w.as('POST', '/files', {
              filename_download: 'x.txt',
              storage: 'local',
              type: 'text/plain',
              filename_disk: w.victimFile.disk,
              filesize: 24,
              uploaded_on: FORGED_DATE,
              uploaded_by: w.victim.user,
            }),
          );
          const id = String(created['id']);
          expect(await fileRow(w.ctx.server.db, id)).to.include({
            filename_disk: null,
            filesize: null,
            uploaded_on: null,
            uploaded_by: w.attacker.user,
          });
          await expectNoAsset(id);
          expect((await w.as('DELETE', `/files/${id}`)).status).to.equal(204);
          expect(await fileRow(w.ctx.server.db, id)).to.equal(undefined);
          expect(await storedNames(root)).to.deep.equal(stored);
        }));

      it('POST /items/svc_files and a POST array ignore filename_disk too', () =>
        attempt(async () => {
          const one = dataOf<Row>(
            await w.as('POST', '/items/svc_files', {
              filename_download: 'y.txt',
              storage: 'local',
              filename_disk: w.victimFile.disk,
            }),
          );
          const many = dataOf<Row[]>(
            await w.as('POST', '/files', [
              { filename_download: 'z.txt', storage: 'local', filename_disk: w.victimFile.disk },
            ]),
          );
          for (const id of [one['id'], ...many.map((f) => f['id'])]) {
            expect((await fileRow(w.ctx.server.db, String(id)))?.['filename_disk']).to.equal(null);
            await expectNoAsset(String(id));
          }
        }));

      it('a filename_disk leading out of the storage root is ignored, never a 500', () =>
        attempt(async () => {
          for (const disk of ['../outside.txt', `a/../../${w.victimFile.disk}`, '..', 'x\u0000.txt', '/etc/passwd']) {
            const res = await w.as('POST', '/files', {
              filename_download: 'p.txt',
              storage: 'local',
              filename_disk: disk,
            });
            if (disk.includes('\u0000') && w.ctx.dialect === 'postgres') {
              // PostgreSQL cannot store NUL in text: the body is refused before anything reads it.
              expect(res.status, JSON.stringify(res.body)).to.equal(400);
              continue;
            }
            const created = dataOf<Row>(res);
            expect((await fileRow(w.ctx.server.db, String(created['id'])))?.['filename_disk'], disk).to.equal(null);
            await expectNoAsset(String(created['id']));
          }
          expect(await readFile(OUTSIDE, 'utf8')).to.equal('outside the root');
        }));

      it("PATCH of an own file's filename_disk, storage, filesize, uploaded_on or uploaded_by changes nothing of them", () =>
        attempt(async () => {
          const before = await fileRow(w.ctx.server.db, w.ownFile.id);
          const forged = {
            filename_disk: w.victimFile.disk,
            storage: 'elsewhere',
            filesize: 1,
            uploaded_on: FORGED_DATE,
            uploaded_by: w.victim.user,
          };
          const answers = [
            await w.as('PATCH', `/files/${w.ownFile.id}`, { ...forged, title: 'renamed' }),
            await w.as('PATCH', `/items/svc_files/${w.ownFile.id}`, forged),
            await w.as('PATCH', '/files', [{ id: w.ownFile.id, ...forged }]),
            await w.as('PATCH', '/files', { keys: [w.ownFile.id], data: forged }),
            await w.as('PATCH', '/files', { query: { filter: { id: { _eq: w.ownFile.id } } }, data: forged }),
          ];
          for (const answer of answers) expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
          const after = await fileRow(w.ctx.server.db, w.ownFile.id);
          const kept = ['filename_disk', 'storage', 'filesize', 'uploaded_on', 'uploaded_by', 'created_on'] as const;
          expect(pick(after, kept)).to.deep.equal(pick(before, kept));
          expect(after?.['title']).to.equal('renamed');
          const own = await w.ctx.api(`/assets/${w.ownFile.id}`, {
            headers: { Authorization: `Bearer ${w.attacker.token}` },
          });
          expect(await own.text()).to.equal('attacker bytes');
        }));

      it('multipart fields cannot name the content: filename_disk is ignored, an existing id leaves the existing file alone', () =>
        attempt(async () => {
          const stored = await storedNames(root);
          const uploaded = dataOf<Row>(
            await sendForm(
              w.ctx,
              'POST',
              '/files',
              [
                ['filename_disk', w.victimFile.disk],
                ['filesize', '3'],
                ['file', 'mine', 'mine.txt', 'text/plain'],
              ],
              { token: w.attacker.token },
            ),
          );
          expect(uploaded['filename_disk']).to.equal(`${String(uploaded['id'])}.txt`);
          expect(Number(uploaded['filesize'])).to.equal(4);
          expect(await readFile(join(root, `${String(uploaded['id'])}.txt`), 'utf8')).to.equal('mine');
          expect((await w.as('DELETE', `/files/${String(uploaded['id'])}`)).status).to.equal(204);

          // The victim's id with the victim's extension: the upload must not overwrite, then discard, the victim's bytes.
          const rows = await dumpTables(w.ctx.server.db, WATCHED);
          const taken = await sendForm(
            w.ctx,
            'POST',
            '/files',
            [
              ['id', w.victimFile.id],
              ['file', 'overwritten!', 'victim.txt', 'text/plain'],
            ],
            { token: w.attacker.token },
          );
          expect(taken.status, JSON.stringify(taken.body)).to.equal(400);
          expect(await dumpTables(w.ctx.server.db, WATCHED)).to.deep.equal(rows);
          expect(await storedNames(root)).to.deep.equal(stored);
        }));

      it('a multipart replacement of an own file stores it under its own name, whatever filename_disk says', () =>
        attempt(async () => {
          const replaced = dataOf<Row>(
            await sendForm(
              w.ctx,
              'PATCH',
              `/files/${w.ownFile.id}`,
              [
                ['filename_disk', w.victimFile.disk],
                ['file', 'attacker bytes', 'own.txt', 'text/plain'],
              ],
              {
                token: w.attacker.token,
              },
            ),
          );
          expect(replaced['filename_disk']).to.equal(w.ownFile.disk);
          expect(await readFile(join(root, w.ownFile.disk), 'utf8')).to.equal('attacker bytes');
        }));

      it('POST /files/import ignores filename_disk in its data', () =>
        attempt(async () => {
          const url = `${w.source.url}/imported.txt`;
          const imported = dataOf<Row>(
            await w.as('POST', '/files/import', { url, data: { filename_disk: w.victimFile.disk, filesize: 1 } }),
          );
          expect(imported['filename_disk']).to.equal(`${String(imported['id'])}.txt`);
          expect(Number(imported['filesize'])).to.equal('imported bytes'.length);
          expect((await w.as('DELETE', `/files/${String(imported['id'])}`)).status).to.equal(204);
        }));

      it('GraphQL create_files_item and update_files_item ignore filename_disk', () =>
        attempt(async () => {
          const system = { scope: 'system', token: w.attacker.token } as const;
          const created = await graphql(
            w.ctx,
            `mutation { create_files_item(data: { filename_download: "g.txt", storage: "local", filename_disk: "${w.victimFile.disk}" }) { id filename_disk } }`,
            system,
          );
          expect(created.body.errors, JSON.stringify(created.body)).to.equal(undefined);
          const file = created.body.data?.['create_files_item'] as Row;
          expect(file['filename_disk']).to.equal(null);
          await expectNoAsset(String(file['id']));
          const updated = await graphql(
            w.ctx,
            `mutation { update_files_item(id: "${w.ownFile.id}", data: { filename_disk: "${w.victimFile.disk}" }) { filename_disk } }`,
            system,
          );
          expect(updated.body.data, JSON.stringify(updated.body)).to.deep.equal({
            update_files_item: { filename_disk: w.ownFile.disk },
          });
        }));

      it("an import into svc_files, even an admin's, ignores filename_disk", () =>
        attempt(async () => {
          const id = randomUUID();
          const rows = [{ id, filename_download: 'i.txt', storage: 'local', filename_disk: w.victimFile.disk }];
          const res = await sendForm(w.ctx, 'POST', '/utils/import/svc_files', [
            ['file', JSON.stringify(rows), 'files.json', 'application/json'],
          ]);
          expect(res.status, JSON.stringify(res.body)).to.equal(200);
          expect((await fileRow(w.ctx.server.db, id))?.['filename_disk']).to.equal(null);
        }));

      it('a stored filename_disk outside the root (written before this rule) is FORBIDDEN to serve and never deleted', () =>
        attempt(async () => {
          const id = randomUUID();
          await w.ctx.server.db('svc_files').insert({
            id,
            storage: 'local',
            filename_disk: '../outside.txt',
            filename_download: 'o.txt',
            uploaded_by: w.attacker.user,
          });
          await expectNoAsset(id);
          expect((await w.as('DELETE', `/files/${id}`)).status).to.equal(204);
          expect(await readFile(OUTSIDE, 'utf8')).to.equal('outside the root');
        }));
    });

    describe('authorship', () => {
      const authorship = (row: Row | undefined) =>
        pick(row, ['user_created', 'date_created', 'user_updated', 'date_updated']);

      it('a create ignores user_created, user_updated, date_created and date_updated', async () => {
        const forged = {
          user_created: w.victim.user,
          user_updated: w.victim.user,
          date_created: FORGED_DATE,
          date_updated: FORGED_DATE,
        };
        const created = dataOf<Row>(await w.as('POST', '/items/notes', { text: 'forged', ...forged }));
        const row = await noteRow(w.ctx.server.db, created['id']);
        expect(row).to.include({ user_created: w.attacker.user, user_updated: null, date_updated: null });
        expect(new Date(String(created['date_created'])).getFullYear()).to.be.greaterThan(2020);
      });

      it('an update cannot move an item to another user or back-date it, on any REST door', async () => {
        const forged = { user_created: w.victim.user, date_created: FORGED_DATE, user_updated: w.victim.user };
        const before = await noteRow(w.ctx.server.db, w.ownNote);
        const answers = [
          await w.as('PATCH', `/items/notes/${w.ownNote}`, forged),
          await w.as('PATCH', '/items/notes', [{ id: w.ownNote, ...forged }]),
          await w.as('PATCH', '/items/notes', { keys: [w.ownNote], data: forged }),
          await w.as('PATCH', '/items/notes', { query: { filter: { id: { _eq: w.ownNote } } }, data: forged }),
        ];
        for (const answer of answers) expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
        const after = await noteRow(w.ctx.server.db, w.ownNote);
        expect(pick(after, ['user_created', 'date_created'])).to.deep.equal(
          pick(before, ['user_created', 'date_created']),
        );
        expect(after?.['user_updated']).to.equal(w.attacker.user);
        // Still the attacker's: the victim's "own items" permission does not reach it.
        expectForbidden(await call(w.ctx, w.victim.token, 'GET', `/items/notes/${w.ownNote}`));
      });

      it('nested writes (many-to-one create and update) ignore authorship too', async () => {
        const created = dataOf<Row>(
          await w.as('POST', '/items/notes?fields=id,parent', {
            text: 'child',
            parent: { text: 'parent', user_created: w.victim.user },
          }),
        );
        const parent = created['parent'];
        expect((await noteRow(w.ctx.server.db, parent))?.['user_created']).to.equal(w.attacker.user);
        expect(
          (
            await w.as('PATCH', `/items/notes/${String(created['id'])}`, {
              parent: { id: parent, user_created: w.victim.user },
            })
          ).status,
        ).to.equal(200);
        expect((await noteRow(w.ctx.server.db, parent))?.['user_created']).to.equal(w.attacker.user);
      });

      it('GraphQL create and update ignore authorship', async () => {
        const items = { token: w.attacker.token } as const;
        const before = authorship(await noteRow(w.ctx.server.db, w.ownNote));
        const created = await graphql(
          w.ctx,
          `mutation { create_notes_item(data: { text: "g", user_created: "${w.victim.user}", date_created: "${FORGED_DATE}" }) { id } }`,
          items,
        );
        expect(created.body.errors, JSON.stringify(created.body)).to.equal(undefined);
        const id = (created.body.data?.['create_notes_item'] as Row)['id'];
        expect((await noteRow(w.ctx.server.db, id))?.['user_created']).to.equal(w.attacker.user);
        const updated = await graphql(
          w.ctx,
          `mutation { update_notes_item(id: ${w.ownNote}, data: { user_created: "${w.victim.user}", date_created: "${FORGED_DATE}" }) { id } }`,
          items,
        );
        expect(updated.body.errors, JSON.stringify(updated.body)).to.equal(undefined);
        const after = authorship(await noteRow(w.ctx.server.db, w.ownNote));
        expect(pick(after, ['user_created', 'date_created'])).to.deep.equal(
          pick(before, ['user_created', 'date_created']),
        );
      });

      it('an import creates and updates without taking authorship from the file', async () => {
        const before = await noteRow(w.ctx.server.db, w.ownNote);
        const rows = [
          { text: 'imported', user_created: w.victim.user, date_created: FORGED_DATE },
          { id: w.ownNote, text: 'import update', user_created: w.victim.user, date_created: FORGED_DATE },
        ];
        const res = await sendForm(
          w.ctx,
          'POST',
          '/utils/import/notes',
          [['file', JSON.stringify(rows), 'notes.json', 'application/json']],
          { token: w.attacker.token },
        );
        expect(res.status, JSON.stringify(res.body)).to.equal(200);
        const imported = await w.ctx.server.db('notes').where('text', 'imported').first<Row>();
        expect(imported?.['user_created']).to.equal(w.attacker.user);
        const after = await noteRow(w.ctx.server.db, w.ownNote);
        expect(pick(after, ['user_created', 'date_created'])).to.deep.equal(
          pick(before, ['user_created', 'date_created']),
        );
      });

      it('a revert writes the revision back without its authorship', async () => {
        const db = w.ctx.server.db;
        const revision = await db('svc_revisions')
          .where({ collection: 'notes', item: String(w.ownNote) })
          .orderBy('id')
          .first<Row>('id');
        const before = await noteRow(db, w.ownNote);
        const res = await w.as('POST', `/utils/revert/${String(revision?.['id'])}`);
        expect(res.status, JSON.stringify(res.body)).to.equal(204);
        const after = await noteRow(db, w.ownNote);
        expect(after?.['text']).to.equal('own note');
        expect(pick(after, ['user_created', 'date_created'])).to.deep.equal(
          pick(before, ['user_created', 'date_created']),
        );
      });
    });
  },
  {
    env: {
      STORAGE_LOCAL_ROOT: root,
      TEMP_PATH: join(dir, 'tmp'),
      FILES_MIME_TYPE_ALLOW_LIST: 'text/*,application/json',
      IMPORT_IP_DENY_LIST: '127.0.0.1,169.254.169.254',
    },
  },
);

/**
 * notes (user_created, user_updated, date_created, date_updated as specials; `parent`: a
 * many-to-one to notes), a role whose users own their files and notes, its attacker and its
 * victim, a file of each and a note of the attacker.
 */
async function createWorld(ctx: ServerContext, source: TestHttpServer): Promise<World> {
  const db = ctx.server.db;
  mkdirSync(root, { recursive: true });
  writeFileSync(OUTSIDE, 'outside the root');
  await db.schema.createTable('notes', (t) => {
    t.increments('id');
    t.string('text', 255);
    t.integer('parent').unsigned().references('id').inTable('notes').onDelete('SET NULL');
    t.uuid('user_created');
    t.uuid('user_updated');
    t.timestamp('date_created', { useTz: true });
    t.timestamp('date_updated', { useTz: true });
  });
  await db('svc_fields').insert([
    { collection: 'notes', field: 'user_created', special: 'user-created' },
    { collection: 'notes', field: 'user_updated', special: 'user-updated' },
    { collection: 'notes', field: 'date_created', special: 'date-created' },
    { collection: 'notes', field: 'date_updated', special: 'date-updated' },
  ]);
  await db('svc_relations').insert({ many_collection: 'notes', many_field: 'parent', one_collection: 'notes' });

  const attacker = await createCaller(db, { app: true });
  const token = `token-${randomUUID()}`;
  const victimUser = await createUser(db, { role: attacker.role, token });
  const victim: Caller = { role: attacker.role, user: victimUser.id, token };
  const ownFiles = { uploaded_by: { _eq: '$CURRENT_USER' } };
  const ownNotes = { user_created: { _eq: '$CURRENT_USER' } };
  await grant(ctx, attacker.role, [
    { collection: 'svc_files', action: 'create' },
    { collection: 'svc_files', action: 'read', permissions: ownFiles },
    { collection: 'svc_files', action: 'update', permissions: ownFiles },
    { collection: 'svc_files', action: 'delete', permissions: ownFiles },
    { collection: 'notes', action: 'create' },
    { collection: 'notes', action: 'read', permissions: ownNotes },
    { collection: 'notes', action: 'update', permissions: ownNotes },
    { collection: 'svc_revisions', action: 'read' },
  ]);

  const upload = async (caller: Caller, content: string, name: string) => {
    const file = dataOf<Row>(
      await sendForm(ctx, 'POST', '/files', [['file', content, name, 'text/plain']], { token: caller.token }),
    );
    return { id: String(file['id']), disk: String(file['filename_disk']) };
  };
  const note = async (caller: Caller, text: string) =>
    Number(dataOf<Row>(await call(ctx, caller.token, 'POST', '/items/notes', { text }))['id']);
  const victimFile = await upload(victim, VICTIM_BYTES, 'victim.txt');
  const ownFile = await upload(attacker, 'attacker bytes', 'own.txt');
  const ownNote = await note(attacker, 'own note');
  expect((await asAdmin(ctx, 'GET', `/files/${victimFile.id}`)).status).to.equal(200);
  return {
    ctx,
    attacker,
    victim,
    victimFile,
    ownFile,
    ownNote,
    source,
    as: (method, path, body) => call(ctx, attacker.token, method, path, body),
  };
}

function fileRow(db: Knex, id: string): Promise<Row | undefined> {
  return db('svc_files').where('id', id).first<Row | undefined>();
}

function noteRow(db: Knex, id: unknown): Promise<Row | undefined> {
  return db('notes').where('id', Number(id)).first<Row | undefined>();
}

function pick(row: Row | undefined, names: readonly string[]): Row {
  return Object.fromEntries(names.map((name) => [name, row?.[name]]));
}
