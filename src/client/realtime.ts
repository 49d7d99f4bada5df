import { asError } from './errors.js';

/**
 * Live data over the service's WebSocket protocol (Directus 10's): `subscribe(collection,
 * query)` as an async iterator. One socket per RealtimeClient; it authenticates with the
 * current access token (the `token` option: ContentClient's refreshes first), subscribes
 * again after a reconnect (exponential back-off; a server restarting closes with 1012), and
 * authenticates again when the server says the token expired. A subscription resumes: its
 * messages carry the id of their change in the server's log (with Redis), and it subscribes
 * again `after` the last one seen, so the changes made while it was away come next, none lost
 * nor repeated; a server that cannot tell them (no Redis, too long away) answers an `init`.
 */

/**
 * An event handler property, compared as a method is (its parameter either way): `ws` and the
 * DOM type their handlers' events more precisely than this client needs, and must still fit.
 */
type Handler<E> = { handle(event: E): void }['handle'] | null;

/** The part of the WebSocket API used here: the global one (browsers, Node 22) or `ws`'s class as it is. */
export interface WebSocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: Handler<unknown>;
  onmessage: Handler<{ data: unknown }>;
  onclose: Handler<{ code: number; reason: string }>;
  onerror: Handler<unknown>;
}

export type WebSocketConstructor = new (url: string) => WebSocketLike;

export interface RealtimeOptions {
  /** The access token to authenticate with (null: none, the public role). Asked at every (re)connect and re-auth. */
  readonly token?: () => Promise<string | null>;
  /** The WebSocket class; default: the global `WebSocket`. */
  readonly WebSocket?: WebSocketConstructor;
  /** WEBSOCKETS_REST_PATH of the server; default `/websocket`. */
  readonly path?: string;
  /** First reconnect delay (doubled per failed attempt, with jitter, up to `maxDelayMs`). Default 250. */
  readonly initialDelayMs?: number;
  readonly maxDelayMs?: number;
  /** Messages a subscription keeps for a consumer that does not read; more: the oldest are dropped. Default 1000. */
  readonly maxQueued?: number;
}

export type LiveEventName = 'init' | 'create' | 'update' | 'delete';

/** One subscription message: `init` (the current items), then one per change (a create: one per item, as Directus 10 sends them; an update or delete: one per write); `delete` data are keys. */
export interface LiveMessage<T = Record<string, unknown>> {
  readonly event: LiveEventName;
  readonly data: readonly (T | string | number)[];
}

export interface SubscribeOptions {
  /** Only this kind of change. */
  readonly event?: 'create' | 'update' | 'delete';
}

/** A user who has an item open (presence), as the server shows them to the others. */
export interface PresenceUser {
  readonly id: string;
  readonly first_name: string | null;
  readonly last_name: string | null;
}

/** Being present on an item: iterate it for who is there (you included) at each change; `leave()` (or `return()`) ends it. */
export interface PresenceWatch extends AsyncIterableIterator<readonly PresenceUser[]> {
  leave(): void;
}

/** A subscription: iterate it for its messages; `unsubscribe()` (or `return()`) ends it. */
export interface LiveSubscription<T> extends AsyncIterableIterator<LiveMessage<T>> {
  unsubscribe(): void;
}

interface Entry {
  readonly message: Record<string, unknown>;
  /** The id of the last change seen (a subscription's): subscribed again after it. */
  after: string | undefined;
  /** What ends it on the server: `unsubscribe`, or presence's `leave`. */
  readonly end: Record<string, unknown>;
  readonly queue: unknown[];
  wake: ((result: IteratorResult<unknown>) => void) | undefined;
  fail: ((error: Error) => void) | undefined;
  error: Error | undefined;
}

const OPEN = 1;

interface ServerMessage {
  readonly type?: string;
  readonly status?: string;
  readonly uid?: string;
  readonly event?: LiveEventName;
  readonly data?: LiveMessage<never>['data'];
  readonly users?: readonly PresenceUser[];
  readonly change?: string;
  readonly error?: { readonly code?: string; readonly message?: string };
}

export class RealtimeClient {
  readonly #url: string;
  readonly #options: RealtimeOptions;
  readonly #subscriptions = new Map<string, Entry>();
  #socket: WebSocketLike | undefined;
  #attempt = 0;
  #isClosed = false;
  #next = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** The socket whose first `auth` (uid `#auth`) is unanswered: a refusal of it comes without uid. */
  #handshaking: WebSocketLike | undefined;

