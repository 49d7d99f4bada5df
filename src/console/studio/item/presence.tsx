/**
 * Who else has the item open: the WebSocket's `presence` (src/realtime/presence.ts) through
 * `client.realtime().presence()`, the signed-in user left out. Nothing shows when alone, or
 * when the server refuses (WebSockets off).
 */
import { useEffect, useState } from 'react';
import { Avatar, AvatarGroup, Stack, Typography } from '@mui/material';
import { usePermissions, useTranslate } from 'react-admin';
import type { PresenceUser } from '../../../client/index.js';
import type { Catalogue } from '../catalogue.js';
import { sharedRealtime } from './live.js';
import { nameOf } from './shared.js';

export function Presence({ collection, item }: { collection: string; item: string }) {
  const translate = useTranslate();
  const { permissions } = usePermissions<Catalogue | null>();
  const me = permissions?.me?.id;
  const isLive = permissions?.live === true;
  const [users, setUsers] = useState<readonly PresenceUser[]>([]);
  useEffect(() => {
    if (!isLive) return undefined;
    const watch = sharedRealtime(me).presence(collection, item);
    void (async () => {
      try {
        for await (const present of watch) setUsers(present);
      } catch {
        setUsers([]);
      }
    })();
    return () => {
      watch.leave();
      setUsers([]);
    };
  }, [isLive, me, collection, item]);
  const others = users.filter((u) => u.id !== me);
  if (others.length === 0) return null;
  const names = others.map((u) => nameOf(u));
  return (
    <Stack direction="row" spacing={1} sx={{ alignItems: 'center', mb: 1 }} className="presence">
      <AvatarGroup max={4} aria-hidden="true">
        {names.map((name, i) => (
          <Avatar key={others[i]?.id ?? i} sx={{ width: 28, height: 28, fontSize: 14, bgcolor: 'secondary.main' }}>
            {name.slice(0, 1).toUpperCase()}
          </Avatar>
        ))}
      </AvatarGroup>
      <Typography variant="body2" role="status">
        {translate('svc.item.also_here', { names: names.join(', '), smart_count: names.length })}
      </Typography>
    </Stack>
  );
}
