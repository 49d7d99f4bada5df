/**
 * An item's history (GET /items/:collection/:id/history): who changed what when, newest first;
 * each revision's diff (GET /revisions/:id/diff) shown with insertions and deletions marked,
 * and a revert to it (POST /utils/revert/:revision).
 */
import { errorText, h } from '../dom.js';
import { navigate, type Page } from '../navigation.js';
import { display } from '../schema.js';
import { client } from '../session.js';

interface HistoryEntry {
  readonly revision: number;
  readonly action: unknown;
  readonly user: unknown;
  readonly timestamp: unknown;
  readonly fields: readonly string[];
}

interface FieldDiff {
  readonly before: unknown;
  readonly after: unknown;
  readonly changes?: readonly { value: string; added: boolean; removed: boolean }[];
}

export const historyPage: Page = async (params, query) => {
  const collection = params['collection'] ?? '';
  const id = params['id'] ?? '';
  const page = Math.max(1, Number(query.get('page') ?? 1) || 1);
  const path = `/items/${encodeURIComponent(collection)}/${encodeURIComponent(id)}/history`;
  const entries = (await client.transport.get<HistoryEntry[]>(path, { params: { limit: 20, page } })).data ?? [];
  const names = await userNames(entries.map((e) => e.user));
  const status = h('p', { class: 'status', role: 'status', 'aria-live': 'polite' });
  const base = `/admin/content/${encodeURIComponent(collection)}/${encodeURIComponent(id)}`;
  const list = h(
    'ol',
    { class: 'history' },
    entries.map((entry) => {
      const diff = h('div', { class: 'diff' });
      const show = h('button', { type: 'button', 'aria-expanded': 'false' }, 'Show changes');
      show.addEventListener('click', () => {
        if (show.getAttribute('aria-expanded') === 'true') {
          diff.replaceChildren();
          show.setAttribute('aria-expanded', 'false');
          show.textContent = 'Show changes';
          return;
        }
        show.setAttribute('aria-expanded', 'true');
        show.textContent = 'Hide changes';
        void loadDiff(entry.revision, diff);
      });
      const revert = h('button', { type: 'button', class: 'secondary' }, 'Revert to this');
      revert.addEventListener('click', () => {
        if (!window.confirm(`Set ${collection} ${id} back to revision ${entry.revision}?`)) return;
        client.utils.revert(entry.revision).then(
          () => navigate(`${base}/history`, true),
          (error: unknown) => {
            status.textContent = errorText(error);
            status.classList.add('error');
          },
        );
      });
      return h(
        'li',
        { class: 'card revision', 'data-revision': entry.revision },
        h('p', {}, h('strong', {}, String(entry.action)), ` by ${who(entry.user, names)} on ${when(entry.timestamp)}`),
        h('p', { class: 'muted' }, `Revision ${entry.revision}: ${entry.fields.join(', ') || 'no readable field'}`),
        h('div', { class: 'actions' }, show, revert),
        diff,
      );
    }),
  );
  return h(
    'section',
    {},
    h(
      'p',
      { class: 'crumbs' },
      h('a', { href: `/admin/content/${encodeURIComponent(collection)}` }, collection),
      ' / ',
      h('a', { href: base }, id),
      ' / history',
    ),
    h('h1', {}, `History of ${collection} ${id}`),
    status,
    entries.length === 0 ? h('p', {}, 'No revisions.') : list,
    h(
      'nav',
      { class: 'pager', 'aria-label': 'Pages' },
      page > 1 ? h('a', { href: `${base}/history?page=${page - 1}` }, 'Newer') : null,
      entries.length === 20 ? h('a', { href: `${base}/history?page=${page + 1}` }, 'Older') : null,
    ),
  );
};

async function loadDiff(revision: number, target: HTMLElement): Promise<void> {
  target.replaceChildren(h('p', { class: 'status' }, 'Loading…'));
  try {
    const diff = (await client.transport.get<{ fields: Record<string, FieldDiff> }>(`/revisions/${revision}/diff`))
      .data;
    const fields = Object.entries(diff?.fields ?? {});
    target.replaceChildren(
      fields.length === 0
        ? h('p', {}, 'No readable field changed.')
        : h(
            'table',
            { class: 'diff-table' },
            h('caption', {}, `Changes in revision ${revision}`),
            h(
              'thead',
              {},
              h(
                'tr',
                {},
                h('th', { scope: 'col' }, 'Field'),
                h('th', { scope: 'col' }, 'Before'),
                h('th', { scope: 'col' }, 'After'),
              ),
            ),
            h(
              'tbody',
              {},
              fields.map(([name, change]) =>
                h('tr', {}, h('th', { scope: 'row' }, name), h('td', {}, before(change)), h('td', {}, after(change))),
              ),
            ),
          ),
    );
  } catch (error) {
    target.replaceChildren(h('p', { class: 'status error', role: 'alert' }, errorText(error)));
  }
}

/** Text fields: the words removed struck through; the others: the old value. */
function before(change: FieldDiff): Node {
  if (change.changes === undefined) return h('del', {}, display(change.before));
  return h(
    'span',
    {},
    change.changes.filter((c) => !c.added).map((c) => (c.removed ? h('del', {}, c.value) : c.value)),
  );
}

function after(change: FieldDiff): Node {
  if (change.changes === undefined) return h('ins', {}, display(change.after));
  return h(
    'span',
    {},
    change.changes.filter((c) => !c.removed).map((c) => (c.added ? h('ins', {}, c.value) : c.value)),
  );
}

/** The names of the users who made the revisions, as far as the caller may read users. */
async function userNames(users: readonly unknown[]): Promise<ReadonlyMap<string, string>> {
  const ids = [...new Set(users.filter((u): u is string => typeof u === 'string'))];
  const names = new Map<string, string>();
  if (ids.length === 0) return names;
  try {
    const rows = (await client.users.readMany(ids, { fields: ['id', 'email', 'first_name', 'last_name'] })).data ?? [];
    for (const row of rows) {
      const name = [row.first_name, row.last_name].filter((p) => typeof p === 'string' && p !== '').join(' ');
      names.set(String(row.id), name === '' ? String(row.email ?? row.id) : `${name} <${String(row.email)}>`);
    }
  } catch {
    // Users the caller may not read appear by id.
  }
  return names;
}

function who(user: unknown, names: ReadonlyMap<string, string>): string {
  if (user === null || user === undefined) return 'the system';
  if (typeof user === 'object') {
    const u = user as Record<string, unknown>;
    const name = [u['first_name'], u['last_name']].filter((p) => typeof p === 'string').join(' ');
    return name !== '' ? name : String(u['email'] ?? u['id']);
  }
  return names.get(String(user)) ?? String(user);
}

function when(timestamp: unknown): string {
  const date = new Date(String(timestamp));
  return Number.isNaN(date.getTime()) ? String(timestamp) : date.toLocaleString();
}
