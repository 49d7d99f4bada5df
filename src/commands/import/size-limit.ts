import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { InvalidPayloadError } from '../../errors.js';

/**
 * The file of an import as it arrives, failed with INVALID_PAYLOAD once it passes `maxSize`
 * bytes (IMPORT_MAX_SIZE): the import then rolls back, nothing written. Nothing is buffered
 * beyond a chunk.
 */
export function limitImportSize(source: Readable, maxSize: number): Readable {
  if (maxSize === Infinity) return source;
  let size = 0;
  const meter = new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback) {
      size += chunk.length;
      if (size > maxSize)
        callback(new InvalidPayloadError(`The file is larger than ${maxSize} bytes (IMPORT_MAX_SIZE)`));
      else callback(null, chunk);
    },
  });
  source.on('error', (error) => meter.destroy(error));
  // The reader sees the failure through the stream; it is never an uncaught 'error' event.
  meter.on('error', () => undefined);
  return source.pipe(meter);
}
