import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ForbiddenError } from '../../errors.js';
import { isPlainFileName, type ByteRange, type StorageDriver, type StoredFileStat } from './storage-driver.js';

/**
 * Files under a root folder on local disk (STORAGE_<KEY>_ROOT). A write goes to a hidden
 * temporary file next to its target (`.<name>.part`) and is renamed over it when complete,
 * which the file system does atomically: readers see the old content or the new one, never a
 * part. The temporary name follows the target's, so a write that died with its process is
 * overwritten by the next write of the same file (an export's retry).
 */
export class LocalStorageDriver implements StorageDriver {
  readonly #root: string;

  constructor(root: string) {
    this.#root = resolve(root);
  }

  async write(path: string, content: Readable): Promise<{ size: number }> {
    const target = this.#resolve(path);
    await mkdir(this.#root, { recursive: true });
    const temporary = join(this.#root, `.${path}.part`);
    const file = createWriteStream(temporary);
    try {
      await pipeline(content, file);
      const { size } = await stat(temporary);
      await rename(temporary, target);
      return { size };
    } catch (error) {
      // A stream destroyed before its file is open still creates the file, then closes it: the
      // part is removed once that is done, or it would stay (an upload refused at once, 413).
      if (!file.closed)
        await new Promise<void>((closed) => {
          file.once('close', () => {
            closed();
          });
        });
      await rm(temporary, { force: true });
      throw error;
    }
  }

  async read(path: string, range?: ByteRange): Promise<Readable> {
    const file = this.#resolve(path);
    const stream = createReadStream(file, range === undefined ? {} : { start: range.start, end: range.end });
    // Fail here rather than mid-response when the file is missing.
    await new Promise<void>((resolveOpen, reject) => {
      stream.once('open', () => {
        resolveOpen();
      });
      stream.once('error', reject);
    });
    return stream;
  }

  async stat(path: string): Promise<StoredFileStat | undefined> {
    try {
      const info = await stat(this.#resolve(path));
      return info.isFile() ? { size: info.size, modified: info.mtime } : undefined;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  async move(from: string, to: string): Promise<void> {
    const target = this.#resolve(to);
    const source = this.#resolve(from);
    await mkdir(this.#root, { recursive: true });
    await rename(source, target);
  }

  async delete(path: string): Promise<void> {
    await rm(this.#resolve(path), { force: true });
  }

  async list(prefix: string): Promise<string[]> {
    try {
      // Writes in progress are hidden `.<name>.part` files: a prefix never matches them.
      return (await readdir(this.#root)).filter((name) => name.startsWith(prefix) && isPlainFileName(name));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
  }

  /** The absolute path of `path`, a plain file name in the root; FORBIDDEN for anything else. */
  #resolve(path: string): string {
    if (!isPlainFileName(path)) throw new ForbiddenError();
    return join(this.#root, path);
  }
}