  constructor(url: string, options: RealtimeOptions = {}) {
    const base = new URL(options.path ?? '/websocket', url.endsWith('/') ? url : `${url}/`);
    base.protocol = base.protocol === 'https:' ? 'wss:' : 'ws:';
    this.#url = base.toString();
    this.#options = options;
  }

  subscribe<T = Record<string, unknown>>(
    collection: string,
    query: Record<string, unknown> = {},
    options: SubscribeOptions = {},
  ): LiveSubscription<T> {
    const uid = `s${++this.#next}`;
    const message = {
      type: 'subscribe',
      collection,
      query,
      uid,
      ...(options.event === undefined ? {} : { event: options.event }),
    };
    const iterator = this.#open<LiveMessage<T>>(uid, message, { type: 'unsubscribe', uid });
    return Object.assign(iterator, { unsubscribe: () => void iterator.return() });
  }

  /**
   * Tells the server this client has `item` of `collection` open (the service's `presence`
   * message, not Directus 10's), and iterates who has it open, this user included, at each
   * change. Joined again after a reconnect.
   */
  presence(collection: string, item: string | number): PresenceWatch {
    const uid = `p${++this.#next}`;
    const message = { type: 'presence', action: 'join', collection, item, uid };
    const iterator = this.#open<readonly PresenceUser[]>(uid, message, { ...message, action: 'leave' });
    return Object.assign(iterator, { leave: () => void iterator.return() });
  }

