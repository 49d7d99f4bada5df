import type { Knex } from 'knex';
import type { WebSocket } from 'ws';
import type { SchemaOverview } from '../../catalog/overview/types.js';
import type { Accountability } from '../access/accountability.js';
import type { PermissionStore } from '../access/permission-store.js';
import type { AuthContext } from '../auth/auth-context.js';
import type { AuthLookups, RequestOrigin } from '../auth/authenticate.js';
import { login } from '../auth/login.js';
import { refresh } from '../auth/refresh.js';
import type { DataInvalidation } from '../cache/data-invalidation.js';
import type { Config } from '../config/index.js';
import { committedReadDatabase } from '../db/replicas.js';
import type { FileLibrary } from '../files/file-library.js';
import { refusalOf, type HookBus } from '../items/hooks.js';
import { isPlainObject } from '../is-plain-object.js';
import { ItemsService } from '../items/items-service.js';
import {
  ForbiddenError,
  InternalServerError,
  InvalidPayloadError,
  LimitExceededError,
  isServiceError,
  ServiceError,
  TokenExpiredError,
} from '../errors.js';
import {
  parseQuery,
  MAX_DOCUMENT_DEPTH,
  nestsDeeperThan,
  queryLimits,
  readerOf,
  readItemByKey,
  tooDeepMessage,
  type Meta,
} from '../query/index.js';
import type { ChangeFeed } from './change-feed.js';
import type { LiveEvent } from './live-batch.js';
import type { LiveReads, LiveSubscription } from './live-reads.js';
import { readAfter, startSubscription } from './live-resume.js';
import type { PresenceRooms, PresenceUser } from './presence.js';
import { SocketCaller } from './socket-caller.js';
import {
  readCollection,
  readItemKey,
  readKeys,
  readQuery,
  readSelection,
  subscriptionFrames,
  type Message,
} from './socket-messages.js';
import { frameText, sendBounded, socketFrames } from './socket-send.js';

export interface WebsocketProtocolDeps {
  readonly config: Config;
  readonly db: Knex;
  readonly schema: { getOverview(): Promise<SchemaOverview>; invalidate(): Promise<void> };
  readonly permissions: PermissionStore;
  readonly invalidation: DataInvalidation;
  readonly auth: AuthContext & { readonly users: AuthLookups };
  readonly live: LiveReads;
  /** Where writes go, and (a resume) the log subscriptions pick up from. */
  readonly changes: Pick<ChangeFeed, 'publish' | 'position' | 'since'>;
  readonly logger: { warn(details: object, message: string): void; debug(details: object, message: string): void };
  /** The items filters and actions (src/items/hooks.ts); none: no hooks. */
  readonly hooks?: HookBus | undefined;
  /** svc_files rows and their contents: a file's delete removes its contents too. */
  readonly files?: FileLibrary;
  /** Who has which item open (`presence` messages, presence.ts); none: the message is refused. */
  readonly presence?: PresenceRooms | undefined;
  /** One point of the general rate limiters (RATE_LIMITER_*) for a message from `ip`; undefined: none. */
  readonly limitMessage?: ((ip: string | null) => Promise<void>) | undefined;
}

type Uid = string | number | undefined;
const EVENTS: readonly LiveEvent[] = ['create', 'update', 'delete'];
/** Directus 10's answer to a failed handshake (a first message that is not a good `auth`, or none in time); then the socket closes. */
const HANDSHAKE_FAILED = { code: 'AUTH_FAILED', message: 'Authentication handshake failed.' } as const;
/** Directus 10's answer to a failed `auth` on an authenticated socket, which stays open as it was. */
const AUTH_FAILED = { code: 'AUTH_FAILED', message: 'Authentication failed.' } as const;
/** Messages of one connection received and not handled yet; more: the connection is cut. */
const MAX_WAITING_MESSAGES = 1000;
/** The longest delay setTimeout keeps (about 24.8 days); a token living longer is checked at each use only. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * One connection of the WebSocket protocol (Directus 10's): `auth` (email/password,
 * access_token, refresh_token), `subscribe` / `unsubscribe`, `ping` / `pong`, `items`
 * (create, read, update, delete through the REST command handlers). A bad message is
 * answered with an error for its `uid` (`{type, status: 'error', error: {code, message}, uid}`)
 * and the connection lives on. A message without `uid` is answered without one, as Directus
 * 10 does (clients match replies by it), its subscription's events too.
 */
