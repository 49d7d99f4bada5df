import { pathSegment } from '../errors.js';
import type { ITransport } from '../transport.js';
import type { ExportFormat, FileType } from '../types.js';

/** `GET /utils/export/jobs/:id`: an export's progress. */
export interface ExportJobStatus {
  readonly id: string;
  readonly collection: string;
  readonly format: ExportFormat;
  readonly status: 'queued' | 'running' | 'done' | 'failed';
  readonly rows_done: number;
  /** null until the rows are counted. */
  readonly rows_total: number | null;
  /** 1 on the first try, more while the server retries. */
  readonly attempt: number;
  /** The file's id once `done`. */
  readonly file: string | null;
  readonly error: string | null;
}

/** The export's job ended `failed`: its status says why (`error`). */
export class ExportFailedError extends Error {
  constructor(readonly job: ExportJobStatus) {
    super(job.error ?? 'The export failed');
    this.name = 'ExportFailedError';
  }
}

export type ExportProgressListener = (job: ExportJobStatus) => void;

/** How a handle polls its job. */
export interface ExportFollowOptions {
  /** Between two polls of the job resource, in ms (default 500). */
  readonly pollInterval?: number;
  /** Stops following: `done` rejects with the signal's reason. */
  readonly signal?: AbortSignal;
}

/**
 * An export the server runs in the background, followed by polling its job resource
 * (`GET /utils/export/jobs/:id`) from the moment it is made: `on('progress', …)` hears each
 * new status, `done` resolves to the file record once the job is `done` (rejects with an
 * {@link ExportFailedError} when it failed, or the transport's error), `download()` gives the
 * file's content as a stream, `text()` as text.
 */
export class ExportHandle {
  readonly done: Promise<FileType>;
  readonly #listeners = new Set<ExportProgressListener>();
  #last: ExportJobStatus | undefined;

  constructor(
    private readonly transport: ITransport,
    readonly id: string,
    options: ExportFollowOptions = {},
  ) {
    this.done = this.#follow(options.pollInterval ?? 500, options.signal);
    // Nobody awaiting `done` (say, only progress is wanted) is no unhandled rejection.
    this.done.catch(() => undefined);
  }

  /** The last status seen, if any. */
  get status(): ExportJobStatus | undefined {
    return this.#last;
  }

  /** Calls `listener` with each status that differs from the one before (the first one too). */
  on(_event: 'progress', listener: ExportProgressListener): this {
    this.#listeners.add(listener);
    return this;
  }

  off(_event: 'progress', listener: ExportProgressListener): this {
    this.#listeners.delete(listener);
    return this;
  }

  /** The file's content, once done, as the response body stream of `/assets/:file`. */
  async download(): Promise<ReadableStream<Uint8Array> | null> {
    const file = await this.done;
    const response = await this.transport.get<never, ReadableStream<Uint8Array> | null>(
      `/assets/${pathSegment('id', file.id)}`,
      { responseType: 'stream' },
    );
    return response.raw;
  }

  /** The file's content, once done, as text. */
  async text(): Promise<string> {
    const file = await this.done;
    const response = await this.transport.get<never, string>(`/assets/${pathSegment('id', file.id)}`, {
      responseType: 'text',
    });
    return response.raw;
  }

  async #follow(intervalMs: number, signal: AbortSignal | undefined): Promise<FileType> {
    const path = `/utils/export/jobs/${pathSegment('id', this.id)}`;
    for (;;) {
      signal?.throwIfAborted();
      const job = (await this.transport.get<ExportJobStatus>(path, signal === undefined ? {} : { signal })).data;
      if (job === undefined) throw new Error(`No export job in the answer of ${path}`);
      if (JSON.stringify(job) !== JSON.stringify(this.#last)) {
        this.#last = job;
        for (const listener of this.#listeners) listener(job);
      }
      if (job.status === 'failed') throw new ExportFailedError(job);
      if (job.status === 'done' && job.file !== null) {
        const file = await this.transport.get<FileType>(`/files/${pathSegment('id', job.file)}`);
        if (file.data === undefined) throw new Error(`No file record ${job.file}`);
        return file.data;
      }
      await sleep(intervalMs, signal);
    }
  }
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', stop);
      resolve();
    }, ms);
    const stop = (): void => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    signal?.addEventListener('abort', stop, { once: true });
  });
}
