/**
 * A list's view as a preset holds it (presets.ts reads and writes them), when an open bookmark's
 * view counts as changed, and who may save into a bookmark: no browser needed (the unit tests
 * run them), used by the list and its bookmark controls.
 */
import type { Filter } from '../../../client/index.js';

export type LayoutName = 'tabular' | 'cards';

export interface View {
  readonly layout: LayoutName;
  readonly fields: readonly string[] | null;
  /** `-title` for descending, as the API's sort. */
  readonly sort: string | null;
  readonly page: number;
  readonly limit: number;
  readonly widths: Readonly<Record<string, number>>;
  readonly filter: Filter | null;
  readonly search: string | null;
}

/** What a view without columns or sort shows: the collection's default columns, by its key. */
export interface ViewDefaults {
  readonly fields: readonly string[];
  readonly sort: string;
}

/**
 * Whether two views show the same thing: the page left out (moving through pages changes no
 * view), no columns / no sort meaning the defaults, an empty filter or search meaning none.
 */
export function sameView(a: View, b: View, defaults: ViewDefaults): boolean {
  const normal = (v: View) =>
    JSON.stringify([
      v.layout,
      v.fields ?? defaults.fields,
      v.sort ?? defaults.sort,
      v.limit,
      Object.entries(v.widths).sort(([x], [y]) => x.localeCompare(y)),
      v.filter === null || Object.keys(v.filter).length === 0 ? null : v.filter,
      v.search === null || v.search === '' ? null : v.search,
    ]);
  return normal(a) === normal(b);
}

/**
 * Whether `me` may overwrite (save into, rename, delete) a bookmark: their own, or, for an
 * administrator, one of a role or a global one. The API holds app roles to the same (their
 * svc_presets updates are their own only); an administrator opening another user's bookmark
 * saves a new one rather than changing theirs.
 */
export function maySaveBookmark(
  preset: { readonly user?: unknown; readonly role?: unknown },
  me: { readonly id: string; readonly adminAccess: boolean },
): boolean {
  const user = typeof preset.user === 'string' ? preset.user : null;
  return user === me.id || (user === null && me.adminAccess);
}
