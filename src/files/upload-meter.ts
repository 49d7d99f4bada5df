import { Transform, type TransformCallback } from 'node:stream';
import { ContentTooLargeError } from '../errors.js';
import { IMAGE_HEADER_BYTES } from './image-size.js';

/**
 * Passes an upload through on its way to storage: counts its bytes, fails it with
 * CONTENT_TOO_LARGE once it exceeds FILES_MAX_UPLOAD_SIZE (nothing is buffered beyond a
 * chunk), and keeps its first bytes for the image header.
 */
export class UploadMeter extends Transform {
  #size = 0;
  readonly #head: Buffer[] = [];
  #headLength = 0;

  constructor(private readonly maxSize: number) {
    super();
  }

  get size(): number {
    return this.#size;
  }

  /** The first bytes seen (up to IMAGE_HEADER_BYTES). */
  head(): Buffer {
    return Buffer.concat(this.#head, this.#headLength);
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.#size += chunk.length;
    if (this.#size > this.maxSize) {
      callback(new ContentTooLargeError());
      return;
    }
    if (this.#headLength < IMAGE_HEADER_BYTES) {
      const part = chunk.subarray(0, IMAGE_HEADER_BYTES - this.#headLength);
      this.#head.push(part);
      this.#headLength += part.length;
    }
    callback(null, chunk);
  }
}
