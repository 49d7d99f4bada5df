import { ItemsHandler, type HandlerOptions } from '../items.js';
import type { ITransport } from '../transport.js';
import type { FileType, OneItem, QueryOne } from '../types.js';

/**
 * svc_files items. `createOne(formData)` uploads multipart (put the fields before `file`);
 * `import` has the server fetch a file from a URL.
 */
export class FilesHandler<T = FileType> extends ItemsHandler<T> {
  constructor(transport: ITransport) {
    super('svc_files', transport);
  }

  /** With a FormData body: a multipart upload (fields such as `title` before `file`). */
  override createOne(item: Partial<T> | FormData, query?: QueryOne, options?: HandlerOptions): Promise<OneItem<T>> {
    return super.createOne(item as Partial<T>, query, options);
  }

  async import(body: { url: string; data?: Partial<T> }): Promise<T | undefined> {
    return (await this.transport.post<T>('/files/import', body)).data;
  }
}
