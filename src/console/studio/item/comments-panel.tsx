/**
 * Comments on the item (svc_comments through /comments), oldest first, and a box to add one.
 * Typing `@` and a few letters offers the users the caller may read; a picked user shows as
 * `@Name` in the box and is stored as Directus stores a mention, `@<user id>`; shown by name.
 */
import { useRef, useState, type KeyboardEvent } from 'react';
import { Box, Button, List, ListItem, MenuItem, MenuList, Paper, Popper, TextField, Typography } from '@mui/material';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useNotify, useTranslate } from 'react-admin';
import { errorText } from '../../dom.js';
import { client } from '../../session.js';
import { useSystemAccess } from './access.js';
import type { PanelProps } from './history-panel.js';
import { nameOf, useUserNames, whenOf, type UserName } from './shared.js';

const MENTION = /@([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})/gi;

interface CommentRow {
  readonly id: string;
  readonly comment: string;
  readonly date_created: string | null;
  readonly user_created: string | null;
}

/** A stored comment with each `@<user id>` shown as `@Name`. */
function CommentText({ text, names }: { text: string; names: ReadonlyMap<string, string> }) {
  const parts = text.split(MENTION);
  return (
    <Typography variant="body2" sx={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>
      {parts.map((part, i) =>
        i % 2 === 1 ? (
          <Box component="strong" key={i} className="mention" data-user={part} sx={{ color: 'primary.dark' }}>
            @{names.get(part) ?? part}
          </Box>
        ) : (
          part
        ),
      )}
    </Typography>
  );
}

/** The `@word` being typed just before the caret, if any. */
function mentionAt(text: string, caret: number): { start: number; term: string } | null {
  const match = /(^|\s)@([\p{L}\p{N}._-]*)$/u.exec(text.slice(0, caret));
  if (match === null) return null;
  return { start: caret - (match[2] ?? '').length - 1, term: match[2] ?? '' };
}

export function CommentsPanel({ collection, id }: PanelProps) {
  const translate = useTranslate();
  const notify = useNotify();
  const queryClient = useQueryClient();
  const key = ['studio.item.comments', collection.name, String(id)];
  const { data, error } = useQuery({
    queryKey: key,
    queryFn: async () =>
      ((
        await client.comments.readByQuery({
          filter: { collection: { _eq: collection.name }, item: { _eq: String(id) } },
          fields: ['id', 'comment', 'date_created', 'user_created'],
          sort: 'date_created',
          limit: -1,
        })
      ).data ?? []) as unknown as CommentRow[],
  });
  const comments = data ?? [];
  const mentioned = comments.flatMap((c) => [...c.comment.matchAll(MENTION)].map((m) => m[1] ?? ''));
  const names = useUserNames([
    ...comments.map((c) => c.user_created).filter((u): u is string => typeof u === 'string'),
    ...mentioned,
  ]);

  const [text, setText] = useState('');
  const [picked, setPicked] = useState<UserName[]>([]);
  const [mention, setMention] = useState<{ start: number; term: string } | null>(null);
  const [active, setActive] = useState(0);
  const [isSending, setSending] = useState(false);
  const box = useRef<HTMLTextAreaElement | null>(null);
  const anchor = useRef<HTMLDivElement | null>(null);

  const may = useSystemAccess();
  const { data: suggestions = [] } = useQuery({
    queryKey: ['studio.item.mention', mention?.term ?? null],
    enabled: mention !== null && may('svc_users', 'read'),
    queryFn: async () => {
      const term = mention?.term ?? '';
      const rows = await client.users
        .readByQuery({
          fields: ['id', 'email', 'first_name', 'last_name'],
          limit: 8,
          ...(term === '' ? {} : { search: term }),
        })
        .catch(() => ({ data: [] }));
      return (rows.data ?? []).map((row) => ({ id: String(row.id), name: nameOf(row) }));
    },
  });
  const isOpen = mention !== null && suggestions.length > 0;

  const onText = (value: string, caret: number) => {
    setText(value);
    setMention(mentionAt(value, caret));
    setActive(0);
  };
  const pick = (user: UserName) => {
    if (mention === null) return;
    const caret = mention.start + 1 + mention.term.length;
    const next = `${text.slice(0, mention.start)}@${user.name} ${text.slice(caret)}`;
    setText(next);
    setPicked((list) => [...list.filter((u) => u.id !== user.id), user]);
    setMention(null);
    requestAnimationFrame(() => box.current?.focus());
  };
  const onKey = (event: KeyboardEvent) => {
    if (!isOpen) return;
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      const step = event.key === 'ArrowDown' ? 1 : -1;
      setActive((active + step + suggestions.length) % suggestions.length);
    } else if (event.key === 'Enter' || event.key === 'Tab') {
      const user = suggestions[active];
      if (user === undefined) return;
      event.preventDefault();
      pick(user);
    } else if (event.key === 'Escape') {
      event.preventDefault();
      setMention(null);
    }
  };
  /** `@Name` of each picked user back to `@<id>`, longest names first. */
  const stored = () =>
    [...picked]
      .sort((a, b) => b.name.length - a.name.length)
      .reduce((out, user) => out.split(`@${user.name}`).join(`@${user.id}`), text);
  const send = async () => {
    if (text.trim() === '') return;
    setSending(true);
    try {
      await client.comments.createOne({ collection: collection.name, item: String(id), comment: stored() });
      setText('');
      setPicked([]);
      notify('svc.item.commented', { type: 'success' });
      await queryClient.invalidateQueries({ queryKey: key });
    } catch (failure) {
      notify(errorText(failure), { type: 'error' });
    } finally {
      setSending(false);
    }
  };

  return (
    <Box>
      {error !== null && <Typography role="alert">{errorText(error)}</Typography>}
      {data !== undefined && comments.length === 0 && (
        <Typography variant="body2">{translate('svc.item.no_comments')}</Typography>
      )}
      <List dense aria-label={translate('svc.item.comments')}>
        {comments.map((comment) => (
          <ListItem key={comment.id} className="comment" divider sx={{ display: 'block', px: 0 }}>
            <Typography variant="caption" color="text.secondary" component="p">
              {translate('svc.item.by_on', {
                who:
                  comment.user_created === null
                    ? translate('svc.item.system')
                    : (names.get(comment.user_created) ?? comment.user_created),
                when: whenOf(comment.date_created),
              })}
            </Typography>
            <CommentText text={comment.comment} names={names} />
          </ListItem>
        ))}
      </List>
      {may('svc_comments', 'create') && (
        <>
          <div ref={anchor}>
            <TextField
              inputRef={box}
              label={translate('svc.item.comment')}
              helperText={translate('svc.item.comment_help')}
              multiline
              minRows={2}
              fullWidth
              value={text}
              onChange={(event) => onText(event.target.value, event.target.selectionStart ?? event.target.value.length)}
              onKeyDown={onKey}
              onBlur={() => setTimeout(() => setMention(null), 200)}
              slotProps={{
                htmlInput: {
                  role: 'combobox',
                  'aria-expanded': isOpen,
                  'aria-controls': 'studio-mentions',
                  'aria-autocomplete': 'list',
                  ...(isOpen ? { 'aria-activedescendant': `studio-mention-${active}` } : {}),
                },
              }}
            />
          </div>
          <Popper open={isOpen} anchorEl={anchor.current} placement="bottom-start" sx={{ zIndex: 1500 }}>
            <Paper elevation={4}>
              <MenuList id="studio-mentions" role="listbox" aria-label={translate('svc.item.mention_users')} dense>
                {suggestions.map((user, i) => (
                  <MenuItem
                    key={user.id}
                    id={`studio-mention-${i}`}
                    role="option"
                    aria-selected={i === active}
                    selected={i === active}
                    onMouseDown={(event) => {
                      event.preventDefault();
                      pick(user);
                    }}
                  >
                    {user.name}
                  </MenuItem>
                ))}
              </MenuList>
            </Paper>
          </Popper>
          <Button
            variant="contained"
            size="small"
            sx={{ mt: 1 }}
            disabled={isSending || text.trim() === ''}
            onClick={() => void send()}
          >
            {translate('svc.item.add_comment')}
          </Button>
        </>
      )}
    </Box>
  );
}
