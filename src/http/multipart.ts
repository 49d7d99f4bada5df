import busboy from 'busboy';
import type { Request } from 'express';
import { PassThrough, type Readable } from 'node:stream';
import { InvalidPayloadError, ServiceError, UnsupportedMediaTypeError } from '../errors.js';

export type MultipartPart =
  | { readonly kind: 'field'; readonly name: string; readonly value: string }
  | {
      readonly kind: 'file';
      readonly name: string;
      readonly stream: Readable;
      readonly filename: string;
      readonly type: string;
    };

/** True when the request carries a multipart/form-data body. */
export function isMultipart(req: Request): boolean {
  return req.is('multipart/form-data') === 'multipart/form-data';
}

/**
 * The parts of a multipart/form-data body, in order, as they arrive: nothing is buffered
 * beyond busboy's chunk. A file part must be consumed (or left: it is then drained) before
 * the next part is read. A body of another type is UNSUPPORTED_MEDIA_TYPE; a malformed one, or
 * a text part longer than `maxFieldSize` (MAX_PAYLOAD_SIZE, as for a JSON body), INVALID_PAYLOAD.
 */
export async function* readMultipart(req: Request, maxFieldSize: number): AsyncGenerator<MultipartPart> {
  if (!isMultipart(req)) {
    const type = req.headers['content-type']?.split(';')[0]?.trim() || 'none';
    throw new UnsupportedMediaTypeError(type, 'Content-Type header');
  }
  let parser: busboy.Busboy;
  try {
    // One byte more than allowed: busboy flags a value that reaches its limit as truncated.
    parser = busboy({ headers: req.headers, defParamCharset: 'utf8', limits: { fieldSize: maxFieldSize + 1 } });
  } catch (error) {
    throw malformed(error as Error);
  }
  const parts: MultipartPart[] = [];
  // Set by the parser's 'close' callback: a property, which TypeScript does not narrow to its first `false`.
  const parsing = { finished: false };
  let failure: Error | undefined;
  let wake: (() => void) | undefined;
  const signal = () => {
    wake?.();
    wake = undefined;
  };
  parser.on('field', (name, value, info) => {
    // busboy cuts a longer value short and goes on: never a shortened value in a row.
    if (info.valueTruncated) {
      failure ??= new InvalidPayloadError(
        `The text part "${name}" is longer than MAX_PAYLOAD_SIZE (${maxFieldSize} bytes)`,
      );
    } else {
      parts.push({ kind: 'field', name, value });
    }
    signal();
  });
  parser.on('file', (name, source, info) => {
    // A body cut inside a file fails the file's stream with busboy's plain error: INVALID_PAYLOAD.
    const stream = new PassThrough();
    source.on('error', (error: Error) => stream.destroy(malformed(error)));
    // Its reader may not be attached yet (or never be): the failure stays on the stream, never uncaught.
    stream.on('error', () => undefined);
    source.pipe(stream);
    parts.push({
      kind: 'file',
      name,
      stream,
      filename: info.filename || 'file',
      type: (info.mimeType || 'application/octet-stream').toLowerCase(),
    });
    signal();
  });
  parser.on('close', () => {
    parsing.finished = true;
    signal();
  });
  parser.on('error', (error: Error) => {
    failure = error;
    signal();
  });
  // A client gone before the end of its body: the part being read fails, so that its reader
  // (an import, inside its transaction) stops and rolls back instead of waiting for ever.
  const closed = () => {
    if (!req.complete) parser.destroy(new Error('The request was closed before the end of its body'));
  };
  // Closed already (the client went while the route was still checking the caller): its
  // 'close' event is past, and the body will never come.
  if (req.closed) closed();
  else req.once('close', closed);
  req.pipe(parser);
  try {
    for (;;) {
      if (failure instanceof ServiceError) throw failure;
      const part = parts.shift();
      if (part !== undefined) {
        yield part;
        if (part.kind === 'file' && !part.stream.readableEnded) part.stream.resume();
        continue;
      }
      if (failure !== undefined) throw malformed(failure);
      if (parsing.finished) return;
      await new Promise<void>((resolve) => (wake = resolve));
    }
  } finally {
    req.off('close', closed);
    if (!parsing.finished) {
      // Stopped early (an error, or the route had what it needed): drain the rest unparsed.
      req.unpipe(parser);
      for (const part of parts) if (part.kind === 'file') part.stream.resume();
      req.resume();
    }
  }
}

/** busboy's complaint about a body (`Unexpected end of form`, `Malformed part header`) as INVALID_PAYLOAD. */
function malformed(error: Error): InvalidPayloadError {
  return new InvalidPayloadError(error.message.replace(/\.$/, ''));
}
