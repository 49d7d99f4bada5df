/**
 * Live changes over the service's WebSocket (`client.realtime()`, WEBSOCKETS_ENABLED): one
 * socket per session, one subscription per collection being watched, shared by the list and
 * the open item. When the server refuses (WebSockets off, no permission), the pages simply stay
 * as they are.
 */
import { useEffect, useRef } from 'react';
import type { LiveMessage, RealtimeClient } from '../../../client/index.js';
import { client } from '../../session.js';

export type LiveListener = (message: LiveMessage) => void;

let realtime: RealtimeClient | undefined;

/** The session's one socket. */
export function sharedRealtime(): RealtimeClient {
  realtime ??= client.realtime();
  return realtime;
}

const watchers = new Map<string, { listeners: Set<LiveListener>; stop: () => void }>();

function watch(collection: string, pk: string, listener: LiveListener): () => void {
  let entry = watchers.get(collection);
  if (entry === undefined) {
    const subscription = sharedRealtime().subscribe(collection, { fields: [pk] });
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
  const latest = useRef(onChange);
  latest.current = onChange;
  useEffect(() => watch(collection, pk, (message) => latest.current(message)), [collection, pk]);
}

/** Whether `message` concerns the item with key `id`. */
export function touches(message: LiveMessage, pk: string, id: unknown): boolean {
  return message.data.some((entry) =>
    typeof entry === 'object'
      ? String((entry as Record<string, unknown>)[pk]) === String(id)
      : String(entry) === String(id),
  );
}
