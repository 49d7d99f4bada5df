/**
 * A list's view as a Directus 10 preset (svc_presets): `layout` (tabular or cards),
 * `layout_query.<layout>` {fields, sort, page, limit}, `layout_options.<layout>` (column widths),
 * `filter`, `search`. A preset with a `bookmark` name is a saved view (for a user or a role);
 * the one without is the user's last view of the collection, kept as they browse.
 */
import type { PresetType } from '../../../client/index.js';
import { client } from '../../session.js';
import type { LayoutName, View } from './view.js';

export interface Bookmark {
  readonly id: number;
  readonly name: string;
  readonly collection: string;
}

const PRESET_FIELDS = [
  'id',
  'bookmark',
  'user',
  'role',
  'collection',
  'layout',
  'layout_query',
  'layout_options',
  'filter',
  'search',
];

const record = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

/** The view a preset holds. */
export function viewOf(preset: Partial<PresetType>): View {
  const layout: LayoutName = preset.layout === 'cards' ? 'cards' : 'tabular';
  const query = record(record(preset.layout_query)[layout]);
  const options = record(record(preset.layout_options)[layout]);
  const sort = Array.isArray(query['sort']) ? query['sort'].map(String).join(',') : query['sort'];
  const widths: Record<string, number> = {};
  for (const [k, v] of Object.entries(record(options['widths']))) if (typeof v === 'number') widths[k] = v;
  return {
    layout,
    fields: Array.isArray(query['fields']) ? query['fields'].map(String) : null,
    sort: typeof sort === 'string' && sort !== '' ? sort : null,
    page: typeof query['page'] === 'number' ? query['page'] : 1,
    limit: typeof query['limit'] === 'number' ? query['limit'] : 25,
    widths,
    filter: preset.filter ?? null,
    search: typeof preset.search === 'string' && preset.search !== '' ? preset.search : null,
  };
}

/** The preset columns of a view (Directus 10 shape). */
function presetOf(view: View): Partial<PresetType> {
  return {
    layout: view.layout,
    layout_query: {
      [view.layout]: {
        ...(view.fields === null ? {} : { fields: view.fields }),
        ...(view.sort === null ? {} : { sort: view.sort.split(',') }),
        page: view.page,
        limit: view.limit,
      },
    },
    layout_options: { [view.layout]: { widths: view.widths } },
    filter: view.filter,
    search: view.search,
  };
}

/** The user's last view of `collection` (the preset without a bookmark), if any. */
export async function readLastView(collection: string, user: string): Promise<PresetType | undefined> {
  const answer = await client.presets.readByQuery({
    filter: { collection: { _eq: collection }, user: { _eq: user }, bookmark: { _null: true } },
    fields: PRESET_FIELDS,
    limit: 1,
  });
  return answer.data?.[0];
}

/** Keeps `view` as the user's last view of `collection`. */
export async function writeLastView(collection: string, user: string, view: View, id?: number): Promise<number> {
  const body = { ...presetOf(view), collection, user, bookmark: null };
  if (id !== undefined) {
    await client.presets.updateOne(id, body);
    return id;
  }
  const created = (await client.presets.createOne(body, { fields: ['id'] })) as { id: number } | null | undefined;
  return created?.id ?? 0;
}

export async function readBookmark(id: number): Promise<PresetType | undefined> {
  return (await client.presets.readOne(id, { fields: PRESET_FIELDS })) ?? undefined;
}

/** Saves `view` as a bookmark named `name`, for the user or for their role. */
/** Whose a bookmark is: a user's, a role's, or everyone's (neither: Directus's global bookmark). */
export type BookmarkOwner = { readonly user: string } | { readonly role: string } | { readonly everyone: true };

export async function saveBookmark(
  collection: string,
  name: string,
  view: View,
  owner: BookmarkOwner,
): Promise<number> {
  const body = {
    ...presetOf(view),
    collection,
    bookmark: name,
    user: 'user' in owner ? owner.user : null,
    role: 'role' in owner ? owner.role : null,
  };
  const created = (await client.presets.createOne(body, { fields: ['id'] })) as { id: number } | null | undefined;
  return created?.id ?? 0;
}

/** Saves `view` into the bookmark `id` (its name and owner stay). */
export async function updateBookmark(id: number, view: View): Promise<void> {
  await client.presets.updateOne(id, presetOf(view));
}

export async function renameBookmark(id: number, name: string): Promise<void> {
  await client.presets.updateOne(id, { bookmark: name });
}

export async function deleteBookmark(id: number): Promise<void> {
  await client.presets.deleteOne(id);
}
