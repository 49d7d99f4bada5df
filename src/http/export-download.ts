import type { Response } from 'express';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { EXPORT_TYPES, formatItems, type FormatOptions } from '../files/export/export-formats.js';
import { contentDisposition } from '../files/file-names.js';
import type { ExportFormat, Item } from '../query/index.js';

/**
 * `?export=csv|json|xml|yaml` on a read: the items as a file
 * download, `<collection> <YYYYMMDD-Hmmss>.<ext>`, written as they are read. The first item
 * is read before anything is sent, so a bad query still gets its error response.
 */
export async function sendExport(
  res: Response,
  collection: string,
  format: ExportFormat,
  items: AsyncIterable<Item>,
  options: FormatOptions,
): Promise<void> {
  const iterator = items[Symbol.asyncIterator]();
  const first = await iterator.next();
  const rest = async function* (): AsyncGenerator<Item> {
    try {
      if (first.done === true) return;
      yield first.value;
      for (let next = await iterator.next(); next.done !== true; next = await iterator.next()) yield next.value;
    } finally {
      await iterator.return?.();
    }
  };
  const { contentType, extension } = EXPORT_TYPES[format];
  res.status(200).type(contentType);
  res.setHeader(
    'Content-Disposition',
    contentDisposition('attachment', `${collection} ${downloadStamp(new Date())}.${extension}`),
  );
  try {
    await pipeline(Readable.from(formatItems(rest(), format, options)), res);
  } catch (error) {
    // The client went away mid-download: nothing to answer.
    if (!res.destroyed) throw error;
  }
}

/** `YYYYMMDD-Hmmss` in server time, the hour not padded. */
function downloadStamp(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  const day = `${date.getFullYear()}${pad(date.getMonth() + 1)}${pad(date.getDate())}`;
  return `${day}-${date.getHours()}${pad(date.getMinutes())}${pad(date.getSeconds())}`;
}
