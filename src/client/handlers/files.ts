import { ItemsHandler } from '../items.js';
import type { ITransport } from '../transport.js';
import type { FileType } from '../types.js';

/**
 * svc_files items. `createOne(formData)` uploads multipart (put the fields before `file`);
 * `import` has the server fetch a file from a URL.
 */
export class FilesHandler<T = FileType> extends ItemsHandler<T> {
  constructor(transport: ITransport) {
    super('svc_files', transport);
  }

  async import(body: { url: string; data?: Partial<T> }): Promise<T | undefined> {
    return (await this.transport.post<T>('/files/import', body)).data;
  }
}
