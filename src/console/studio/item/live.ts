/**
 * Live changes over the service's WebSocket (`client.realtime()`, WEBSOCKETS_ENABLED): one
 * socket per session, one subscription per collection being watched, shared by the list and
 * the open item. Without WebSockets (the catalogue's `live`) no socket opens; when the server
 * refuses a subscription (no permission), the pages simply stay as they are.
 */
import { useEffect, useRef } from 'react';
import { usePermissions } from 'react-admin';
import type { LiveMessage, RealtimeClient } from '../../../client/index.js';
import { client } from '../../session.js';
import type { Catalogue } from '../catalogue.js';

export type LiveListener = (message: LiveMessage) => void;

let realtime: RealtimeClient | undefined;
let realtimeUser: string | undefined;
const watchers = new Map<string, { listeners: Set<LiveListener>; stop: () => void }>();

/**
 * The session's one socket, for `user` (the signed-in user's id): another user signed in on
 * this page gets a socket of their own (a socket authenticates once, when it opens).
 */
export function sharedRealtime(user: string | undefined): RealtimeClient {
  if (realtime !== undefined && user !== realtimeUser) {
    realtime.close();
    realtime = undefined;
    watchers.clear();
  }
  realtimeUser = user;
  realtime ??= client.realtime();
  return realtime;
}

function watch(user: string | undefined, collection: string, pk: string, listener: LiveListener): () => void {
  const socket = sharedRealtime(user);
  let entry = watchers.get(collection);
  if (entry === undefined) {
    const subscription = socket.subscribe(collection, { fields: [pk] });
    const listeners = new Set<LiveListener>();
    entry = { listeners, stop: () => subscription.unsubscribe() };
    watchers.set(collection, entry);
    void (async () => {
      try {
        for await (const message of subscription) {
          if (message.event === 'init') continue;
          for (const each of listeners) each(message);
        }
      } catch {
        // Refused (no WebSockets, no permission): no live updates, the page works as before.
      }
    })();
  }
  entry.listeners.add(listener);
  const watched = entry;
  return () => {
    watched.listeners.delete(listener);
    if (watched.listeners.size > 0) return;
    watched.stop();
    watchers.delete(collection);
  };
}

/** Calls `onChange` for each create, update or delete in `collection` while mounted. */
export function useLiveChanges(collection: string, pk: string, onChange: LiveListener): void {
  const { permissions } = usePermissions<Catalogue | null>();
  const user = permissions?.me?.id;
  const isLive = permissions?.live === true;
  const latest = useRef(onChange);
  latest.current = onChange;
  useEffect(
    () => (isLive ? watch(user, collection, pk, (message) => latest.current(message)) : undefined),
    [isLive, user, collection, pk],
  );
}

/** Whether `message` concerns the item with key `id`. */
export function touches(message: LiveMessage, pk: string, id: unknown): boolean {
  return message.data.some((entry) =>
    typeof entry === 'object'
      ? String((entry as Record<string, unknown>)[pk]) === String(id)
      : String(entry) === String(id),
  );
}
