/** The collections, and one collection's items: paging, sort by a column, a filter box and search. */
import type { QueryMany } from '../../client/index.js';
import { errorText, h } from '../dom.js';
import { navigate, type Page } from '../navigation.js';
import { display, readFields } from '../schema.js';
import { client } from '../session.js';

const PAGE_SIZE = 25;

export const collectionsPage: Page = async () => {
  const collections = ((await client.collections.readAll()).data ?? []).filter((c) => !c.collection.startsWith('svc_'));
  collections.sort((a, b) => a.collection.localeCompare(b.collection));
  return h(
    'section',
    {},
    h('h1', {}, 'Collections'),
    collections.length === 0
      ? h('p', {}, 'No collections you can read.')
      : h(
          'ul',
          { class: 'collections' },
          collections.map((c) =>
            h('li', {}, h('a', { href: `/admin/content/${encodeURIComponent(c.collection)}` }, c.collection)),
          ),
        ),
  );
};

export const itemsPage: Page = async (params, query) => {
  const collection = params['collection'] ?? '';
  const fields = await readFields(collection);
  const page = Math.max(1, Number(query.get('page') ?? 1) || 1);
  const sort = query.get('sort') ?? '';
  const search = query.get('search') ?? '';
  const filterText = query.get('filter') ?? '';
  const status = h('p', { class: 'status', role: 'status' });

  const request: QueryMany = {
    fields: [...fields.columns],
    limit: PAGE_SIZE,
    page,
    meta: 'filter_count',
    ...(sort === '' ? {} : { sort }),
    ...(search === '' ? {} : { search }),
  };
  let filter: Record<string, unknown> | undefined;
  if (filterText !== '') {
    try {
      filter = JSON.parse(filterText) as Record<string, unknown>;
    } catch {
      status.textContent = 'The filter is not JSON, e.g. {"status":{"_eq":"published"}}.';
      status.classList.add('error');
    }
  }
  let rows: Record<string, unknown>[] = [];
  let count = 0;
  try {
    const result = await client
      .items(collection)
      .readByQuery(filter === undefined ? request : { ...request, filter: filter as never });
    rows = (result.data ?? []) as Record<string, unknown>[];
    count = result.meta?.filter_count ?? rows.length;
  } catch (error) {
    status.textContent = errorText(error);
    status.classList.add('error');
  }

  const go = (changes: Record<string, string>) => {
    const next = new URLSearchParams(query);
    for (const [key, value] of Object.entries(changes)) {
      if (value === '') next.delete(key);
      else next.set(key, value);
    }
    navigate(`/admin/content/${encodeURIComponent(collection)}?${next.toString()}`);
  };
  const searchBox = h('input', { id: 'search', type: 'search', name: 'search', value: search });
  const filterBox = h('input', {
    id: 'filter',
    name: 'filter',
    value: filterText,
    placeholder: '{"field":{"_eq":"value"}}',
    spellcheck: 'false',
  });
  const tools = h(
    'form',
    { class: 'tools', role: 'search' },
    h('div', { class: 'field' }, h('label', { for: 'search' }, 'Search'), searchBox),
    h('div', { class: 'field' }, h('label', { for: 'filter' }, 'Filter (JSON)'), filterBox),
    h('button', { type: 'submit' }, 'Apply'),
  );
  tools.addEventListener('submit', (event) => {
    event.preventDefault();
    go({ search: searchBox.value, filter: filterBox.value, page: '' });
  });

  const header = fields.columns.map((column) => {
    const direction = sort === column ? 'ascending' : sort === `-${column}` ? 'descending' : 'none';
    const next = sort === column ? `-${column}` : column;
    return h(
      'th',
      { scope: 'col', 'aria-sort': direction },
      h(
        'button',
        { type: 'button', class: 'link', onclick: () => go({ sort: next, page: '' }) },
        column,
        direction === 'ascending' ? ' ▲' : direction === 'descending' ? ' ▼' : '',
      ),
    );
  });
  const body = rows.map((row) => {
    const key = String(row[fields.primaryKey]);
    const href = `/admin/content/${encodeURIComponent(collection)}/${encodeURIComponent(key)}`;
    return h(
      'tr',
      {},
      fields.columns.map((column, i) =>
        h('td', {}, i === 0 ? h('a', { href }, display(row[column])) : display(row[column])),
      ),
    );
  });
  const pages = Math.max(1, Math.ceil(count / PAGE_SIZE));
  const pager = h(
    'nav',
    { class: 'pager', 'aria-label': 'Pages' },
    h('button', { type: 'button', disabled: page <= 1, onclick: () => go({ page: String(page - 1) }) }, 'Previous'),
    h('span', {}, `Page ${page} of ${pages} (${count} items)`),
    h('button', { type: 'button', disabled: page >= pages, onclick: () => go({ page: String(page + 1) }) }, 'Next'),
  );
  return h(
    'section',
    {},
    h('h1', {}, collection),
    tools,
    status,
    h(
      'div',
      { class: 'table-wrap' },
      h(
        'table',
        {},
        h('caption', { class: 'visually-hidden' }, `Items of ${collection}`),
        h('thead', {}, h('tr', {}, header)),
        h('tbody', {}, body),
      ),
    ),
    pager,
  );
};
