import { asError, TransportError } from './errors.js';
import { encodeQuery } from './query-string.js';
import type { ErrorEntry, ItemMetadata, TransportResponse, UploadProgressHandler } from './transport-types.js';
import { browserXhr, sendWithXhr } from './xhr.js';

export type { ItemMetadata, TransportResponse, UploadProgress, UploadProgressHandler } from './transport-types.js';

export type HttpMethod = 'get' | 'head' | 'options' | 'delete' | 'post' | 'put' | 'patch';
export type ResponseType = 'json' | 'text' | 'arraybuffer' | 'stream';

/** Per-request options; a `null` header removes that header (login sends no Authorization). */
export interface RequestOptions {
  readonly params?: Readonly<Record<string, unknown>>;
  readonly headers?: Readonly<Record<string, string | null>>;
  readonly responseType?: ResponseType;
  readonly onUploadProgress?: UploadProgressHandler;
  readonly signal?: AbortSignal;
}

/** A request after defaults were merged, as `beforeRequest` sees and may change it. */
export interface RequestConfig {
  readonly method: HttpMethod;
  readonly path: string;
  readonly data?: unknown;
  readonly params: Readonly<Record<string, unknown>>;
  readonly headers: Readonly<Record<string, string | null>>;
  readonly responseType: ResponseType;
  readonly onUploadProgress?: UploadProgressHandler;
  readonly signal?: AbortSignal;
}

/** What the handlers need from a transport; replace it with your own implementation. */
export abstract class ITransport {
  abstract get<T = unknown, R = unknown>(path: string, options?: RequestOptions): Promise<TransportResponse<T, R>>;
  abstract head<T = unknown, R = unknown>(path: string, options?: RequestOptions): Promise<TransportResponse<T, R>>;
  abstract options<T = unknown, R = unknown>(path: string, options?: RequestOptions): Promise<TransportResponse<T, R>>;
  abstract delete<T = unknown, R = unknown>(
    path: string,
    data?: unknown,
    options?: RequestOptions,
  ): Promise<TransportResponse<T, R>>;
  abstract post<T = unknown, R = unknown>(
    path: string,
    data?: unknown,
    options?: RequestOptions,
  ): Promise<TransportResponse<T, R>>;
  abstract put<T = unknown, R = unknown>(
    path: string,
    data?: unknown,
    options?: RequestOptions,
  ): Promise<TransportResponse<T, R>>;
  abstract patch<T = unknown, R = unknown>(
    path: string,
    data?: unknown,
    options?: RequestOptions,
  ): Promise<TransportResponse<T, R>>;
}

export interface TransportOptions {
  /** Extra query string entries on every request. */
  readonly params?: Readonly<Record<string, unknown>>;
  /** Extra headers on every request. */
  readonly headers?: Readonly<Record<string, string | null>>;
  readonly onUploadProgress?: UploadProgressHandler;
  /** Called with each request before it is sent (the client adds Authorization here). */
  readonly beforeRequest?: (config: RequestConfig) => RequestConfig | Promise<RequestConfig>;
}

type RequestBody = NonNullable<RequestInit['body']>;

const UPLOAD_CHUNK_BYTES = 64 * 1024;

/**
 * ITransport over the platform `fetch`. Bodies that are FormData, Blob, strings, buffers or
 * streams go as they are, anything else as JSON. Cookies go along (`credentials: 'include'`,
 * the `withCredentials` of the convention). Non-2xx answers, and 2xx answers with `errors`,
 * throw TransportError.
 */
export class Transport extends ITransport {
  readonly url: string;
  readonly #options: TransportOptions;

  constructor(url: string, options: TransportOptions = {}) {
    super();
    this.url = url.replace(/\/+$/, '');
    this.#options = options;
  }

  get<T = unknown, R = unknown>(path: string, options?: RequestOptions): Promise<TransportResponse<T, R>> {
    return this.request('get', path, undefined, options);
  }
  head<T = unknown, R = unknown>(path: string, options?: RequestOptions): Promise<TransportResponse<T, R>> {
    return this.request('head', path, undefined, options);
  }
  options<T = unknown, R = unknown>(path: string, options?: RequestOptions): Promise<TransportResponse<T, R>> {
    return this.request('options', path, undefined, options);
  }
  delete<T = unknown, R = unknown>(
    path: string,
    data?: unknown,
    options?: RequestOptions,
  ): Promise<TransportResponse<T, R>> {
    return this.request('delete', path, data, options);
  }
  post<T = unknown, R = unknown>(
    path: string,
    data?: unknown,
    options?: RequestOptions,
  ): Promise<TransportResponse<T, R>> {
    return this.request('post', path, data, options);
  }
  put<T = unknown, R = unknown>(
    path: string,
    data?: unknown,
    options?: RequestOptions,
  ): Promise<TransportResponse<T, R>> {
    return this.request('put', path, data, options);
  }
  patch<T = unknown, R = unknown>(
    path: string,
    data?: unknown,
    options?: RequestOptions,
  ): Promise<TransportResponse<T, R>> {
    return this.request('patch', path, data, options);
  }

