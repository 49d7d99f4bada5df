import type { Readable } from 'node:stream';

/** A byte range of a stored file, both ends inclusive (HTTP Range semantics). */
export interface ByteRange {
  readonly start: number;
  readonly end: number;
}

/**
 * What GET /assets/:id serves (files/assets.ts, and a transformation's variant): the file's
 * content and the facts its headers carry.
 */
export interface Asset {
  readonly type: string;
  readonly filenameDownload: string;
  readonly size: number;
  readonly modified: Date;
  /** The content, or the given range of it. */
  open(range?: ByteRange): Promise<Readable>;
}

export interface StoredFileStat {
  readonly size: number;
  readonly modified: Date;
}

/**
 * Where file contents live. Paths are the files'
 * `filename_disk`: plain file names in the location's root ({@link isPlainFileName}); a driver
 * refuses any other path with FORBIDDEN, whatever the caller (a stored row written before
 * `filename_disk` was the service's own, a bug) hands it.
 * `write` is all or nothing: a failed or aborted write leaves nothing at `path`, and a
 * reader never sees half of a file. An S3-style driver implements the same five calls.
 */
export interface StorageDriver {
  /** Streams `content` to `path` (replacing what is there) and returns the bytes written. */
  write(path: string, content: Readable): Promise<{ readonly size: number }>;
  /** The content, or the given range of it. */
  read(path: string, range?: ByteRange): Promise<Readable>;
  /** Size and modification time; undefined when nothing is stored at `path`. */
  stat(path: string): Promise<StoredFileStat | undefined>;
  /** Renames a stored file (replacing `to`). */
  move(from: string, to: string): Promise<void>;
  /** Removes the file; nothing stored at `path` is not an error. */
  delete(path: string): Promise<void>;
  /**
   * The stored names starting with `prefix` (never half-written ones): how a file's image
   * variants are found when it is deleted or replaced.
   */
  list(prefix: string): Promise<string[]>;
}

/**
 * A name that stays inside its folder: no separator, no `.`/`..`, no control character (NUL
 * included), at most 255 characters (`<id>.<ext>`).
 */
export function isPlainFileName(name: string): boolean {
  return name.length > 0 && name.length <= 255 && name !== '.' && name !== '..' && !/[/\\\x00-\x1f\x7f]/.test(name);
}
