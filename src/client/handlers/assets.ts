import { pathSegment } from '../errors.js';
import { encodeQuery } from '../query-string.js';
import type { ITransport } from '../transport.js';
import type { ID } from '../types.js';

/** File contents from /assets: the response body as a stream. */
export class AssetsHandler {
  constructor(
    private readonly transport: ITransport,
    private readonly baseUrl = '',
  ) {}

  /**
   * The address of a file's contents, for an `<img src>` or a download link: `/assets/<id>` with
   * `params` (transforms such as `width`, `height`, `fit`; `download`; `access_token` when the
   * page cannot send the Authorization header).
   */
  url(id: ID, params?: Readonly<Record<string, unknown>>): string {
    const query = params === undefined ? '' : encodeQuery(params);
    return `${this.baseUrl.replace(/\/+$/, '')}/assets/${pathSegment('id', id)}${query === '' ? '' : `?${query}`}`;
  }

  async readOne(id: ID, params?: Readonly<Record<string, unknown>>): Promise<ReadableStream<Uint8Array> | null> {
    const response = await this.transport.get<never, ReadableStream<Uint8Array> | null>(
      `/assets/${pathSegment('id', id)}`,
      { responseType: 'stream', ...(params === undefined ? {} : { params }) },
    );
    return response.raw;
  }
}
