/**
 * The shapes a request and its answer travel in: below transport.ts, errors.ts and xhr.ts,
 * which all speak them (transport.ts and errors.ts export them to the library's users).
 */

/** One entry of the server's `errors` array. */
export interface ErrorEntry {
  readonly message?: string;
  readonly extensions?: { readonly code?: string; readonly [key: string]: unknown };
}

export interface ItemMetadata {
  readonly total_count?: number;
  readonly filter_count?: number;
}

/** `data`, `meta` and `errors` are copied from the body (`raw`). */
export interface TransportResponse<T = unknown, R = unknown> {
  readonly raw: R;
  readonly data?: T;
  readonly meta?: ItemMetadata;
  readonly errors?: readonly ErrorEntry[];
  readonly status: number;
  readonly statusText?: string;
  readonly headers: Readonly<Record<string, string>>;
}

/** `loaded` bytes of `total` handed to the network so far. */
export interface UploadProgress {
  readonly loaded: number;
  readonly total: number;
  readonly progress: number;
}
export type UploadProgressHandler = (progress: UploadProgress) => void;
