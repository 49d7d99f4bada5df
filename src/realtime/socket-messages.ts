import type { WebSocket } from 'ws';
import type { PrimaryKey, Selection } from '../commands/types.js';
import { InvalidPayloadError } from '../errors.js';
import { isPlainObject } from '../is-plain-object.js';
import { parseQuery, type Query } from '../query/index.js';
import type { LiveBatch, LiveEvent } from './live-batch.js';
import { sendBounded } from './socket-send.js';

/** A client's message of the WebSocket protocol (websocket-protocol.ts), its fields read and checked here. */
export type Message = Readonly<Record<string, unknown>>;

/** The start of a delivery's frame per event, up to its `data`. */
const DELIVERY_HEADS: Readonly<Record<LiveEvent, string>> = {
  create: '{"type":"subscription","event":"create","data":',
  update: '{"type":"subscription","event":"update","data":',
  delete: '{"type":"subscription","event":"delete","data":',
};

/**
 * A subscription's `deliver`: every delivery is the batch's JSON (made once for all its
 * subscribers) between two fixed parts, with the change's id in the log when there is one
 * (`after` of a resume) and the subscription's `uid` when it has one. One item's events carry
 * that item (its key when deleted), not a list. Directus 10 sends one `create` per created
 * item (a list of one), and one `update` or `delete` per write.
 */
export function subscriptionFrames(
  ws: WebSocket,
  uid: string | number | undefined,
  item: PrimaryKey | undefined,
  maxBufferedSize: number,
): (batch: LiveBatch) => void {
  const uidPart = uid === undefined ? '}' : `,"uid":${JSON.stringify(uid)}}`;
  const send = (dataJson: string, batch: LiveBatch) =>
    void sendBounded(
      ws,
      DELIVERY_HEADS[batch.event] +
        dataJson +
        (batch.change === undefined ? '' : `,"change":"${batch.change}"`) +
        uidPart,
      maxBufferedSize,
    );
  return item === undefined
    ? (batch) => {
        if (batch.event !== 'create') send(batch.dataJson, batch);
        else for (let i = 0; i < batch.items.length; i++) send(batch.itemJson(i), batch);
      }
    : (batch) => {
        const found = batch.items.find((live) => String(live.key) === String(item));
        if (found !== undefined) send(JSON.stringify(batch.event === 'delete' ? item : found.data), batch);
      };
}

export function readCollection(message: Message): string {
  const collection = message['collection'];
  if (typeof collection !== 'string' || collection === '') throw new InvalidPayloadError('"collection" is required');
  return collection;
}

function readRawQuery(message: Message): Readonly<Record<string, unknown>> {
  const query = message['query'];
  if (query === undefined) return {};
  if (!isPlainObject(query)) throw new InvalidPayloadError('"query" is an object');
  return query;
}

/** What an update or delete applies to: `id`, `ids` or `query`, one of them required. */
export function readSelection(message: Message, keys: readonly PrimaryKey[] | undefined, action: string): Selection {
  if (keys !== undefined) return { keys };
  if (message['query'] !== undefined) return { query: readRawQuery(message) };
  throw new InvalidPayloadError(`${action} needs "id", "ids" or "query"`);
}

export function readQuery(message: Message): Query {
  return parseQuery(readRawQuery(message));
}

/** A subscription's `item`: only that item's changes, as objects. */
export function readItemKey(message: Message): PrimaryKey | undefined {
  const item = message['item'];
  if (item === undefined) return undefined;
  if (typeof item !== 'string' && typeof item !== 'number')
    throw new InvalidPayloadError('"item" is a string or a number');
  return item;
}

export function readKeys(message: Message): PrimaryKey[] | undefined {
  const isKey = (k: unknown): k is PrimaryKey => typeof k === 'string' || typeof k === 'number';
  if ('id' in message) {
    if (!isKey(message['id'])) throw new InvalidPayloadError('"id" is a string or a number');
    return [message['id']];
  }
  if ('ids' in message) {
    const ids = message['ids'];
    if (!Array.isArray(ids) || !ids.every(isKey)) throw new InvalidPayloadError('"ids" is a list of keys');
    return ids;
  }
  return undefined;
}