  protected async request<T, R>(
    method: HttpMethod,
    path: string,
    data: unknown,
    options: RequestOptions = {},
  ): Promise<TransportResponse<T, R>> {
    const defaults = this.#options;
    let config: RequestConfig = {
      method,
      path,
      data,
      params: { ...defaults.params, ...options.params },
      headers: { ...defaults.headers, ...options.headers },
      responseType: options.responseType ?? 'json',
      ...withDefined('onUploadProgress', options.onUploadProgress ?? defaults.onUploadProgress),
      ...withDefined('signal', options.signal),
    };
    if (defaults.beforeRequest !== undefined) config = await defaults.beforeRequest(config);

    let res: Response;
    try {
      const xhr = config.onUploadProgress === undefined || config.data === undefined ? undefined : browserXhr();
      res =
        xhr === undefined || config.onUploadProgress === undefined
          ? await fetch(this.urlOf(config), await requestInit(config))
          : await sendWithXhr(xhr, this.urlOf(config), await xhrInit(config), config.onUploadProgress);
    } catch (error) {
      throw new TransportError(asError(error));
    }
    let response: TransportResponse<T, R>;
    try {
      response = await readResponse<T, R>(res, config.responseType);
    } catch (error) {
      // The body was cut, aborted or timed out after the answer began: its status is known.
      throw new TransportError<T>(asError(error), responseHead(res));
    }
    if (!res.ok || (response.errors?.length ?? 0) > 0) {
      const parent = res.ok ? null : new Error(`Request failed with status code ${res.status}`);
      throw new TransportError<T>(parent, response);
    }
    return response;
  }

  private urlOf(config: RequestConfig): string {
    const query = encodeQuery(config.params);
    return `${this.url}${config.path}${query === '' ? '' : `${config.path.includes('?') ? '&' : '?'}${query}`}`;
  }
}

function responseHead(res: Response): Pick<TransportResponse, 'status' | 'statusText' | 'headers'> {
  return { status: res.status, statusText: res.statusText, headers: Object.fromEntries(res.headers.entries()) };
}

function withDefined<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

async function requestInit(config: RequestConfig): Promise<RequestInit & { duplex?: 'half' }> {
  const headers = new Headers();
  for (const [name, value] of Object.entries(config.headers)) if (value !== null) headers.set(name, value);
  const init: RequestInit & { duplex?: 'half' } = {
    method: config.method.toUpperCase(),
    headers,
    credentials: 'include',
    ...withDefined('signal', config.signal),
  };
  if (config.data === undefined) return init;
  let body = toBody(config.data);
  if (body === undefined) {
    body = JSON.stringify(config.data);
    if (!headers.has('content-type')) headers.set('content-type', 'application/json');
  }
  if (config.onUploadProgress === undefined) return { ...init, body };
  // Serialise once (FormData gets its boundary), then stream it out in chunks, reporting each
  // chunk as fetch pulls it: progress is per chunk handed to the network, not per byte acked.
  const serialised = new Request('http://localhost/', { method: 'POST', body });
  const contentType = serialised.headers.get('content-type');
  if (contentType !== null && !headers.has('content-type')) headers.set('content-type', contentType);
  const bytes = new Uint8Array(await serialised.arrayBuffer());
  return { ...init, body: progressStream(bytes, config.onUploadProgress), duplex: 'half' };
}

/** The request for XMLHttpRequest: the body as it is (FormData keeps its boundary), JSON otherwise. */
async function xhrInit(
  config: RequestConfig,
): Promise<{ method: string; headers: Headers; body: unknown; signal?: AbortSignal }> {
  const { onUploadProgress: _progress, ...plain } = config;
  const init = await requestInit(plain);
  return {
    method: init.method ?? 'POST',
    headers: init.headers as Headers,
    body: init.body,
    ...withDefined('signal', config.signal),
  };
}

function toBody(data: unknown): RequestBody | undefined {
  if (
    typeof data === 'string' ||
    data instanceof FormData ||
    data instanceof Blob ||
    data instanceof URLSearchParams ||
    data instanceof ArrayBuffer ||
    ArrayBuffer.isView(data) ||
    data instanceof ReadableStream
  ) {
    return data as RequestBody;
  }
  return undefined;
}

function progressStream(bytes: Uint8Array, onProgress: UploadProgressHandler): ReadableStream<Uint8Array> {
  let loaded = 0;
  const total = bytes.byteLength;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (loaded >= total) {
        controller.close();
        return;
      }
      const chunk = bytes.subarray(loaded, loaded + UPLOAD_CHUNK_BYTES);
      loaded += chunk.byteLength;
      controller.enqueue(chunk);
      onProgress({ loaded, total, progress: loaded / total });
    },
  });
}

async function readResponse<T, R>(res: Response, responseType: ResponseType): Promise<TransportResponse<T, R>> {
  const base = responseHead(res);
  if (responseType === 'stream' && res.ok) return { ...base, raw: res.body as R };
  if (responseType === 'arraybuffer' && res.ok) return { ...base, raw: (await res.arrayBuffer()) as R };
  const text = await res.text();
  const isJson = /\bjson\b/i.test(res.headers.get('content-type') ?? '') && text !== '';
  const raw = isJson && responseType !== 'text' ? parseJson(text) : text;
  if (typeof raw !== 'object' || raw === null) return { ...base, raw: raw as R };
  const body = raw as { data?: T; meta?: ItemMetadata; errors?: readonly ErrorEntry[] };
  return {
    ...base,
    raw: raw as R,
    ...withDefined('data', body.data),
    ...withDefined('meta', body.meta),
    ...withDefined('errors', body.errors),
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