  #open<V>(
    uid: string,
    message: Record<string, unknown>,
    endMessage: Record<string, unknown>,
  ): AsyncIterableIterator<V> & { return(): Promise<IteratorResult<V>> } {
    const entry: Entry = {
      message,
      after: undefined,
      end: endMessage,
      queue: [],
      wake: undefined,
      fail: undefined,
      error: undefined,
    };
    this.#subscriptions.set(uid, entry);
    if (this.#socket?.readyState === OPEN) this.#socket.send(JSON.stringify(message));
    else this.#connect();
    const end = (): IteratorResult<V> => {
      if (this.#subscriptions.delete(uid) && this.#socket?.readyState === OPEN)
        this.#socket.send(JSON.stringify(entry.end));
      entry.wake?.({ value: undefined, done: true });
      entry.wake = undefined;
      return { value: undefined, done: true };
    };
    const iterator = {
      next: (): Promise<IteratorResult<V>> => {
        if (entry.queue.length > 0) return Promise.resolve({ value: entry.queue.shift() as V, done: false });
        if (entry.error !== undefined) return Promise.reject(entry.error);
        if (!this.#subscriptions.has(uid)) return Promise.resolve({ value: undefined, done: true });
        return new Promise<IteratorResult<V>>((resolve, reject) => {
          entry.wake = resolve as Entry['wake'];
          entry.fail = reject;
        });
      },
      return: () => Promise.resolve(end()),
      [Symbol.asyncIterator]() {
        return iterator;
      },
    };
    return iterator;
  }

  /** Sends the current token again (after a login or refresh elsewhere). */
  async reauthenticate(): Promise<void> {
    const token = (await this.#options.token?.()) ?? null;
    if (token !== null && this.#socket?.readyState === OPEN)
      this.#socket.send(JSON.stringify({ type: 'auth', access_token: token }));
  }

  /** Ends every subscription and the socket; no reconnect. */
  close(): void {
    this.#isClosed = true;
    clearTimeout(this.#timer);
    for (const entry of this.#subscriptions.values()) entry.wake?.({ value: undefined, done: true });
    this.#subscriptions.clear();
    this.#socket?.close(1000, 'closed by the client');
  }

  #connect(): void {
    if (this.#socket !== undefined || this.#isClosed) return;
    const Socket = this.#options.WebSocket ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
    if (Socket === undefined)
      throw new Error('No WebSocket: pass the `WebSocket` option (the `ws` package in Node 20)');
    const socket = new Socket(this.#url);
    this.#socket = socket;
    socket.onopen = () => void this.#start(socket);
    socket.onmessage = (event) => {
      this.#receive(socket, String(event.data));
    };
    socket.onerror = () => undefined;
    socket.onclose = () => {
      if (this.#socket === socket) this.#socket = undefined;
      this.#scheduleReconnect();
    };
  }

  async #start(socket: WebSocketLike): Promise<void> {
    let token: string | null;
    try {
      token = (await this.#options.token?.()) ?? null;
    } catch (error) {
      // No token to be had (a refused refresh): the subscriptions fail with its error.
      this.#failAll(socket, asError(error));
      return;
    }
    if (token !== null) {
      this.#handshaking = socket;
      socket.send(JSON.stringify({ type: 'auth', access_token: token, uid: '#auth' }));
    } else this.#resubscribe(socket);
  }

  /** Sends a fresh token on `socket`; when none can be had (a refused refresh), fails the subscriptions. */
  async #renew(socket: WebSocketLike): Promise<void> {
    try {
      await this.reauthenticate();
    } catch (error) {
      this.#failAll(socket, asError(error));
    }
  }

  /** Ends every subscription with `error` (their iterators reject) and the socket, which stays closed. */
  #failAll(socket: WebSocketLike, error: Error): void {
    const entries = [...this.#subscriptions.values()];
    this.#subscriptions.clear();
    for (const entry of entries) {
      entry.error = error;
      entry.fail?.(error);
      entry.wake = undefined;
    }
    socket.close(1000, 'authentication refused');
  }

  #resubscribe(socket: WebSocketLike): void {
    this.#attempt = 0;
    for (const entry of this.#subscriptions.values())
      socket.send(JSON.stringify(entry.after === undefined ? entry.message : { ...entry.message, after: entry.after }));
  }

  #scheduleReconnect(): void {
    if (this.#isClosed || this.#subscriptions.size === 0) return;
    const initial = this.#options.initialDelayMs ?? 250;
    const delay = Math.min(this.#options.maxDelayMs ?? 10_000, initial * 2 ** this.#attempt++);
    this.#timer = setTimeout(
      () => {
        this.#connect();
      },
      delay / 2 + Math.random() * (delay / 2),
    );
  }

  #receive(socket: WebSocketLike, text: string): void {
    let message: ServerMessage;
    try {
      message = JSON.parse(text) as ServerMessage;
    } catch {
      return;
    }
    const type = message.type;
    if (type === 'ping') {
      socket.send(JSON.stringify({ type: 'pong' }));
      return;
    }
    if (type === 'auth') {
      // The server answers a refused handshake without uid (Directus 10's AUTH_FAILED), then closes.
      const isHandshake = message.uid === '#auth' || (message.uid === undefined && this.#handshaking === socket);
      if (isHandshake) {
        this.#handshaking = undefined;
        // The token this connection started with is refused: asking again would get the same answer.
        if (message.status === 'ok') this.#resubscribe(socket);
        else this.#failAll(socket, errorOf(message));
      } else if (message.status === 'error' && message.error?.code === 'TOKEN_EXPIRED') {
        // The token expired on the open socket: the server keeps it and the subscriptions for
        // WEBSOCKETS_REST_AUTH_TIMEOUT, waiting for a new one (else it closes and we reconnect).
        void this.#renew(socket);
      }
      return;
    }
    const entry = this.#subscriptions.get(String(message.uid));
    if (entry === undefined) return;
    if (message.status === 'error') {
      entry.error = errorOf(message);
      this.#subscriptions.delete(String(message.uid));
      entry.fail?.(entry.error);
      entry.wake = undefined;
      return;
    }
    let value: unknown;
    if (type === 'subscription') {
      value = { event: message.event ?? 'init', data: message.data ?? [] };
      if (typeof message.change === 'string') entry.after = message.change;
    } else if (type === 'presence') value = message.users ?? [];
    else return;
    if (entry.wake !== undefined) {
      const wake = entry.wake;
      entry.wake = undefined;
      wake({ value, done: false });
      return;
    }
    entry.queue.push(value);
    if (entry.queue.length > (this.#options.maxQueued ?? 1000)) entry.queue.shift();
  }
}

/** A refusal as the iterators reject with it: `<code>: <message>`. */
function errorOf(message: ServerMessage): Error {
  return new Error(`${message.error?.code ?? 'ERROR'}: ${message.error?.message ?? ''}`);
}
