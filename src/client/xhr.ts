import type { UploadProgressHandler } from './transport-types.js';

/** The part of the browser's XMLHttpRequest the upload path uses (no DOM types in the library). */
interface Xhr {
  open(method: string, url: string): void;
  setRequestHeader(name: string, value: string): void;
  getAllResponseHeaders(): string;
  send(body: unknown): void;
  abort(): void;
  withCredentials: boolean;
  responseType: string;
  readonly response: unknown;
  readonly status: number;
  readonly statusText: string;
  readonly upload: { addEventListener(type: 'progress', listener: (event: ProgressLike) => void): void };
  addEventListener(type: 'load' | 'error' | 'abort', listener: () => void): void;
}
interface ProgressLike {
  readonly loaded: number;
  readonly total: number;
  readonly lengthComputable: boolean;
}

type XhrConstructor = new () => Xhr;

/** The browser's XMLHttpRequest, or undefined (Node, workers without it). */
export function browserXhr(): XhrConstructor | undefined {
  return (globalThis as { XMLHttpRequest?: XhrConstructor }).XMLHttpRequest;
}

/**
 * Sends one request with XMLHttpRequest, for uploads in a browser: its `upload` progress events
 * count bytes the network took, where a streamed fetch body needs HTTP/2 in browsers. Answers
 * a `Response`, so the caller reads it as it reads fetch's.
 */
export function sendWithXhr(
  Request: XhrConstructor,
  url: string,
  init: { method: string; headers: Headers; body: unknown; signal?: AbortSignal },
  onProgress: UploadProgressHandler,
): Promise<Response> {
  return new Promise((resolve, reject) => {
    const xhr = new Request();
    xhr.open(init.method, url);
    xhr.withCredentials = true;
    xhr.responseType = 'arraybuffer';
    init.headers.forEach((value, name) => {
      xhr.setRequestHeader(name, value);
    });
    xhr.upload.addEventListener('progress', (event) => {
      if (event.lengthComputable)
        onProgress({ loaded: event.loaded, total: event.total, progress: event.loaded / event.total });
    });
    xhr.addEventListener('load', () => {
      const headers = new Headers();
      for (const line of xhr
        .getAllResponseHeaders()
        .trim()
        .split(/[\r\n]+/)) {
        const at = line.indexOf(':');
        if (at > 0) headers.append(line.slice(0, at).trim(), line.slice(at + 1).trim());
      }
      const empty = xhr.status === 204 || xhr.status === 304;
      resolve(
        new Response(empty ? null : (xhr.response as ArrayBuffer), {
          status: xhr.status,
          statusText: xhr.statusText,
          headers,
        }),
      );
    });
    xhr.addEventListener('error', () => {
      reject(new Error('Network error'));
    });
    xhr.addEventListener('abort', () => {
      reject(new Error('The request was aborted'));
    });
    init.signal?.addEventListener('abort', () => {
      xhr.abort();
    });
    xhr.send(init.body);
  });
}
