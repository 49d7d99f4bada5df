/**
 * Bookmarks (svc_presets with a `bookmark` name) in the navigation, under their collection;
 * read through the dataProvider and re-read when the list saves, renames or deletes one.
 */
import type { ReactElement } from 'react';
import { List, ListItem, ListItemButton, ListItemIcon, ListItemText } from '@mui/material';
import BookmarkIcon from '@mui/icons-material/BookmarkBorder';
import { useGetList, usePermissions, useRefresh, useSidebarState } from 'react-admin';
import type { Catalogue } from '../catalogue.js';
import { Link, useLocation } from 'react-router-dom';
import type { Bookmark } from './presets.js';

/** svc_presets through the dataProvider (react-admin's query cache, re-read on refresh). */
const PRESETS = 'svc_presets';
/**
 * The bookmarks the user has: their own, their role's and everyone's, as Directus lists them (an
 * administrator reads every preset, other users' included, which are not theirs to list).
 */
const BOOKMARKED = {
  json: JSON.stringify({
    _and: [
      { bookmark: { _nnull: true } },
      {
        _or: [
          { user: { _eq: '$CURRENT_USER' } },
          { _and: [{ user: { _null: true } }, { role: { _eq: '$CURRENT_ROLE' } }] },
          { _and: [{ user: { _null: true } }, { role: { _null: true } }] },
        ],
      },
    ],
  }),
};

function useBookmarks(): readonly Bookmark[] {
  // A role without app access reads no presets (the API refuses them).
  const { permissions } = usePermissions<Catalogue | null>();
  const { data } = useGetList(
    PRESETS,
    {
      pagination: { page: 1, perPage: 500 },
      sort: { field: 'bookmark', order: 'ASC' },
      filter: BOOKMARKED,
      meta: { fields: ['id', 'bookmark', 'collection'] },
    },
    { staleTime: 60_000, enabled: permissions?.me?.appAccess === true },
  );
  return (data ?? []).map((p) => ({
    id: Number(p.id),
    name: String(p['bookmark']),
    collection: String(p['collection']),
  }));
}

/** Re-reads the bookmarks (after one is saved, renamed or deleted). */
export function useRefreshBookmarks(): () => void {
  const refresh = useRefresh();
  return refresh;
}

const bookmarkPath = (b: Bookmark): string => `/content/${encodeURIComponent(b.collection)}?bookmark=${String(b.id)}`;

/** The bookmarks of `collection`, as navigation links under it. */
export function BookmarkLinks({ collection }: { collection: string }): ReactElement | null {
  const bookmarks = useBookmarks().filter((b) => b.collection === collection);
  const [open] = useSidebarState();
  const location = useLocation();
  if (bookmarks.length === 0) return null;
  return (
    <ListItem disablePadding>
      <List dense disablePadding sx={{ width: '100%' }}>
        {bookmarks.map((b) => {
          const isCurrent = `${location.pathname}${location.search}` === bookmarkPath(b);
          return (
            <ListItem key={b.id} disablePadding>
              <ListItemButton
                component={Link}
                to={bookmarkPath(b)}
                dense
                sx={{ pl: open ? 4 : 2 }}
                selected={isCurrent}
                aria-current={isCurrent ? 'page' : undefined}
                aria-label={open ? undefined : b.name}
              >
                <ListItemIcon sx={{ minWidth: 30 }}>
                  <BookmarkIcon fontSize="small" />
                </ListItemIcon>
                {open && <ListItemText primary={b.name} />}
              </ListItemButton>
            </ListItem>
          );
        })}
      </List>
    </ListItem>
  );
}
