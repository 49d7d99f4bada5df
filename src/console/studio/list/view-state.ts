/**
 * The list's view as the page holds it: react-admin's list params (filter, search, sort, page),
 * the column picker's store, and the state outside both (layout, widths, the open bookmark).
 * Shared by the list (collection-list.tsx) and its bookmark controls (bookmark-controls.tsx).
 */
import { useListContext, useStore } from 'react-admin';
import type { Filter } from '../../../client/index.js';
import type { Catalogue, CollectionInfo } from '../catalogue.js';
import { defaultColumns } from '../fields.js';
import { sameView, type LayoutName, type View } from './view.js';

/** The bookmark open in the list: its view as saved, and whether this user may overwrite it. */
interface OpenBookmark {
  readonly id: number;
  readonly name: string;
  readonly saved: View;
  readonly canSave: boolean;
}

/** What the list's state outside react-admin's params holds. */
export interface ViewState {
  readonly layout: LayoutName;
  readonly showArchived: boolean;
  /** A datetime-local value; '' for now. */
  readonly asOf: string;
  readonly widths: Readonly<Record<string, number>>;
  readonly bookmark: OpenBookmark | null;
}

export interface ViewProps {
  readonly collection: CollectionInfo;
  readonly catalogue: Catalogue;
  readonly state: ViewState;
  setState(change: (s: ViewState) => ViewState): void;
}

export const jsonFilter = (text: unknown): Filter | null => {
  if (typeof text !== 'string' || text === '') return null;
  try {
    return JSON.parse(text) as Filter;
  } catch {
    return null;
  }
};

/** The column picker's store: the shown columns as indexes into `availableColumns`. */
export function useColumns(collection: CollectionInfo) {
  const key = `preferences.studio.${collection.name}.columns`;
  const [columns, setColumns] = useStore<string[] | undefined>(`${key}.columns`);
  const [available] = useStore<{ index: string; source: string }[]>(`${key}.availableColumns`, []);
  const fields =
    columns === undefined
      ? null
      : columns.map((i) => available.find((a) => a.index === i)?.source ?? '').filter((s) => s !== '');
  /** `null`: the collection's default columns. */
  const setFields = (names: readonly string[] | null) => {
    if (names === null) {
      setColumns(undefined);
      return;
    }
    const indexes = names
      .map((n) => available.find((a) => a.source === n)?.index)
      .filter((i): i is string => i !== undefined);
    if (indexes.length > 0) setColumns(indexes);
  };
  return [fields, setFields] as const;
}

/** Whether the list shows `saved` (an open bookmark's view) as it was saved. */
export const showsView = (view: View, saved: View, collection: CollectionInfo): boolean =>
  sameView(view, saved, { fields: defaultColumns(collection), sort: collection.primaryKey });

/** The view shown now, as a preset holds it, and a way to show another. */
export function useCurrentView(props: ViewProps): [View, (view: View) => void] {
  const { collection, state, setState } = props;
  const list = useListContext();
  const [fields, setFields] = useColumns(collection);
  const search =
    typeof list.filterValues['q'] === 'string' && list.filterValues['q'] !== '' ? list.filterValues['q'] : null;
  const view: View = {
    layout: state.layout,
    fields,
    sort: `${list.sort.order === 'DESC' ? '-' : ''}${list.sort.field}`,
    page: list.page,
    limit: list.perPage,
    widths: state.widths,
    filter: jsonFilter(list.filterValues['json']),
    search,
  };
  const apply = (next: View) => {
    list.setFilters(
      {
        ...(next.search === null ? {} : { q: next.search }),
        ...(next.filter === null ? {} : { json: JSON.stringify(next.filter) }),
      },
      {},
      false,
    );
    const sort = next.sort ?? collection.primaryKey;
    list.setSort({ field: sort.replace(/^-/, ''), order: sort.startsWith('-') ? 'DESC' : 'ASC' });
    list.setPerPage(next.limit);
    list.setPage(next.page);
    setFields(next.fields);
    setState((s) => ({ ...s, layout: next.layout, widths: next.widths }));
  };
  return [view, apply];
}
