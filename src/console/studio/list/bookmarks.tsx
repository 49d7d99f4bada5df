/**
 * Bookmarks (svc_presets with a `bookmark` name) in the navigation, under their collection;
 * read once and re-read when the list saves, renames or deletes one.
 */
import type { ReactElement } from 'react';
import { List, ListItem, ListItemButton, ListItemIcon, ListItemText } from '@mui/material';
import BookmarkIcon from '@mui/icons-material/BookmarkBorder';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useSidebarState } from 'react-admin';
import { Link, useLocation } from 'react-router-dom';
import { readBookmarks, type Bookmark } from './presets.js';

const BOOKMARKS = ['studio', 'bookmarks'];

export function useBookmarks(): readonly Bookmark[] {
  const { data } = useQuery({ queryKey: BOOKMARKS, queryFn: readBookmarks, staleTime: 60_000 });
  return data ?? [];
}

/** Re-reads the bookmarks (after one is saved, renamed or deleted). */
export function useRefreshBookmarks(): () => void {
  const queryClient = useQueryClient();
  return () => void queryClient.invalidateQueries({ queryKey: BOOKMARKS });
}

export const bookmarkPath = (b: Bookmark): string =>
  `/content/${encodeURIComponent(b.collection)}?bookmark=${String(b.id)}`;

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
