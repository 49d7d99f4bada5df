import { pathSegment, requireParam } from '../errors.js';
import type { ITransport, UploadProgressHandler } from '../transport.js';
import type { ExportFormat, ID, QueryMany } from '../types.js';
import { ExportHandle, type ExportFollowOptions } from './export-job.js';

/** What `utils.export` sends beside the query. */
export interface ExportOptions extends ExportFollowOptions {
  readonly format: ExportFormat;
  /** Fields of the file record to make (title, folder, description, storage, ...). */
  readonly file?: Readonly<Record<string, unknown>>;
}

/** What `utils.import` takes: a file (its type tells csv or json), or text with `type`. */
export type ImportSource = Blob | string | Uint8Array;

export interface ImportOptions {
  /** `text/csv` or `application/json`: required for a string or bytes, else the Blob's type. */
  readonly type?: string;
  /** The file name the server sees. */
  readonly filename?: string;
  /** Upload progress, per chunk sent. */
  readonly onUploadProgress?: UploadProgressHandler;
  readonly signal?: AbortSignal;
}

/** /utils: random strings, hashes, manual sort, revert (also to a moment), bulk undo, cache clear, export and import. */
export class UtilsHandler {
  readonly random: { string: (length?: number) => Promise<string | undefined> };
  readonly hash: {
    generate: (string: string) => Promise<string | undefined>;
    verify: (string: string, hash: string) => Promise<boolean | undefined>;
  };
  readonly cache: { clear: () => Promise<void> };
  /** Admin only: `test(to)` sends one test mail through the service's mailer (POST /utils/mail/test). */
  readonly mail: { test: (to: string) => Promise<void> };

  constructor(private readonly transport: ITransport) {
    this.random = {
      string: async (length = 32) => (await transport.get<string>('/utils/random/string', { params: { length } })).data,
    };
    this.hash = {
      generate: async (string) => (await transport.post<string>('/utils/hash/generate', { string })).data,
      verify: async (string, hash) => (await transport.post<boolean>('/utils/hash/verify', { string, hash })).data,
    };
    this.cache = {
      clear: async () => {
        await transport.post('/utils/cache/clear');
      },
    };
    this.mail = {
      test: async (to) => {
        await transport.post('/utils/mail/test', { to });
      },
    };
  }

  /** Moves `item` of `collection` to the position of `to`. */
  async sort(collection: string, item: ID, to: ID): Promise<void> {
    await this.transport.post(`/utils/sort/${pathSegment('collection', collection)}`, { item, to });
  }

  async revert(revision: ID): Promise<void> {
    await this.transport.post(`/utils/revert/${pathSegment('revision', revision)}`);
  }

  /** Restores an item to how it was at `asOf` (an ISO 8601 timestamp or a revision id). */
  async revertAsOf(collection: string, item: ID, asOf: string | number): Promise<void> {
    requireParam('collection', collection);
    await this.transport.post('/utils/revert', { collection, item, as_of: asOf });
  }

  /**
   * Undoes the writes of the svc_activity rows `filter` selects; `dryRun` answers the plan
   * only, `force` undoes fields later changed by others too.
   */
  async undo(
    filter: Record<string, unknown>,
    options: { dryRun?: boolean; force?: boolean } = {},
  ): Promise<Record<string, unknown>[] | undefined> {
    const body = { filter, dry_run: options.dryRun ?? false, force: options.force ?? false };
    return (await this.transport.post<Record<string, unknown>[]>('/utils/undo', body)).data;
  }

  /**
   * Starts an export of `collection`'s items that `query` selects (POST
   * /utils/export/:collection) and follows it: the handle's `progress` events, `done` (the
   * file record), `download()`. Refusals (FORBIDDEN, INVALID_PAYLOAD, INVALID_QUERY) reject
   * here, before anything runs.
   */
  async export(collection: string, query: QueryMany, options: ExportOptions): Promise<ExportHandle> {
    const { format, file, ...follow } = options;
    const response = await this.transport.post(
      `/utils/export/${pathSegment('collection', collection)}`,
      { format, query, ...(file === undefined ? {} : { file }) },
      follow.signal === undefined ? {} : { signal: follow.signal },
    );
    const location = response.headers['location'];
    const id = response.headers['x-export-job'] ?? location?.slice(location.lastIndexOf('/') + 1);
    if (id === undefined || id === '') {
      throw new Error(
        'The export was queued, but the answer names no job (X-Export-Job): a browser needs CORS_EXPOSED_HEADERS to list it',
      );
    }
    return new ExportHandle(this.transport, decodeURIComponent(id), follow);
  }

  /**
   * Imports a CSV or JSON file into `collection` (POST /utils/import/:collection): created,
   * or updated where a key exists, all in the request; resolves once every row is written,
   * rejects (nothing written) with the row at fault.
   */
  async import(collection: string, file: ImportSource, options: ImportOptions = {}): Promise<void> {
    const type = options.type ?? (file instanceof Blob ? file.type : '');
    if (type === '') throw new Error('utils.import needs the file type: text/csv or application/json');
    const blob =
      file instanceof Blob && file.type === type
        ? file
        : new Blob([typeof file === 'string' || file instanceof Blob ? file : new Uint8Array(file)], { type });
    const form = new FormData();
    form.append('file', blob, options.filename ?? (type.includes('json') ? 'import.json' : 'import.csv'));
    await this.transport.post(`/utils/import/${pathSegment('collection', collection)}`, form, {
      ...(options.onUploadProgress === undefined ? {} : { onUploadProgress: options.onUploadProgress }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
  }
}