export class WebsocketSession {
  readonly #caller: SocketCaller;
  /** By `u:<uid>`, or `a:<n>` for those subscribed without a uid (unsubscribed all at once). */
  readonly #subscriptions = new Map<string, () => void>();
  #isAuthenticated: boolean;
  /** An auth message is being checked (a login takes its time): the auth timeout waits for it. */
  #isAuthenticating = false;
  #authDeadline = 0;
  #isAlive = true;
  #authTimer: NodeJS.Timeout | undefined;
  /** Fires when the token expires. */
  #expiryTimer: NodeJS.Timeout | undefined;
  /** Set while an expired token waits for an `auth` (WEBSOCKETS_REST_AUTH_TIMEOUT). */
  #reauthTimer: NodeJS.Timeout | undefined;
  #heartbeat: NodeJS.Timeout | undefined;
  #anonymousUids = 0;
  #handling: Promise<void> = Promise.resolve();
  #waiting = 0;

  constructor(
    private readonly deps: WebsocketProtocolDeps,
    private readonly ws: WebSocket,
    origin: RequestOrigin,
    token: string | undefined,
  ) {
    const { rest, heartbeatMs } = deps.config.websockets;
    this.#caller = new SocketCaller(
      deps,
      origin,
      token,
      (error) => {
        this.#callerLost(error);
      },
      socketFrames(ws),
    );
    this.#watchExpiry();
    this.#isAuthenticated = token !== undefined || rest.auth === 'public';
    if (!this.#isAuthenticated) {
      this.#authDeadline = Date.now() + rest.authTimeoutMs;
      this.#authTimer = setTimeout(() => {
        if (!this.#isAuthenticating) this.#handshakeFailed();
      }, rest.authTimeoutMs);
    }
    if (heartbeatMs > 0) {
      this.#heartbeat = setInterval(() => {
        if (!this.#isAlive) {
          this.ws.terminate();
          return;
        }
        this.#isAlive = false;
        this.#send({ type: 'ping' });
      }, heartbeatMs);
    }
    // A connection's messages are handled one after the other, in the order sent (subscribe
    // then unsubscribe); a client with too many waiting is cut.
    ws.on('message', (data, isBinary) => {
      this.#isAlive = true;
      if (++this.#waiting > MAX_WAITING_MESSAGES) {
        this.ws.terminate();
        return;
      }
      const text = isBinary ? '' : frameText(data);
      this.#handling = this.#handling.then(() => this.#receive(text)).finally(() => this.#waiting--);
    });
    ws.on('close', () => {
      this.#dispose();
    });
    ws.on('error', () => {
      this.#dispose();
    });
  }

  #dispose(): void {
    clearTimeout(this.#authTimer);
    clearTimeout(this.#expiryTimer);
    clearTimeout(this.#reauthTimer);
    clearInterval(this.#heartbeat);
    for (const stop of this.#subscriptions.values()) stop();
    this.#subscriptions.clear();
    this.deps.presence?.leaveAll(this);
  }

  #send(message: Message): void {
    sendBounded(this.ws, JSON.stringify(message), this.deps.config.websockets.maxBufferedSize);
  }

  #sendError(type: string, uid: Uid, error: ServiceError): void {
    const code = error.code;
    this.#send({
      type,
      status: 'error',
      error: { code, message: error.message },
      ...(uid === undefined ? {} : { uid }),
    });
  }

  /**
   * Directus 10: when the token expires the client is told at once (`auth` error
   * TOKEN_EXPIRED) and may send `auth` within WEBSOCKETS_REST_AUTH_TIMEOUT, keeping the socket
   * and its subscriptions (what changes meanwhile is not sent: the caller is no one); then
   * the socket closes, or in `public` mode goes on as the public role. Any other loss (user
   * suspended or deleted) closes it at once.
   */
  #callerLost(error: ServiceError): void {
    if (error.code !== 'TOKEN_EXPIRED') {
      this.#endWith(error);
      return;
    }
    if (this.#reauthTimer !== undefined) return;
    this.#sendError('auth', undefined, error);
    this.#reauthTimer = setTimeout(() => {
      if (this.deps.config.websockets.rest.auth !== 'public') {
        this.#endWith(error);
        return;
      }
      this.#caller.signOut();
      this.#reauthTimer = undefined;
    }, this.deps.config.websockets.rest.authTimeoutMs);
  }

  /** Starts the timer of the current token's expiry (none for a static token, or beyond a timer's reach). */
  #watchExpiry(): void {
    clearTimeout(this.#expiryTimer);
    const expiresAt = this.#caller.expiresAt;
    if (expiresAt === undefined) return;
    const delay = Math.max(0, expiresAt - Date.now());
    if (delay > MAX_TIMER_MS) return;
    this.#expiryTimer = setTimeout(() => {
      this.#callerLost(new TokenExpiredError());
    }, delay);
  }

  /** The caller can no longer be authenticated (or never was in time): tell it, then close. */
  #endWith(error: ServiceError, reason: string = error.code): void {
    this.#sendError('auth', undefined, error);
    this.ws.close(1008, reason);
    this.#dispose();
  }

  /** Not closed meanwhile (a failed handshake closes it). */
  #isOpen(): boolean {
    return this.ws.readyState === this.ws.OPEN;
  }

  /** Directus 10: the handshake failed (a bad first message, a refused auth, none in time): AUTH_FAILED, closed. */
  #handshakeFailed(): void {
    this.#send({ type: 'auth', status: 'error', error: HANDSHAKE_FAILED });
    this.ws.close(1008, HANDSHAKE_FAILED.code);
    this.#dispose();
  }

  async #receive(text: string): Promise<void> {
    // A connection cut meanwhile (too slow a reader, the heartbeat) has its waiting messages dropped.
    if (this.ws.readyState !== this.ws.OPEN) return;
    let message: Message;
    if (nestsDeeperThan(text, MAX_DOCUMENT_DEPTH, 'json')) {
      this.#sendError('error', undefined, new InvalidPayloadError(tooDeepMessage('A message')));
      return;
    }
    try {
      const parsed: unknown = JSON.parse(text);
      if (
        typeof parsed !== 'object' ||
        parsed === null ||
        Array.isArray(parsed) ||
        typeof (parsed as Message)['type'] !== 'string'
      )
        throw new Error('not a message');
      message = parsed as Message;
    } catch {
      this.#sendError('error', undefined, new InvalidPayloadError('A message is a JSON object with a "type"'));
      return;
    }
    const type = String(message['type']).toLowerCase();
    const rawUid = message['uid'];
    const uid: Uid = typeof rawUid === 'string' || typeof rawUid === 'number' ? rawUid : undefined;
    // Directus 10: a uid is a string or a number; another one would be answered as no uid at all.
    if (rawUid !== undefined && uid === undefined) {
      this.#sendError(type, undefined, new InvalidPayloadError('"uid" is a string or a number'));
      return;
    }
    try {
      // Directus 10: every message counts against RATE_LIMITER_* as a request would (the
      // same counters: a socket is no way around the limit, nor around the login brake), but
      // the pong that answers the server's own ping.
      if (type !== 'pong') await this.deps.limitMessage?.(this.#caller.origin.ip);
      if (type === 'auth') {
        const isHandshake = !this.#isAuthenticated;
        this.#isAuthenticating = true;
        try {
          await this.#auth(message, uid);
        } catch (error) {
          if (isHandshake) this.#handshakeFailed();
          else this.#authFailed(error, uid);
        } finally {
          this.#isAuthenticating = false;
          if (!this.#isAuthenticated && Date.now() >= this.#authDeadline && this.#isOpen()) this.#handshakeFailed();
        }
        return;
      }
      if (type === 'pong') return;
      if (type === 'ping') {
        this.#send({ type: 'pong', ...(uid === undefined ? {} : { uid }) });
        return;
      }
      if (!this.#isAuthenticated) {
        this.#handshakeFailed();
        return;
      }
      if (type === 'subscribe') {
        await this.#subscribe(message, uid);
        return;
      }
      if (type === 'unsubscribe') {
        this.#unsubscribe(uid);
        return;
      }
      if (type === 'items') {
        await this.#items(message, uid);
        return;
      }
      if (type === 'presence') {
        await this.#presence(message, uid);
        return;
      }
      throw new InvalidPayloadError(`Unknown message type "${type}"`);
    } catch (failure) {
      // A hook filter's refusal answers the service error it threw (src/items/hooks.ts).
      const error = refusalOf(failure);
      if (isServiceError(error)) {
        this.#sendError(type, uid, error);
        return;
      }
      this.deps.logger.warn({ err: error }, 'websocket: message failed');
      this.#sendError(type, uid, new InternalServerError());
    }
  }

  /**
   * A refused `auth` on an authenticated socket (Directus 10): AUTH_FAILED for its uid, but an
   * expired token (TOKEN_EXPIRED) and the rate limit (REQUESTS_EXCEEDED) keep their codes; the
   * socket stays open, as the caller it was.
   */
  #authFailed(error: unknown, uid: Uid): void {
    if (isServiceError(error) && (error.code === 'TOKEN_EXPIRED' || error.code === 'REQUESTS_EXCEEDED')) {
      this.#sendError('auth', uid, error);
      return;
    }
    if (!isServiceError(error)) this.deps.logger.warn({ err: error }, 'websocket: auth failed');
    this.#send({ type: 'auth', status: 'error', error: AUTH_FAILED, ...(uid === undefined ? {} : { uid }) });
  }

  async #auth(message: Message, uid: Uid): Promise<void> {
    const origin = this.#caller.origin;
    let accessToken: string;
    let refreshToken: string | undefined;
    if (typeof message['access_token'] === 'string') accessToken = message['access_token'];
    else if (typeof message['refresh_token'] === 'string') {
      const grant = await refresh(this.deps.auth, message['refresh_token'], 'json', origin);
      ({ accessToken, refreshToken } = grant);
    } else if (typeof message['email'] === 'string' && typeof message['password'] === 'string') {
      const otp = typeof message['otp'] === 'string' ? message['otp'] : undefined;
      const grant = await login(
        this.deps.auth,
        { email: message['email'], password: message['password'], otp },
        'json',
        origin,
      );
      ({ accessToken, refreshToken } = grant);
    } else throw new InvalidPayloadError('auth needs "access_token", "refresh_token" or "email" and "password"');
    await this.#caller.authenticateWith(accessToken);
    this.#isAuthenticated = true;
    clearTimeout(this.#authTimer);
    clearTimeout(this.#reauthTimer);
    this.#reauthTimer = undefined;
    this.#watchExpiry();
    this.#send({
      type: 'auth',
      status: 'ok',
      ...(refreshToken === undefined ? {} : { refresh_token: refreshToken, access_token: accessToken }),
      ...(uid === undefined ? {} : { uid }),
    });
  }

  async #reading(): Promise<{ overview: SchemaOverview; accountability: Accountability }> {
    const [overview, accountability] = await Promise.all([this.deps.schema.getOverview(), this.#caller.caller()]);
    return { overview, accountability };
  }

  /**
   * Where this socket's reads go: committed data (SQLite: the read-only connections, which a
   * long write on the one writer does not hold up; elsewhere the primary, as live data reads).
   */
  #readContext(overview: SchemaOverview) {
    return { db: committedReadDatabase(this.deps.db), overview, limits: queryLimits(this.deps.config) };
  }

  /** The caller's items service of `collection`, reading committed data as this socket's other reads. */
  async #itemsService(collection: string): Promise<ItemsService> {
    const { overview, accountability } = await this.#reading();
    const reads = committedReadDatabase(this.deps.db);
    return new ItemsService(collection, this.deps, { accountability, schema: overview, reads });
  }

  async #subscribe(message: Message, given: Uid): Promise<void> {
    const collection = readCollection(message);
    const event = message['event'];
    if (event !== undefined && !EVENTS.includes(event as LiveEvent))
      throw new InvalidPayloadError('"event" is one of create, update, delete');
    // Directus 10: a uid names the subscription (a new one with it replaces it); without one
    // each subscribe adds one, and its replies and events carry no uid.
    const id = given === undefined ? `a:${++this.#anonymousUids}` : `u:${String(given)}`;
    if (!this.#subscriptions.has(id) && this.#subscriptions.size >= this.deps.config.websockets.subscriptionLimit)
      throw new LimitExceededError('subscriptions');
    const query = readQuery(message);
    const item = readItemKey(message);
    const after = readAfter(message);
    // Where the init stands in the feed's log, taken before its read: a resume from there
    // misses nothing (and may repeat a change the init already showed).
    const position = this.deps.changes.position;
    // The first read checks the collection and the query for this caller, and is the `init`
    // data: one item's subscription (Directus 10's `item`) is FORBIDDEN when it is missing.
    const items = await this.#itemsService(collection);
    // Directus 10: the init carries the query's `meta` (total_count, filter_count) too.
    const [data, meta] = await Promise.all([
      item === undefined ? items.readByQuery(query) : items.readOne(item, query),
      items.readMeta(query),
    ]);
    // Cut while its first read ran: the subscription would outlive the connection.
    if (this.ws.readyState !== this.ws.OPEN) return;
    this.#subscriptions.get(id)?.();
    this.#subscriptions.delete(id);
    const subscription: LiveSubscription = {
      connection: this.#caller,
      collection,
      event: event as LiveEvent | undefined,
      item,
      query,
      deliver: subscriptionFrames(this.ws, given, item, this.deps.config.websockets.maxBufferedSize),
    };
    // A resume (`after`: the last change id the client saw) sends the changes it missed, no init.
    const { stop, resumed } = await startSubscription(this.deps.live, this.deps.changes, subscription, after);
    if (resumed) {
      // Cut while it caught up: nothing to keep.
      if (this.ws.readyState !== (this.ws.OPEN as number)) stop();
      else this.#subscriptions.set(id, stop);
      return;
    }
    this.#subscriptions.set(id, stop);
    this.#send({
      type: 'subscription',
      event: 'init',
      data,
      ...withMeta(meta),
      ...(position === undefined ? {} : { change: position }),
      ...(given === undefined ? {} : { uid: given }),
    });
  }

  /**
   * `presence` (presence.ts, not Directus 10's): `join` the room of an item the caller can read
   * (FORBIDDEN as a missing one otherwise; a user's token, not the public role), or `leave` it.
   * A connection is in at most WEBSOCKETS_SUBSCRIPTION_LIMIT rooms.
   */
  async #presence(message: Message, uid: Uid): Promise<void> {
    const rooms = this.deps.presence;
    if (rooms === undefined) throw new InvalidPayloadError('Unknown message type "presence"');
    const collection = readCollection(message);
    const key = readItemKey(message);
    if (key === undefined) throw new InvalidPayloadError('"item" is required');
    const item = String(key);
    const action = message['action'] ?? 'join';
    if (action === 'leave') {
      rooms.leave(this, collection, item);
      return;
    }
    if (action !== 'join') throw new InvalidPayloadError('"action" is join or leave');
    const { overview, accountability } = await this.#reading();
    if (accountability.user === null) throw new ForbiddenError();
    const target = overview.collections[collection];
    if (target === undefined) throw new ForbiddenError();
    const reader = await readerOf(this.deps, overview, accountability);
    const readContext = this.#readContext(overview);
    await readItemByKey(readContext, collection, key, parseQuery({ fields: [target.primary] }), reader);
    if (!rooms.isIn(this, collection, item) && rooms.countOf(this) >= this.deps.config.websockets.subscriptionLimit)
      throw new LimitExceededError('presence');
    const row = await readContext
      .db('svc_users')
      .where({ id: accountability.user })
      .first<{ first_name: string | null; last_name: string | null } | undefined>('first_name', 'last_name');
    if (this.ws.readyState !== this.ws.OPEN) return;
    const user: PresenceUser = {
      id: accountability.user,
      first_name: row?.first_name ?? null,
      last_name: row?.last_name ?? null,
    };
    rooms.join(this, collection, item, {
      user,
      tell: (users) => {
        this.#send({ type: 'presence', collection, item, users, ...(uid === undefined ? {} : { uid }) });
      },
    });
  }

  /** Directus 10: without a uid, every subscription of the socket ends. */
  #unsubscribe(uid: Uid): void {
    if (uid === undefined) {
      for (const stop of this.#subscriptions.values()) stop();
      this.#subscriptions.clear();
      return;
    }
    const id = `u:${String(uid)}`;
    const stop = this.#subscriptions.get(id);
    if (stop === undefined) throw new InvalidPayloadError(`No subscription "${uid}"`);
    stop();
    this.#subscriptions.delete(id);
  }

  /**
   * Directus 10's `items` message: `read` of one item (`id`: the item, FORBIDDEN when missing),
   * of `ids` (a list), of a singleton (its item), else of `query` (a list); `create` of an item
   * or a list; `update` and `delete` of `id`, `ids` or `query` (a singleton's update needs
   * none). A write without a selection is refused, never applied to every item the default
   * limit reaches. Written items are read back with `query` as the caller may see them now.
   */
  async #items(message: Message, uid: Uid): Promise<void> {
    const collection = readCollection(message);
    const action = message['action'];
    if (action !== 'create' && action !== 'read' && action !== 'update' && action !== 'delete')
      throw new InvalidPayloadError('"action" is one of create, read, update, delete');
    const query = readQuery(message);
    const keys = readKeys(message);
    const isOne = 'id' in message;
    const items = await this.#itemsService(collection);
    const overview = await items.schemaOverview();
    const reply = (data: unknown, meta: Meta = {}) => {
      this.#send({ type: 'items', data, ...withMeta(meta), ...(uid === undefined ? {} : { uid }) });
    };
    if (action === 'read') {
      const [key] = keys ?? [];
      if (isOne && key !== undefined) reply(await items.readOne(key, query));
      else if (keys !== undefined) reply(await items.readMany(keys, query));
      else if (overview.collections[collection]?.singleton === true) reply(await items.readSingleton(query));
      else reply(...(await Promise.all([items.readByQuery(query), items.readMeta(query)])));
      return;
    }
    // Permission first (and the writable-collections rule), before the payload is looked at.
    const target = await items.requireAllowed(
      action === 'update' && keys === undefined && isSingleton(overview, collection) ? ['update', 'create'] : [action],
    );
    // Written and committed: the answer is what the caller may read of it now (nothing: null or []).
    const answer = (written: unknown, shape: 'one' | 'many') => {
      reply(written ?? (shape === 'many' ? [] : null));
    };
    const data = message['data'];
    if (action === 'create') {
      if (!isPlainObject(data) && !(Array.isArray(data) && data.every(isPlainObject)))
        throw new InvalidPayloadError('"data" is an item or a list of items');
      const shape = Array.isArray(data) ? 'many' : 'one';
      answer(await items.createAndRead(Array.isArray(data) ? data : [data], query, shape), shape);
      return;
    }
    if (action === 'update') {
      if (!isPlainObject(data)) throw new InvalidPayloadError('"data" is an item');
      if (keys === undefined && target.singleton) {
        answer(await items.updateAndRead({ singleton: data }, query, 'one'), 'one');
        return;
      }
      const shape = isOne ? 'one' : 'many';
      answer(await items.updateAndRead({ ...readSelection(message, keys, 'update'), data }, query, shape), shape);
      return;
    }
    const deleted = await items.delete(readSelection(message, keys, 'delete'));
    reply(isOne ? deleted[0] : deleted);
  }
}

function isSingleton(overview: SchemaOverview, collection: string): boolean {
  return Object.hasOwn(overview.collections, collection) && overview.collections[collection]?.singleton === true;
}

/** A reply's `meta` when the query asked for some. */
function withMeta(meta: Meta): { meta?: Meta } {
  return Object.keys(meta).length > 0 ? { meta } : {};
}
