import { pathSegment } from '../errors.js';
import type { ITransport } from '../transport.js';
import type { ID } from '../types.js';

/** File contents from /assets: the response body as a stream. */
export class AssetsHandler {
  constructor(private readonly transport: ITransport) {}

  async readOne(id: ID, params?: Readonly<Record<string, unknown>>): Promise<ReadableStream<Uint8Array> | null> {
    const response = await this.transport.get<never, ReadableStream<Uint8Array> | null>(
      `/assets/${pathSegment('id', id)}`,
      { responseType: 'stream', ...(params === undefined ? {} : { params }) },
    );
    return response.raw;
  }
}
